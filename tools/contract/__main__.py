"""``python -m tools.contract [--check]``: write, or check, the published contract."""

from tools.contract import main

raise SystemExit(main())
