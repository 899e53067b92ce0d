"""``python -m tilehall.clients.pygame``: open the Tilehall window."""

from tilehall.clients.pygame import main

main()
