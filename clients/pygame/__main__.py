"""``python -m clients.pygame``: open the Tilehall window."""

from clients.pygame.app import main

main()
