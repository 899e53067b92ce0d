"""UTS #39's confusables: the table shipped, how it is made from Unicode's file, the skeleton."""

from __future__ import annotations

import hashlib

from tilehall.server.names import confusables
from tilehall.server.names.confusables import compact, prototypes, tr39_skeleton

ORIGINAL = (
    "\ufeff# confusables.txt\n"
    "# Date: 2025-07-22, 05:49:37 GMT\n"
    "# Version: 17.0.0\n"
    "#\n"
    "006D ;\t0072 006E ;\tMA\t# ( m \u2192 rn ) LATIN SMALL LETTER M \u2192 ...\t# \n"
    "\n"
    "0031 ;\t006C ;\tMA\t# ( 1 \u2192 l ) DIGIT ONE \u2192 LATIN SMALL LETTER L\t# \n"
    "# total: 2\n"
).encode()
"""The shape of Unicode's file: a byte-order mark, comments, mapping lines with comments."""


def test_the_shipped_table_is_made_from_the_original_as_it_says() -> None:
    made = compact(ORIGINAL)
    lines = made.splitlines()
    assert lines[0] == "# Unicode confusables.txt, Version: 17.0.0"
    assert lines[1] == "# Date: 2025-07-22, 05:49:37 GMT"
    assert hashlib.sha256(ORIGINAL).hexdigest() in lines[2]
    assert "# UNICODE LICENSE V3" in lines
    assert lines[-2:] == ["006D ;\t0072 006E ;", "0031 ;\t006C ;"]
    assert confusables._parse(lines) == ("17.0.0", {"m": "rn", "1": "l"})


def test_the_shipped_table_is_unicodes_17_0_whole() -> None:
    assert confusables.VERSION == "17.0.0"
    table = prototypes()
    assert len(table) == 6565  # "# total: 6565" in the original
    assert (table["m"], table["I"], table["1"], table["0"]) == ("rn", "l", "l", "O")
    assert table["\u0430"] == "a"  # Cyrillic a


def test_the_tr39_skeleton_keeps_case_and_maps_every_character() -> None:
    assert tr39_skeleton("mara") == tr39_skeleton("rnara") == "rnara"
    assert tr39_skeleton("Ilse") == "llse" and tr39_skeleton("ilse") == "ilse"
    assert tr39_skeleton("a\u00adb") == "ab"  # a soft hyphen (format) shows nothing
