"""Bytes in, messages out; messages in, bytes out. No sockets here.

Every frame is one msgpack map with a string ``t``. :func:`decode` validates a
frame against :mod:`tilehall.protocol.schema` and raises :class:`ProtocolError` with a
distinct code for each way a frame can be wrong. :func:`encode` packs a message;
:func:`check` validates an outgoing one (tests use it on everything the server
sends).

A frame a client sends is read under the transport rules of PROTOCOL.md, which
make it a value a JSON Schema can describe: every map's keys are strings, each
once (``malformed_frame`` otherwise: a reader that kept the first of two keys and
one that kept the last would read two frames); a field is at most
:data:`~tilehall.protocol.schema.MAX_DEPTH` levels deep whether the server reads
it or not (``out_of_range``, with ``re``, however deep it goes: past msgpack's own
limit of about a thousand levels :func:`_read_deep` reads the frame); and an ext
value is a value of no protocol type (``wrong_type`` where a field is read,
ignored where none is).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import msgpack
from tilehall.protocol.errors import ErrorCode, ProtocolError
from tilehall.protocol.schema import (
    CLIENT_MESSAGES,
    MAX_DEPTH,
    REQUEST_ID_MAX,
    SERVER_MESSAGES,
    Field,
    Kind,
    MessageSpec,
)

__all__ = [
    "DEFAULT_MAX_SIZE",
    "Ext",
    "Packed",
    "check",
    "decode",
    "encode",
    "encode_with",
    "pack_array",
    "unpack",
]

DEFAULT_MAX_SIZE = 64 * 1024


def encode(msg: Mapping[str, Any]) -> bytes:
    """Pack one message. Strings go as msgpack str, bytes as bin."""
    data: bytes = msgpack.packb(msg, use_bin_type=True)
    return data


class Packed:
    """A value already packed as msgpack: :func:`encode_with` puts its bytes in as they are.

    Why: a reply made of many parts that are each kept packed (a ``rooms`` page
    of room summaries, each packed once when its room changes) is then joined,
    not packed again, which costs microseconds instead of milliseconds. The
    frame is byte for byte what :func:`encode` would give for the same values.
    A plain ``bytes`` value stays msgpack bin: only this wrapper means "as is".
    """

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


def _header(n: int, fix: int, wide: bytes) -> bytes:
    """The shortest msgpack header of an array or map of ``n`` items, as msgpack packs it:
    ``fix | n`` below 16, else ``wide`` (the 16-bit then the 32-bit type byte) and ``n``."""
    if n < 16:
        return bytes((fix | n,))
    if n < 0x10000:
        return wide[:1] + n.to_bytes(2, "big")
    return wide[1:] + n.to_bytes(4, "big")


def _array_header(n: int) -> bytes:
    """The msgpack header of an array of ``n`` items."""
    return _header(n, 0x90, b"\xdc\xdd")


def _map_header(n: int) -> bytes:
    """The msgpack header of a map of ``n`` pairs."""
    return _header(n, 0x80, b"\xde\xdf")


def pack_array(items: Sequence[bytes]) -> Packed:
    """An array whose items are each already packed msgpack values."""
    return Packed(_array_header(len(items)) + b"".join(items))


def encode_with(msg: Mapping[str, Any]) -> bytes:
    """Pack one message some of whose values are :class:`Packed`: those go in as they are."""
    parts = [_map_header(len(msg))]
    for key, value in msg.items():
        parts.append(msgpack.packb(key, use_bin_type=True))
        parts.append(
            value.data if isinstance(value, Packed) else msgpack.packb(value, use_bin_type=True)
        )
    return b"".join(parts)


def unpack(data: object, *, max_size: int = DEFAULT_MAX_SIZE) -> Any:
    """Unpack raw msgpack, bounding every container by the frame size.

    ``data`` is whatever the connection handed over (a text frame is a ``str``),
    typed ``object`` so that this check, not the compiled build's argument
    check, refuses what is not bytes: both builds answer ``malformed_frame``.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ProtocolError(ErrorCode.MALFORMED_FRAME, "frames must be binary msgpack, not text")
    try:
        return msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=False,
            max_str_len=max_size,
            max_bin_len=max_size,
            max_array_len=max_size,
            max_map_len=max_size,
            max_ext_len=0,
        )
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError, RecursionError) as exc:
        raise ProtocolError(
            ErrorCode.MALFORMED_FRAME,
            f"frame is not one valid msgpack value ({exc or type(exc).__name__})",
        ) from None


class Ext:
    """An ext value of a client frame (any type but -1, msgpack's timestamp).

    It is a value of no protocol type: in a field the server reads it is
    ``wrong_type``, as a bin is; in a field it does not read it is dropped with
    the field. msgpack's own ``ExtType`` cannot hold the negative type codes
    msgpack reserves, which a client may still send.
    """

    __slots__ = ("code", "data")

    def __init__(self, code: int, data: bytes) -> None:
        self.code = code
        self.data = data

    def __repr__(self) -> str:
        return f"Ext({self.code}, {self.data[:16]!r})"


class _BadKeys(Exception):
    """A map of a client frame with a key that is not a string, or a key twice."""


def _client_map(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
    for key, _ in pairs:
        if type(key) is not str:
            raise _BadKeys(f"a map has a key that is not a string ({_kind_name(key)})")
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _BadKeys("a map has a key twice")
    return out


# -- frames nested past msgpack's own limit ---------------------------------------------------

_TOO_DEEP: list[Any] = []
for _ in range(MAX_DEPTH):
    _TOO_DEEP = [_TOO_DEEP]
"""What a field nested past msgpack's reach is read as: a list one level past the bound,
so that the depth check refuses it as it refuses any field too deep."""


def _kinds() -> tuple[bytes, bytes]:
    """For each first byte of a msgpack value: what it begins (a ``_K_*``) and a number
    (a fixed payload's size, a length's width, a fix container's or string's size)."""
    kind = bytearray([_K_BAD] * 256)
    arg = bytearray(256)
    for b in range(0x80):
        kind[b] = _K_FIXED
    for b in range(0xE0, 0x100):
        kind[b] = _K_FIXED
    for b in range(0x80, 0x90):
        kind[b], arg[b] = _K_MAP, b & 0x0F
    for b in range(0x90, 0xA0):
        kind[b], arg[b] = _K_ARRAY, b & 0x0F
    for b in range(0xA0, 0xC0):
        kind[b], arg[b] = _K_STR, b & 0x1F
    for b, size in {0xC0: 0, 0xC2: 0, 0xC3: 0, 0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2,
                    0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}.items():  # fmt: skip
        kind[b], arg[b] = _K_FIXED, size
    for b, width in {0xD9: 1, 0xDA: 2, 0xDB: 4}.items():
        kind[b], arg[b] = _K_STR_N, width
    for b, width in {0xC4: 1, 0xC5: 2, 0xC6: 4}.items():
        kind[b], arg[b] = _K_BIN_N, width
    for b, width in {0xC7: 1, 0xC8: 2, 0xC9: 4}.items():
        kind[b], arg[b] = _K_EXT_N, width
    for b, size in {0xD4: 1, 0xD5: 2, 0xD6: 4, 0xD7: 8, 0xD8: 16}.items():
        kind[b], arg[b] = _K_FIXEXT, size
    for b, width in {0xDC: 2, 0xDD: 4}.items():
        kind[b], arg[b] = _K_ARRAY_N, width
    for b, width in {0xDE: 2, 0xDF: 4}.items():
        kind[b], arg[b] = _K_MAP_N, width
    return bytes(kind), bytes(arg)


_K_BAD, _K_FIXED, _K_MAP, _K_ARRAY, _K_STR, _K_STR_N, _K_BIN_N = 0, 1, 2, 3, 4, 5, 6
_K_EXT_N, _K_FIXEXT, _K_ARRAY_N, _K_MAP_N = 7, 8, 9, 10
_KIND, _ARG = _kinds()
_ONES = re.compile(b"\x91+")
"""A run of one-item lists, ``[[[...]]]``: the usual deep frame, skipped in one step."""


class _Malformed(Exception):
    """The bytes are no msgpack value a client may send."""


def _skip(buf: bytes, pos: int, max_size: int) -> tuple[int, int]:
    """Read one value of ``buf`` from ``pos`` without building it: (where it ends, its depth).

    Checks what msgpack and the transport rules would: every length within the
    data and ``max_size``, strings in UTF-8, map keys strings and each once,
    timestamps in one of their three forms. Iterative, for a value of any depth;
    a container is forgotten once its last item has begun, so runs of one-item
    containers cost nothing on the stack.

    Raises:
        _Malformed: what msgpack or the rules would refuse.
    """
    end = len(buf)
    kinds, args = _KIND, _ARG  # locals: this loop runs once per value of the frame
    counts: list[int] = []  # items still to come in each open container (keys count)
    depths: list[int] = []
    keys: list[set[str] | None] = []  # each open map's keys so far
    deepest = 0
    while True:
        if pos >= end:
            raise _Malformed("the frame ends inside a value")
        b = buf[pos]
        kind = kinds[b]
        arg = args[b]
        pos += 1
        is_key = False
        seen: set[str] | None = None
        depth = 0
        if counts:
            left = counts[-1]
            seen = keys[-1]
            depth = depths[-1]
            is_key = seen is not None and left % 2 == 0
            if left == 1:
                counts.pop()
                depths.pop()
                keys.pop()
            else:
                counts[-1] = left - 1
        if kind in (_K_ARRAY, _K_MAP, _K_ARRAY_N, _K_MAP_N):
            if is_key:
                raise _Malformed("a map has a key that is not a string")
            n = arg
            if kind in (_K_ARRAY_N, _K_MAP_N):
                n = _length(buf, pos, arg, max_size)
                pos += arg
            depth += 1
            if b == 0x91:
                run = _ONES.match(buf, pos - 1)
                assert run is not None
                depth += run.end() - pos
                pos = run.end()
            if depth > deepest:
                deepest = depth
            if n:
                is_map = kind in (_K_MAP, _K_MAP_N)
                counts.append(2 * n if is_map else n)
                depths.append(depth)
                keys.append(set() if is_map else None)
                continue
        elif kind in (_K_STR, _K_STR_N):
            n = arg
            if kind == _K_STR_N:
                n = _length(buf, pos, arg, max_size)
                pos += arg
            if pos + n > end:
                raise _Malformed("the frame ends inside a string")
            try:
                word = buf[pos : pos + n].decode()
            except UnicodeDecodeError:
                raise _Malformed("a string is not UTF-8") from None
            pos += n
            if is_key:
                assert seen is not None
                if word in seen:
                    raise _Malformed("a map has a key twice")
                seen.add(word)
        elif is_key:
            raise _Malformed("a map has a key that is not a string")
        elif kind == _K_FIXED:
            pos += arg
        elif kind == _K_BIN_N:
            pos += arg + _length(buf, pos, arg, max_size)
        elif kind in (_K_EXT_N, _K_FIXEXT):
            n = arg
            if kind == _K_EXT_N:
                n = _length(buf, pos, arg, max_size)
                pos += arg
            if pos + 1 + n > end:
                raise _Malformed("the frame ends inside an ext value")
            if buf[pos] == 0xFF:
                _timestamp(buf[pos + 1 : pos + 1 + n])
            pos += 1 + n
        else:
            raise _Malformed(f"byte 0x{b:02x} begins no msgpack value")
        if pos > end:
            raise _Malformed("the frame ends inside a value")
        if not counts:
            return pos, deepest


def _length(buf: bytes, pos: int, width: int, max_size: int) -> int:
    if pos + width > len(buf):
        raise _Malformed("the frame ends inside a length")
    n = int.from_bytes(buf[pos : pos + width], "big")
    if n > max_size:
        raise _Malformed(f"a length of {n} is over the limit of {max_size}")
    return n


def _timestamp(data: bytes) -> None:
    """Refuse what msgpack refuses as a timestamp: a length or nanoseconds out of its forms."""
    if len(data) == 8:
        nanoseconds = int.from_bytes(data[:4], "big") >> 2
    elif len(data) == 12:
        nanoseconds = int.from_bytes(data[:4], "big")
    elif len(data) == 4:
        nanoseconds = 0
    else:
        raise _Malformed(f"invalid timestamp data (length {len(data)})")
    if nanoseconds >= 10**9:
        raise _Malformed("a timestamp's nanoseconds exceed a second")


def _read_deep(buf: bytes, max_size: int) -> Any:
    """A frame msgpack cannot unpack for its depth, read as far as :func:`decode` needs.

    The whole frame is checked as msgpack would check it; then a map's fields are
    unpacked one by one, a field nested past the bound standing as
    :data:`_TOO_DEEP`. So a field of any depth, read or not, is answered as the
    depth bound says (``out_of_range``, with ``re``), not as a frame that cannot
    be read. What is not a map is returned as an empty list (``not_a_map``).
    """
    try:
        end, _ = _skip(buf, 0, max_size)
        if end != len(buf):
            raise _Malformed("bytes after the frame's value")
        first = buf[0]
        if not (0x80 <= first <= 0x8F or first in (0xDE, 0xDF)):
            return []
        width = _ARG[first] if _KIND[first] == _K_MAP_N else 0
        count = _length(buf, 1, width, max_size) if width else first & 0x0F
        pos = 1 + width
        out: dict[str, Any] = {}
        for _ in range(count):
            key_end, _ = _skip(buf, pos, max_size)
            key = msgpack.unpackb(buf[pos:key_end], raw=False)
            pos, depth = _skip(buf, key_end, max_size)
            if depth > MAX_DEPTH:
                out[key] = _TOO_DEEP
            else:
                out[key] = _unpack_client(buf[key_end:pos], max_size)
        return out
    except _Malformed as exc:
        raise ProtocolError(
            ErrorCode.MALFORMED_FRAME, f"frame is not one valid msgpack value ({exc})"
        ) from None


def _unpack_client(data: object, max_size: int) -> Any:
    """Unpack a client's frame under the transport rules (the module's docstring)."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ProtocolError(ErrorCode.MALFORMED_FRAME, "frames must be binary msgpack, not text")
    try:
        return msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=False,
            object_pairs_hook=_client_map,
            ext_hook=Ext,
            max_str_len=max_size,
            max_bin_len=max_size,
            max_array_len=max_size,
            max_map_len=max_size,
            max_ext_len=max_size,
        )
    except msgpack.StackError:
        return _read_deep(bytes(data), max_size)
    except _BadKeys as keys:  # a name of its own: mypyc types each handler's variable once
        raise ProtocolError(ErrorCode.MALFORMED_FRAME, f"{keys}: maps have string keys") from None
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError, RecursionError) as exc:
        raise ProtocolError(
            ErrorCode.MALFORMED_FRAME,
            f"frame is not one valid msgpack value ({exc or type(exc).__name__})",
        ) from None


def decode(
    data: object,
    *,
    specs: Mapping[str, MessageSpec] = CLIENT_MESSAGES,
    max_size: int = DEFAULT_MAX_SIZE,
) -> dict[str, Any]:
    """Decode and validate one frame.

    A frame of the client's messages (``specs`` left as it is: what the server
    reads) is read under the transport rules (the module's docstring); a frame
    of the server's, as a client reads it, is read as any msgpack map.

    Args:
        data: the frame's payload (anything: a text frame is refused as malformed).
        specs: which side's messages are acceptable (client ones by default).
        max_size: the bound on any string, list or map inside the frame.

    Returns:
        The message as a dict; unknown extra fields are dropped so that newer
        clients can talk to older servers.

    Raises:
        ProtocolError: with ``re`` set when the frame carried a usable ``id``.
    """
    client = specs is CLIENT_MESSAGES
    msg = _unpack_client(data, max_size) if client else unpack(data, max_size=max_size)
    if not isinstance(msg, dict):
        raise ProtocolError(ErrorCode.NOT_A_MAP, f"a frame must be a map, not {_kind_name(msg)}")
    re = msg.get("id")
    if isinstance(re, bool) or not isinstance(re, int) or not 0 <= re <= REQUEST_ID_MAX:
        re = None
    t = msg.get("t")
    if not isinstance(t, str):
        raise ProtocolError(ErrorCode.MISSING_TYPE, "a frame needs a string field 't'", re)
    spec = specs.get(t)
    if spec is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {t[:40]!r}", re)
    if client:
        for name, value in msg.items():
            if isinstance(value, dict | list) and _depth(value) > MAX_DEPTH:
                raise ProtocolError(
                    ErrorCode.OUT_OF_RANGE,
                    f"{t}.{str(name)[:40]} is nested deeper than {MAX_DEPTH} levels",
                    re,
                )
    return _validate(spec, msg, re, nested=not client)


def check(msg: Mapping[str, Any]) -> dict[str, Any]:
    """Validate an outgoing server message against its spec (tests and debugging)."""
    t = msg.get("t")
    spec = SERVER_MESSAGES.get(t) if isinstance(t, str) else None
    if spec is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown server message {t!r}")
    return _validate(spec, msg, None)


def _validate(
    spec: MessageSpec, msg: Mapping[str, Any], re: int | None, *, nested: bool = True
) -> dict[str, Any]:
    """The message's fields, checked; ``nested``: also the depth of those that nest (a
    client frame's every field was measured already)."""
    out: dict[str, Any] = {"t": spec.t}
    for f in spec.fields:
        if f.name not in msg:
            if f.required:
                raise ProtocolError(
                    ErrorCode.MISSING_FIELD, f"{spec.t!r} needs field {f.name!r}", re
                )
            continue
        value = msg[f.name]
        _check_field(spec, f, value, re, nested)
        out[f.name] = value
    if spec.one_of and sum(name in out for name in spec.one_of) != 1:
        names = " or ".join(repr(n) for n in spec.one_of)
        raise ProtocolError(ErrorCode.MISSING_FIELD, f"{spec.t!r} needs exactly one of {names}", re)
    return out


_PY_TYPES: dict[Kind, tuple[type, ...]] = {
    Kind.STR: (str,),
    Kind.INT: (int,),
    Kind.NUM: (int, float),
    Kind.BOOL: (bool,),
    Kind.MAP: (dict,),
    Kind.LIST: (list,),
}


_NUMBERS = (Kind.INT, Kind.NUM)
_SIZED = (Kind.STR, Kind.LIST, Kind.MAP)
_NESTED = (Kind.MAP, Kind.LIST, Kind.ANY)


def _check_field(spec: MessageSpec, f: Field, value: Any, re: int | None, nested: bool) -> None:
    # Runs for every field of every frame read: the messages are made only on refusal.
    kind = f.kind
    if value is None:
        if f.nullable:
            return
        raise ProtocolError(ErrorCode.WRONG_TYPE, f"{spec.t}.{f.name} may not be nil", re)
    if kind is not Kind.ANY and (
        not isinstance(value, _PY_TYPES[kind]) or (kind is not Kind.BOOL and value is True)
        or (kind is not Kind.BOOL and value is False)
    ):  # fmt: skip
        raise ProtocolError(
            ErrorCode.WRONG_TYPE,
            f"{spec.t}.{f.name} must be {kind.value}, not {_kind_name(value)}",
            re,
        )
    if kind in _NUMBERS:
        size = value
    elif kind in _SIZED:
        size = len(value)
    else:
        size = None
    if size is not None and (
        (f.lo is not None and size < f.lo) or (f.hi is not None and size > f.hi)
    ):
        raise ProtocolError(f.code, _out_of_bounds(spec, f, size), re)
    if f.choices and value not in f.choices:
        raise ProtocolError(
            f.code,
            f"{spec.t}.{f.name} is one of {', '.join(map(str, f.choices))},"
            f" not {str(value)[:40]!r}",
            re,
        )
    if nested and kind in _NESTED and _depth(value) > MAX_DEPTH:
        raise ProtocolError(
            ErrorCode.OUT_OF_RANGE,
            f"{spec.t}.{f.name} is nested deeper than {MAX_DEPTH} levels",
            re,
        )


_UNITS = {Kind.STR: "characters", Kind.LIST: "items", Kind.MAP: "fields"}


def _out_of_bounds(spec: MessageSpec, f: Field, size: int) -> str:
    """Which bound ``size`` breaks, in words (a password's refusal says which, as PROTOCOL.md
    promises)."""
    unit = _UNITS.get(f.kind)
    name = f"{spec.t}.{f.name}"
    if unit is None:
        bounds = f"{f.lo}..{f.hi}" if f.lo is not None and f.hi is not None else ""
        if f.hi is not None and size > f.hi:
            return f"{name} must be at most {f.hi}, not {size}" + (f" ({bounds})" if bounds else "")
        return f"{name} must be at least {f.lo}, not {size}" + (f" ({bounds})" if bounds else "")
    if f.hi is not None and size > f.hi:
        return f"{name} has at most {f.hi} {unit}, not {size}"
    return f"{name} has at least {f.lo} {unit}, not {size}"


def _depth(value: Any) -> int:
    """Nesting depth of maps and lists, computed without recursion.

    Runs on every ``act`` the server reads: level by level, only containers kept
    (map keys cannot be containers once unpacked: they must hash).
    """
    if not isinstance(value, dict | list):
        return 0
    level: list[Any] = [value]
    depth = 0
    while level:
        depth += 1
        if depth > MAX_DEPTH:
            return depth
        below: list[Any] = []
        for item in level:
            # A comprehension, not a loop of appends: a client's unread field may be a
            # list of thousands of scalars, and this runs on every field of its frame.
            below += [
                c
                for c in (item.values() if type(item) is dict else item)
                if type(c) is list or type(c) is dict
            ]
        level = below
    return depth


def _kind_name(value: Any) -> str:
    names = {
        dict: "a map",
        list: "a list",
        str: "a string",
        bytes: "binary",
        bool: "a bool",
        int: "an integer",
        float: "a float",
        type(None): "nil",
        Ext: "an ext value",
        msgpack.Timestamp: "a timestamp",
    }
    return names.get(type(value), type(value).__name__)
