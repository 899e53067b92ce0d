"""Encoder and decoder, driven by one table of (message, bytes) pairs (as h11 does)."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tilehall.protocol import (
    CLIENT_MESSAGES,
    MAX_DEPTH,
    SERVER_MESSAGES,
    ErrorCode,
    Packed,
    ProtocolError,
    check,
    decode,
    encode,
    encode_with,
    pack_array,
)

ROUND_TRIPS = [
    ({"t": "ping"}, b"\x81\xa1t\xa4ping"),
    ({"t": "hello", "v": 1, "name": "ada"}, b"\x83\xa1t\xa5hello\xa1v\x01\xa4name\xa3ada"),
    (
        {"t": "act", "room": "r1", "action": {"do": "place", "at": [3, 4]}, "id": 9},
        b"\x84\xa1t\xa3act\xa4room\xa2r1\xa6action\x82\xa2do\xa5place\xa2at\x92\x03\x04\xa2id\x09",
    ),
]


@pytest.mark.parametrize(("msg", "data"), ROUND_TRIPS)
def test_encode_gives_the_table_bytes(msg, data):
    assert encode(msg) == data


@pytest.mark.parametrize(("msg", "data"), ROUND_TRIPS)
def test_decode_gives_the_table_message(msg, data):
    assert decode(data) == msg


BAD_FRAMES = [
    (b"\xc1", ErrorCode.MALFORMED_FRAME),
    (b"\x92\x01", ErrorCode.MALFORMED_FRAME),  # truncated
    (encode({"t": "ping"}) + b"\x00", ErrorCode.MALFORMED_FRAME),  # trailing bytes
    ("a text frame", ErrorCode.MALFORMED_FRAME),
    (encode([1, 2]), ErrorCode.NOT_A_MAP),
    (encode({"x": 1}), ErrorCode.MISSING_TYPE),
    (encode({"t": 5}), ErrorCode.MISSING_TYPE),
    (encode({"t": "fly"}), ErrorCode.UNKNOWN_TYPE),
    (encode({"t": "welcome"}), ErrorCode.UNKNOWN_TYPE),  # a server message from a client
    (encode({"t": "hello", "name": "a"}), ErrorCode.MISSING_FIELD),
    (encode({"t": "hello", "v": 1}), ErrorCode.MISSING_FIELD),  # neither name nor token
    (encode({"t": "hello", "v": 1, "name": "a", "token": "b"}), ErrorCode.MISSING_FIELD),
    (encode({"t": "hello", "v": "1", "name": "a"}), ErrorCode.WRONG_TYPE),
    (encode({"t": "hello", "v": True, "name": "a"}), ErrorCode.WRONG_TYPE),
    (encode({"t": "hello", "v": 1, "name": None}), ErrorCode.WRONG_TYPE),
    (encode({"t": "hello", "v": -1, "name": "a"}), ErrorCode.UNSUPPORTED_VERSION),
    (encode({"t": "hello", "v": 2, "name": "a"}), ErrorCode.UNSUPPORTED_VERSION),
    (encode({"t": "hello", "v": 1, "name": "a" * 25}), ErrorCode.BAD_NAME),
    (encode({"t": "hello", "v": 1, "name": ""}), ErrorCode.BAD_NAME),
    (encode({"t": "hello", "v": 1, "name": "a", "password": "x" * 9}), ErrorCode.BAD_PASSWORD),
    (encode({"t": "set_password", "password": "x" * 257}), ErrorCode.BAD_PASSWORD),
    (encode({"t": "create", "game": "mathable", "seats": [None] * 9}), ErrorCode.BAD_SEATS),
    (encode({"t": "create", "game": "mathable", "seats": []}), ErrorCode.BAD_SEATS),
    (encode({"t": "match", "game": "mathable", "seats": 9}), ErrorCode.BAD_SEATS),
    (
        encode({"t": "create", "game": "ishido", "options": {f"o{i}": 1 for i in range(33)}}),
        ErrorCode.BAD_OPTION,
    ),
    (encode({"t": "rooms", "status": "bogus"}), ErrorCode.OUT_OF_RANGE),
    (encode({"t": "replay", "room": "r1", "seq": 0}), ErrorCode.OUT_OF_RANGE),
    (encode({"t": "hello", "v": 1, "token": "x" * 129}), ErrorCode.OUT_OF_RANGE),
    (encode({"t": "chat", "room": "r", "text": ""}), ErrorCode.OUT_OF_RANGE),
    (encode({"t": "act", "room": "r", "action": {}}), ErrorCode.OUT_OF_RANGE),
    (encode({"t": "ping", "id": 2**40}), ErrorCode.OUT_OF_RANGE),
]


@pytest.mark.parametrize(("data", "code"), BAD_FRAMES)
def test_each_bad_frame_has_its_code(data, code):
    with pytest.raises(ProtocolError) as info:
        decode(data)
    assert info.value.code == code
    assert info.value.message


def test_error_carries_the_request_id_when_usable():
    with pytest.raises(ProtocolError) as info:
        decode(encode({"t": "fly", "id": 12}))
    assert info.value.re == 12
    assert info.value.to_message() == {
        "t": "error",
        "code": "unknown_type",
        "message": info.value.message,
        "re": 12,
    }


def test_deep_nesting_is_refused():
    deep: object = 1
    for _ in range(MAX_DEPTH + 1):
        deep = [deep]
    with pytest.raises(ProtocolError) as info:
        decode(encode({"t": "act", "room": "r", "action": {"do": deep}}))
    assert info.value.code == ErrorCode.OUT_OF_RANGE


def test_pathological_nesting_does_not_crash():
    with pytest.raises(ProtocolError) as info:
        decode(b"\x91" * 200_000)
    assert info.value.code == ErrorCode.MALFORMED_FRAME  # no value at the bottom: cut short
    with pytest.raises(ProtocolError) as info:
        decode(b"\x91" * 200_000 + b"\x00")
    assert info.value.code == ErrorCode.NOT_A_MAP


# -- the transport rules of a client's frame (issue 42) --------------------------------------


def _map(*pairs: bytes) -> bytes:
    """A msgpack map of already packed keys and values (so a key may be anything)."""
    assert len(pairs) % 2 == 0 and len(pairs) < 32
    return bytes([0x80 | len(pairs) // 2]) + b"".join(pairs)


def _p(value: object) -> bytes:
    return msgpack.packb(value)


def _nested(levels: int) -> bytes:
    """A value nested ``levels`` deep, as bytes (msgpack's packer stops near a thousand)."""
    return b"\x91" * (levels - 1) + b"\x90"


@pytest.mark.parametrize(
    ("frame", "why"),
    [
        (_map(_p(1), _p(1), _p("t"), _p("ping")), "an integer key"),
        (_map(_p(b"t"), _p("ping")), "a bin key"),
        (_map(_p("t"), _p("ping"), _p(None), _p(1)), "a nil key"),
        (_map(_p("t"), _p("ping"), _p("t"), _p("ping")), "a key twice"),
        (_map(_p("t"), _p("ping"), _p("x"), _map(_p(2), _p(3))), "an integer key, nested"),
        (_map(_p("t"), _p("ping"), _p("x"), _map(_p("a"), _p(1), _p("a"), _p(2))), "twice, nested"),
        (_map(_p("t"), _p("ping"), _p("x"), b"\xc7\x05\xff12345"), "a timestamp of 5 bytes"),
    ],
)
def test_maps_have_string_keys_each_once(frame, why):
    """A JSON Schema cannot describe either, and two readers could read two frames."""
    with pytest.raises(ProtocolError) as info:
        decode(frame)
    assert info.value.code == ErrorCode.MALFORMED_FRAME, why
    assert info.value.re is None


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 100, 1023, 1024, 5000, 60_000])
def test_a_field_too_deep_is_out_of_range_with_re_whether_read_or_not(levels):
    """One bound for every field, however deep: ``out_of_range`` carrying ``re``, the ``id``
    coming after the deep field (issue 42: from 1,024 levels it was ``malformed_frame``)."""
    for field in (b"later", b"action"):
        frame = _map(
            _p("t"), _p("act"), _p("room"), _p("r1"), _p(field.decode()), _nested(levels),
            _p("id"), _p(41),
        )  # fmt: skip
        with pytest.raises(ProtocolError) as info:
            decode(frame, max_size=2**17)
        assert (info.value.code, info.value.re) == (ErrorCode.OUT_OF_RANGE, 41), field
        assert f"act.{field.decode()} is nested deeper than {MAX_DEPTH}" in info.value.message


def test_a_field_at_the_bound_is_taken_read_or_not():
    frame = _map(_p("t"), _p("ping"), _p("later"), _nested(MAX_DEPTH), _p("id"), _p(3))
    assert decode(frame) == {"t": "ping", "id": 3}


@pytest.mark.parametrize(
    ("tail", "code"),
    [
        (b"\x00", ErrorCode.MALFORMED_FRAME),  # a byte after the map
        (b"", ErrorCode.OUT_OF_RANGE),
    ],
)
def test_a_frame_too_deep_for_msgpack_is_still_checked_whole(tail, code):
    frame = _map(_p("t"), _p("ping"), _p("x"), _nested(3000), _p("id"), _p(5)) + tail
    with pytest.raises(ProtocolError) as info:
        decode(frame)
    assert info.value.code == code
    for broken in (
        _map(_p("t"), _p("ping"), _p("x"), b"\x91" * 3000 + b"\x81\x01\x02"),  # an int key
        _map(_p("t"), _p("ping"), _p("x"), b"\x91" * 3000 + b"\xa2\xff\xfe"),  # not UTF-8
        _map(_p("t"), _p("ping"), _p("x"), b"\x91" * 3000 + b"\xc1"),  # no msgpack value
        _map(_p("t"), _p("ping"), _p("x"), b"\x92" * 3000 + b"\x00"),  # cut short
    ):
        with pytest.raises(ProtocolError) as info:
            decode(broken)
        assert info.value.code == ErrorCode.MALFORMED_FRAME, broken[-8:]


@pytest.mark.parametrize(
    "ext",
    [
        b"\xd4\x05\x00",
        b"\xd4\xfb\x00",
        b"\xc7\x00\x03",
        b"\xd6\xff\x00\x00\x00\x01",
        b"\xc8\x01\x00\x07" + b"x" * 256,
    ],
)
def test_an_ext_value_is_ignored_where_no_field_is_read_and_wrong_type_where_one_is(ext):
    """Any ext type (a negative one too, and msgpack's timestamp), as a bin would be."""
    ignored = _map(_p("t"), _p("ping"), _p("later"), ext, _p("id"), _p(4))
    assert decode(ignored) == {"t": "ping", "id": 4}
    nested = _map(_p("t"), _p("ping"), _p("later"), b"\x91" + ext)
    assert decode(nested) == {"t": "ping"}
    read = _map(_p("t"), _p("join"), _p("room"), ext, _p("id"), _p(4))
    with pytest.raises(ProtocolError) as info:
        decode(read)
    assert (info.value.code, info.value.re) == (ErrorCode.WRONG_TYPE, 4)


def test_a_server_frame_read_by_a_client_keeps_the_old_reading():
    """Only what the server reads follows the transport rules: a patch may carry integer keys
    (PROTOCOL.md, Compact updates), and a client reads them."""
    frame = encode({"t": "pong", "x": {1: 2}})
    assert decode(frame, specs=SERVER_MESSAGES) == {"t": "pong"}


def test_strings_longer_than_the_frame_limit_are_refused_before_allocation():
    # a header claiming a 1 GiB string, with no body behind it
    with pytest.raises(ProtocolError) as info:
        decode(b"\x81\xa1t\xdb\x40\x00\x00\x00", max_size=1024)
    assert info.value.code == ErrorCode.MALFORMED_FRAME


def test_unknown_extra_fields_are_dropped_for_forward_compatibility():
    assert decode(encode({"t": "ping", "future": 1})) == {"t": "ping"}


def test_server_messages_are_checked():
    check({"t": "error", "code": "x", "message": "y", "re": 1})
    with pytest.raises(ProtocolError):
        check({"t": "error", "code": "x"})


def test_every_message_has_a_doc():
    for spec in [*CLIENT_MESSAGES.values(), *SERVER_MESSAGES.values()]:
        assert spec.doc, spec.t


@settings(max_examples=300)
@given(st.binary(max_size=200))
def test_decoder_never_raises_anything_but_protocol_error(data):
    try:
        decode(data)
    except ProtocolError as exc:
        assert exc.code in {c.value for c in ErrorCode}


scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=20)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@pytest.mark.slow
@settings(max_examples=300)
@given(
    st.sampled_from(sorted(CLIENT_MESSAGES)),
    st.dictionaries(
        st.sampled_from(
            [
                "v",
                "name",
                "token",
                "room",
                "game",
                "action",
                "seat",
                "seq",
                "text",
                "id",
                "code",
                "options",
                "seats",
                "private",
                "table",
            ]
        ),
        values,
        max_size=6,
    ),
)
def test_type_confused_messages_get_a_protocol_error_or_pass_validation(t, fields):
    data = msgpack.packb({"t": t, **fields})
    try:
        msg = decode(data)
    except ProtocolError as exc:
        assert exc.code in {c.value for c in ErrorCode}
    else:
        spec = CLIENT_MESSAGES[t]
        for f in spec.fields:
            if f.required:
                assert f.name in msg


@pytest.mark.slow
@settings(max_examples=200)
@given(
    st.lists(values, max_size=70_000 // 1000 + 20),
    st.dictionaries(st.text(max_size=8), values, max_size=20),
    st.integers(min_value=0, max_value=70_000),
)
def test_a_message_joined_from_packed_parts_is_byte_for_byte_the_encoded_one(items, head, pad):
    """What a ``rooms`` page is made by: the same bytes as packing the whole at once."""
    items = items + [pad] * (pad % 3) * 7  # past 15 items: the two-byte array header
    msg = {**head, "rooms": items}
    joined = {**head, "rooms": pack_array([msgpack.packb(v) for v in items])}
    assert encode_with(joined) == encode(msg)
    assert encode_with(msg) == encode(msg)  # no Packed value: as encode
    assert encode_with({"b": b"\x01", "p": Packed(b"\xc0")}) == encode({"b": b"\x01", "p": None})


@pytest.mark.parametrize("n", [0, 15, 16, 65_535, 65_536])
def test_array_headers_are_msgpacks_own(n):
    assert pack_array([b"\xc0"] * n).data == msgpack.packb([None] * n)
