"""``python -m clients.cli``: the same as the ``tilehall`` command."""

from clients.cli.app import main

main()
