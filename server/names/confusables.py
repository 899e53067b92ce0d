"""UTS #39 confusables: the prototype of every character Unicode lists as a look-alike.

The skeleton of Unicode Technical Standard #39 (section 4, "Confusable
Detection") maps each character of a string in NFD to its prototype, then
takes NFD again: two strings are confusable when their skeletons are equal.
The mapping is Unicode's ``confusables.txt``; this module reads the copy
shipped beside it, ``confusables.txt`` in this folder, made from the original
by :func:`main` (every mapping line's first two fields, nothing else, with
Unicode's copyright and permission notice). Which version it is, and the
SHA-256 of the original it was made from, are in that file's first lines.

The whole table is used, its ASCII rows included: ``m`` maps to ``rn``,
``I`` and ``1`` to ``l``, ``0`` to ``O``. Libraries that fold text for
display leave those rows out, because folding prose that way ruins it; a
skeleton is only ever compared, never shown, so here they belong.

Regenerate after a new Unicode release::

    python -m tilehall.server.names.confusables path/to/confusables.txt

(from https://www.unicode.org/Public/security/VERSION/confusables.txt), then
bump nothing else: :data:`VERSION` is read from the file, and the stores make
their keys again when it changes (:data:`tilehall.server.names.KEYS_VERSION`).
"""

from __future__ import annotations

import functools
import hashlib
import re
import sys
import unicodedata
from pathlib import Path

__all__ = ["DATA", "VERSION", "compact", "main", "prototypes", "tr39_skeleton"]

DATA = Path(__file__).with_name("confusables.txt")
"""The shipped table (see the module's doc)."""

_ROW = re.compile(r"^([0-9A-F]{4,6}) ;\t([0-9A-F]{4,6}(?: [0-9A-F]{4,6})*) ;")
"""A mapping line of Unicode's file, and of the shipped one: source ; prototype ;"""

_VERSION = re.compile(r"^# (?:Unicode confusables\.txt, )?Version: (\S+)")

NOTICE = """\
UNICODE LICENSE V3

COPYRIGHT AND PERMISSION NOTICE

Copyright © 1991-2025 Unicode, Inc.

NOTICE TO USER: Carefully read the following legal agreement. BY
DOWNLOADING, INSTALLING, COPYING OR OTHERWISE USING DATA FILES, AND/OR
SOFTWARE, YOU UNEQUIVOCALLY ACCEPT, AND AGREE TO BE BOUND BY, ALL OF THE
TERMS AND CONDITIONS OF THIS AGREEMENT. IF YOU DO NOT AGREE, DO NOT
DOWNLOAD, INSTALL, COPY, DISTRIBUTE OR USE THE DATA FILES OR SOFTWARE.

Permission is hereby granted, free of charge, to any person obtaining a
copy of data files and any associated documentation (the "Data Files") or
software and any associated documentation (the "Software") to deal in the
Data Files or Software without restriction, including without limitation
the rights to use, copy, modify, merge, publish, distribute, and/or sell
copies of the Data Files or Software, and to permit persons to whom the
Data Files or Software are furnished to do so, provided that either (a)
this copyright and permission notice appear with all copies of the Data
Files or Software, or (b) this copyright and permission notice appear in
associated Documentation.

THE DATA FILES AND SOFTWARE ARE PROVIDED "AS IS", WITHOUT WARRANTY OF ANY
KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT OF
THIRD PARTY RIGHTS.

IN NO EVENT SHALL THE COPYRIGHT HOLDER OR HOLDERS INCLUDED IN THIS NOTICE
BE LIABLE FOR ANY CLAIM, OR ANY SPECIAL INDIRECT OR CONSEQUENTIAL DAMAGES,
OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS,
WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION,
ARISING OUT OF OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THE DATA
FILES OR SOFTWARE.

Except as contained in this notice, the name of a copyright holder shall
not be used in advertising or otherwise to promote the sale, use or other
dealings in these Data Files or Software without prior written
authorization of the copyright holder.

SPDX-License-Identifier: Unicode-3.0
"""
"""Unicode's notice, which must go with every copy of its data files (the shipped table)."""


def _parse(lines: list[str]) -> tuple[str, dict[str, str]]:
    version = "unknown"
    table: dict[str, str] = {}
    for line in lines:
        if (found := _VERSION.match(line)) is not None and version == "unknown":
            version = found.group(1)
        elif (row := _ROW.match(line)) is not None:
            table[chr(int(row.group(1), 16))] = "".join(
                chr(int(cp, 16)) for cp in row.group(2).split()
            )
    return version, table


@functools.cache
def _loaded() -> tuple[str, dict[str, str]]:
    return _parse(DATA.read_text(encoding="utf-8").splitlines())


def prototypes() -> dict[str, str]:
    """Every source character of the table, to its prototype (one or more characters)."""
    return _loaded()[1]


def _version() -> str:
    return _loaded()[0]


VERSION = _version()
"""The Unicode version of the shipped table (``17.0.0``)."""


def tr39_skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text``: NFD, each character by its prototype, NFD again.

    Case is kept (``I`` is ``l``, ``i`` stays ``i``): the caller folds it.
    UTS #39 also drops Default_Ignorable_Code_Point characters first; names
    cannot hold any that show (:func:`tilehall.server.names.validate_name`
    refuses what shows nothing), and format characters (Cf) are dropped here.
    """
    table = prototypes()
    mapped = "".join(
        table.get(ch, ch)
        for ch in unicodedata.normalize("NFD", text)
        if unicodedata.category(ch) != "Cf"
    )
    return unicodedata.normalize("NFD", mapped)


def compact(original: bytes) -> str:
    """The shipped table made from Unicode's ``confusables.txt`` (its bytes).

    Keeps the original's version and date lines, its SHA-256, every mapping
    line's source and prototype as the original spells them, and the notice.
    """
    lines = original.decode("utf-8-sig").splitlines()
    version, table = _parse(lines)
    dated = next((line for line in lines if line.startswith("# Date:")), "# Date: unknown")
    digest = hashlib.sha256(original).hexdigest()
    head = [
        f"# Unicode confusables.txt, Version: {version}",
        dated,
        f"# Made from the original (SHA-256 {digest}) by",
        "# `python -m tilehall.server.names.confusables confusables.txt`: only its mapping lines'",
        "# source and prototype, in its order; https://www.unicode.org/reports/tr39 says",
        "# what they mean. The original: https://www.unicode.org/Public/security/"
        f"{version}/confusables.txt",
        "#",
        *(f"# {line}".rstrip() for line in NOTICE.splitlines()),
        "#",
    ]
    rows = [
        f"{row.group(1)} ;\t{row.group(2)} ;"
        for line in lines
        if (row := _ROW.match(line)) is not None
    ]
    assert len(rows) == len(table), "a source listed twice"
    return "\n".join([*head, *rows]) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m tilehall.server.names.confusables ORIGINAL``: write the shipped table from it."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m tilehall.server.names.confusables confusables.txt", file=sys.stderr)
        return 2
    shipped = compact(Path(args[0]).read_bytes())
    DATA.write_text(shipped, encoding="utf-8")
    print(f"{DATA}: {len(_parse(shipped.splitlines())[1])} prototypes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
