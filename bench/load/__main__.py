"""``python -m bench.load``: see :mod:`bench.load`."""

from bench.load.cli import main

main()
