"""Error codes are wire strings: pinned here letter by letter, and each one documented."""

from __future__ import annotations

from pathlib import Path

from tilehall.protocol import GameCode, ProtocolError
from tilehall.server.games.base import IllegalMove

PAGES = Path(__file__).resolve().parents[2] / "protocol" / "games"

# The strings clients switch on. Tests elsewhere compare against the members, so this
# table is what catches a member whose value changed.
GAME_CODES = [
    "unknown_action",
    "missing_field",
    "bad_field",
    "bad_cell",
    "bad_seat",
    "game_over",
    "not_your_turn",
    "paused",
    "not_paused",
    "not_pausable",
    "nothing_to_undo",
    "occupied",
    "no_match",
    "no_neighbour",
    "empty_source",
    "unreachable",
    "same_cell",
    "empty_cell",
    "no_path",
    "time_up",
    "no_helps",
    "not_in_rack",
    "no_equation",
    "no_draw",
    "bag_empty",
    "already_placed",
    "bag_too_small",
]


def test_game_codes_keep_their_wire_strings():
    assert [code.value for code in GameCode] == GAME_CODES
    assert all(code.name.lower() == code.value for code in GameCode)


def test_every_game_code_is_documented():
    """In a game page's table, or (bad_seat, shared with the lobby) in PROTOCOL.md's."""
    pages = "".join(
        page.read_text() for page in (*PAGES.glob("*.md"), PAGES.parent / "PROTOCOL.md")
    )
    for code in GameCode:
        assert f"| `{code.value}`" in pages, code


def test_refusals_carry_the_plain_string():
    """What goes on the wire is the value, whatever enum the engine raised with."""
    for err in (IllegalMove(GameCode.NO_MATCH, "m"), ProtocolError(GameCode.BAD_SEAT, "m")):
        assert type(err.code) is str and err.code in GAME_CODES
