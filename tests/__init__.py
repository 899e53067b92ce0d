"""The test suite.

Its package is imported before any conftest, so the line below holds for the
server's modules that conftest imports too.
"""

import sys

# The suite keeps its bytecode caches (__pycache__, ignored by git) even where the
# environment says not to write them (PYTHONDONTWRITEBYTECODE): pytest rewrites the
# asserts of every test module it imports, and without a cache it does so again on
# every run, 221 modules at about 16 s of CPU on a 2-core machine, more than 10 % of
# the `-m "not slow"` loop. With it a later run reads them: 6 s.
sys.dont_write_bytecode = False
