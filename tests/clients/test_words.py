"""The clients' words: every event of every game's page, every error code, squares as boards
show them, and the quick-game form (clients/words.py)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from tilehall.clients.words import (
    ERRORS,
    QUIT_VOTE_ENDS,
    QUIT_VOTE_UNSURE,
    WORDS,
    Said,
    Tone,
    Words,
    changed_options,
    error_text,
    option_label,
    paused_why,
    quick_fields,
    quick_note,
    quick_request,
    quit_vote_question,
    refusal_text,
    square,
    stone_name,
    tile_label,
    tile_name,
)
from tilehall.server.games import find_game
from tilehall.server.games.errors import GameError

PROTOCOL = Path(__file__).resolve().parents[2] / "protocol"
GAMES = sorted(p.stem for p in (PROTOCOL / "games").glob("*.md"))


def examples(text: str) -> list[dict]:
    """Every event written out in ``text``: each ``{"e": ...}`` object, as JSON reads it
    (an elided list, ``[3, 5, ...]``, read without its dots)."""
    found = []
    for start in (m.start() for m in re.finditer(r'\{"e":', text)):
        depth = 0
        for end in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                break
        body = re.sub(r",\s*\.\.\.", "", text[start : end + 1])
        found.append(json.loads(body))
    return found


def page_events(game: str) -> dict[str, list[dict]]:
    """The events ``game``'s page lists (and the ``started`` every game sends), by type."""
    out: dict[str, list[dict]] = {"started": [{"e": "started"}]}
    for ev in examples((PROTOCOL / "games" / f"{game}.md").read_text()):
        out.setdefault(ev["e"], []).append(ev)
    return out


@pytest.mark.parametrize("game", GAMES)
def test_every_event_of_every_games_page_has_a_sentence(game):
    events = page_events(game)
    assert len(events) >= 5, events  # the page was read
    words = Words(game=game, name=lambda seat: f"P{seat}", seat=0, seats=2)
    for kind, evs in events.items():
        for ev in evs:
            said = words.event(ev)
            assert isinstance(said, Said) and said.text.strip(), (game, ev)
            # a sentence of its own, not the event's code read out
            assert said.text != kind.replace("_", " "), (game, kind)
            assert not re.search(r"\[-?\d+, -?\d+\]", said.text), (game, said)  # squares named
            assert not re.search(r"\btiles? \d", said.text), (game, said)  # tiles as they look


def test_the_pages_example_events_name_their_squares_the_boards_way():
    w = Words(game="lines")
    moved = {"e": "moved", "from": [7, 0], "to": [5, 1], "path": [], "colour": 1}
    assert w.event(moved) == Said("The red chip moved from a8 to b6")
    ishido = Words(game="ishido").event(page_events("ishido")["help"][0])
    assert ishido is not None and ishido.text.startswith("Best square: h5 ")


def test_mathable_sentences_say_who_and_what_the_reader_needs():
    w = Words(game="mathable", name=lambda seat: ["Ada", "Bob"][seat], seat=0, seats=2)
    placed = page_events("mathable")["placed"][0]
    said = w.event(placed)
    assert said is not None
    assert said.text == "You placed 21 on e8 (21=7\u00d73): +21, and an extra draw"
    assert w.event({**placed, "seat": 1}).text.startswith("Bob placed 21 on e8 ")  # type: ignore[union-attr]
    assert w.event({"e": "turn", "seat": 0}) == Said("Your turn", Tone.GOOD)
    assert w.event({"e": "turn", "seat": 1}) == Said("Bob to move")
    refill = w.event({"e": "drew", "seat": 1, "count": 3, "reason": "refill"})
    assert refill is not None and refill.minor  # housekeeping: a one-line log skips it
    assert [s.text for s in w.events([{"e": "hinted", "seat": 0}, {"e": "hinted", "seat": 1}])] == [
        "Bob asked for a hint"
    ]


def test_pause_reasons_for_a_room_and_its_reader():
    assert paused_why("away", seats=1, player=True) == "the player is away"
    assert paused_why("away", seats=3, player=False) == "every player is away"
    assert paused_why("player", seats=1, player=True) == "you paused it"
    assert paused_why("player", seats=1, player=False) == "its player paused it"
    assert "spectator" in paused_why("unwatched", seats=2, player=False)
    said = Words(game="matchit", seat=None).event({"e": "paused", "why": "player"})
    assert said == Said("The clock stops: its player paused it", Tone.NOTE)


def error_codes() -> list[str]:
    text = (PROTOCOL / "PROTOCOL.md").read_text()
    section = text.split("## Error codes", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", section, re.M)


def test_every_error_code_of_the_protocol_has_words():
    codes = error_codes()
    assert len(codes) > 35 and "stale" in codes and "not_pausable" in codes
    missing = [c for c in codes if c not in ERRORS]
    assert missing == []
    for code in codes:
        text = error_text(code, "")
        assert text and "_" not in text, code  # words, not the code


def refusal(game: str, action: dict, seats: int = 1) -> GameError:
    """What a real engine says to ``action`` on a fresh board (seed 5)."""
    engine = find_game(game)(seats=seats, rng=random.Random(5), options={}, now=0.0)
    with pytest.raises(GameError) as caught:
        engine.act(0, action, 1.0)
    return caught.value


def worded(err: GameError, game: str) -> str:
    """The refusal as a client words it from the error frame's fields."""
    return error_text(err.code, err.message, game=game, cells=err.cells, tiles=err.tiles)


def test_refusals_name_squares_stones_and_tiles_as_the_board_shows_them():
    occupied = refusal("ishido", {"do": "place", "at": [3, 5]})
    assert occupied.code == "occupied" and "[3, 5]" in str(occupied)
    assert occupied.cells == [[3, 5]] and len(occupied.tiles) == 1
    stone = stone_name(occupied.tiles[0])
    assert worded(occupied, "ishido") == f"square f4 already holds the {stone}"
    # an older server sends only its message: its squares and stones are named all the same
    assert error_text(occupied.code, str(occupied), game="ishido") == (
        f"square f4 already holds the {stone}"
    )

    off = refusal("ishido", {"do": "place", "at": [9, 2]})
    said = error_text(off.code, str(off), game="ishido")
    assert said == "'at' c10 is off the 8x12 board"

    differ = refusal("matchit", {"do": "pair", "a": [0, 0], "b": [0, 1]})
    assert differ.cells == [[0, 0], [0, 1]]
    names = [tile_name("matchit", t) for t in differ.tiles]
    assert (
        worded(differ, "matchit") == f"the {names[0]} on a1 and the {names[1]} on b1 do not match"
    )
    old = error_text(differ.code, str(differ), game="matchit")
    assert old == f"tiles {names[0]} at a1 and {names[1]} at b1 differ"

    made = refusal("mathable", {"do": "place", "tile": 90, "at": [5, 8]}, seats=2)
    assert worded(made, "mathable").startswith("the 90 on i6 makes no equation")
    assert error_text(made.code, str(made), game="mathable").startswith("tile 90 at i6 is not made")
    rack = refusal("mathable", {"do": "place", "tile": 1, "at": [6, 6]}, seats=2)
    assert worded(rack, "mathable") == "not on your rack: 1"
    # a rack is a list of tiles, never squares, even of two
    assert error_text(rack.code, str(rack), game="mathable") == str(rack)
    assert error_text("not_in_rack", "tile 1 is not on your rack [5, 7]") == (
        "tile 1 is not on your rack [5, 7]"
    )


def test_tiles_and_stones_are_named_as_they_look():
    assert tile_name("matchit", 5) == "6 of dots" and tile_name("matchit", 23) == "6 of characters"
    assert tile_name("matchit", 30) == "east wind" and tile_name("matchit", 41) == "winter season"
    assert tile_name("linksame", 5) == "F tile" and tile_name("mathable", 6) == "6"
    assert stone_name([2, 2]) == "yellow square" and tile_name("ishido", [0, 4]) == "red star"


def test_every_refusal_template_fills_from_fields_a_game_would_send():
    for key, template in WORDS["refusals"].items():
        game = key.split(".")[0] if "." in key else "matchit"
        code = key.split(".")[-1]
        for n in range(1, 5):
            tiles = [[i % 6, (i + 1) % 6] for i in range(n + 1)] if game == "ishido" else [3] * 2
            text = refusal_text(code, game, [[1, 2], [3, 4]], tiles)
            assert text is not None, key
            assert "{" not in text and not re.search(r"\[-?\d+, -?\d+\]", text), (key, text)
            if not isinstance(template, list):
                break
    # a frame without what the template names is worded as before (the message)
    assert refusal_text("no_match", "matchit", [[1, 2]], []) is None


def test_request_refusals_are_said_plainly_and_details_kept_where_they_matter():
    assert error_text("stale", "act.seq 4 is not the room's seq 5") == (
        "the board changed before your move arrived: look again"
    )
    assert error_text("bad_option", "'turn_seconds' must be 0..600, not 900") == (
        "'turn_seconds' must be 0..600, not 900"
    )
    assert error_text("bad_option", "") == "an option is wrong"


def test_squares_are_column_letter_and_row_from_one():
    assert square([5, 8]) == "i6" and square((0, 0)) == "a1" and square(None) == "-"


MATHABLE = {"name": "mathable", "min_seats": 2, "max_seats": 4, "bots": ["easy", "normal", "hard"]}
LINES = {"name": "lines", "min_seats": 1, "max_seats": 1}


def test_the_quick_game_form_asks_seats_level_and_wait_and_sends_them_all():
    fields = quick_fields(MATHABLE)
    assert [f.key for f in fields] == ["seats", "level", "bots_after"]
    assert fields[0].choices == (2, 3, 4) and fields[1].default == "normal"
    assert quick_request(MATHABLE) == {
        "t": "match",
        "game": "mathable",
        "seats": 2,
        "level": "normal",
        "bots_after": 30,
    }
    chosen = quick_request(MATHABLE, seats=3, level="hard", bots_after=10)
    assert chosen["seats"] == 3 and chosen["level"] == "hard" and chosen["bots_after"] == 10
    assert quick_request(MATHABLE, level="godlike")["level"] == "normal"  # not a choice
    assert quick_fields(LINES) == [] and quick_request(LINES) == {"t": "match", "game": "lines"}
    assert "COMP" in quick_note(MATHABLE) and "at once" in quick_note(LINES)


def test_linksame_labels_have_no_look_alikes():
    """Every kind of the largest board has its own one-character label, and no two of
    them are a pair that most terminal fonts draw alike (issue 30 item 4, point 3)."""
    from tilehall.server.games.linksame import SIZES

    kinds = max(rows * cols // 4 for rows, cols in SIZES.values())
    labels = [tile_label("linksame", k) for k in range(kinds)]
    assert all(len(label) == 1 for label in labels) and len(set(labels)) == kinds
    for alike in ("O0", "I1", "Il", "l1"):
        assert sum(ch in labels for ch in alike) <= 1, (alike, labels)


def test_a_quit_vote_that_may_end_the_game_asks_and_says_why():
    assert quit_vote_question(False) is None  # one vote among people: sent at once
    assert quit_vote_question(True) == QUIT_VOTE_ENDS
    assert quit_vote_question(None) == QUIT_VOTE_UNSURE  # the COMP seats not known yet


def test_options_are_named_by_their_labels_and_an_older_servers_by_their_names():
    mathable = find_game("mathable").describe()
    standin = next(o for o in mathable["options"] if o["name"] == "standin_after")
    assert option_label(standin) == "Stand-in after (s)"
    # a server that predates labels sends none: the name in words, as the web client words it
    old = {k: v for k, v in standin.items() if k != "label"}
    assert option_label(old) == "Standin after"
    assert option_label({**old, "label": ""}) == "Standin after"
    options = {"racks": "hidden", "turn_seconds": 0, "standin_after": 120}  # turn_seconds: default
    assert changed_options(mathable, options) == "Opponents' racks hidden, Stand-in after (s) 120"
    older = {
        **mathable,
        "options": [{k: v for k, v in o.items() if k != "label"} for o in mathable["options"]],
    }
    assert changed_options(older, options) == "Racks hidden, Standin after 120"
    lines = find_game("lines").describe()
    assert (
        changed_options(lines, {"preview": True, "width": 9, "colour": 3}) == "Show next colours on"
    )
    assert changed_options(lines, None) == changed_options(lines, {}) == ""


@pytest.mark.parametrize("game", ["ishido", "lines", "linksame", "matchit", "mathable"])
def test_every_event_kind_of_real_games_has_shared_words(game):
    """Real games (tests/clients/played.py) send every event their engine declares, besides
    two Match-It kinds a deal seldom reaches; each has an entry of words.json's ``games`` or
    of the room's ``events``, and reads as a sentence with its squares named."""
    from tests.clients.played import played

    cls = find_game(game)
    events = played(game)
    kinds = {e["e"] for e in events}
    room = {"started"} | ({"undone"} if "undo" in cls.actions else set())
    room |= {"paused", "resumed"} if cls.pausable else set()
    unreached = {"matchit": {"no_pairs", "stuck"}}.get(game, set())
    assert kinds == (set(cls.event_fields) | room) - unreached
    assert set(cls.event_fields) <= set(WORDS["games"][game]) | set(WORDS["events"])
    for seat in (0, None):
        w = Words(game=game, name=lambda s: ["Ada", "Bob"][s], seat=seat, seats=2)
        for ev in events:
            said = w.event(ev)
            assert said is not None, ev
            assert said.text[:1].isupper() or said.text[:1].isdigit(), (ev, said.text)
            assert said.text != ev["e"].replace("_", " ")
            assert not re.search(r"\[-?\d+, -?\d+\]|\{|\}", said.text), (ev, said.text)
