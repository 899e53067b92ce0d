"""Tools run from a checkout of Tilehall, not shipped with it (as ``bench/`` is)."""
