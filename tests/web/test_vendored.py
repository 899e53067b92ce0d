"""Every vendored file is the one recorded in clients/web/vendor/VENDORED.md, byte for byte.

The table's ``file`` column names each library file and its ``SHA-256`` column
its hash; a file's licence, named in its row's ``licence`` column (``ISC
(`msgpack.LICENSE`)``), belongs to that row. Anything else in the folder is a
file nobody recorded, and fails.
"""

from __future__ import annotations

import hashlib
import re

from tilehall.server.net.web import web_folder

VENDOR = web_folder() / "vendor"
TABLE = VENDOR / "VENDORED.md"


def rows() -> list[dict[str, str]]:
    """The table's rows as {column: cell}, the cells without their backquotes."""
    lines = [line.strip() for line in TABLE.read_text().splitlines() if line.startswith("|")]
    header = [cell.strip().lower() for cell in lines[0].strip("|").split("|")]
    assert re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[1]), lines[1]
    out = []
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        assert len(cells) == len(header), line
        out.append(dict(zip(header, cells, strict=True)))
    return out


def test_the_table_has_the_columns_the_check_reads():
    assert rows(), "VENDORED.md has no table rows"
    for row in rows():
        assert {"file", "version", "licence", "sha-256"} <= set(row)


def test_each_vendored_file_has_the_recorded_sha256():
    for row in rows():
        name = row["file"].strip("`")
        expected = row["sha-256"].strip("`")
        assert re.fullmatch(r"[0-9a-f]{64}", expected), row
        path = VENDOR / name
        assert path.is_file(), f"VENDORED.md names {name}, which is not in vendor/"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == expected, name


def test_no_file_in_vendor_is_missing_from_the_table():
    recorded = {TABLE.name}
    for row in rows():
        recorded.add(row["file"].strip("`"))
        recorded.update(re.findall(r"`([^`]+)`", row["licence"]))
    present = {p.relative_to(VENDOR).as_posix() for p in VENDOR.rglob("*") if p.is_file()}
    assert present - recorded == set(), "vendored files not in VENDORED.md's table"
    for licence in recorded - {TABLE.name} - {r["file"].strip("`") for r in rows()}:
        assert (VENDOR / licence).read_text().strip(), f"{licence} is empty"
