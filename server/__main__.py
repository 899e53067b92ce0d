"""``python -m tilehall.server``: the same as the ``tilehall-server`` command."""

from tilehall.server.app import main

main()
