"""``python -m tilehall.clients.bot``: the same as the ``tilehall-bot`` command."""

from tilehall.clients.bot.app import main

main()
