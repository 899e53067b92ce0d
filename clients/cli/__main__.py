"""``python -m tilehall.clients.cli``: the same as the ``tilehall`` command."""

from tilehall.clients.cli import main

main()
