"""Bytes in, messages out; messages in, bytes out. No sockets here.

Every frame is one msgpack map with a string ``t``. :func:`decode` validates a
frame against :mod:`tilehall.protocol.schema` and raises :class:`ProtocolError` with a
distinct code for each way a frame can be wrong. :func:`encode` packs a message;
:func:`check` validates an outgoing one (tests use it on everything the server
sends).
"""

from __future__ import annotations

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


def decode(
    data: object,
    *,
    specs: Mapping[str, MessageSpec] = CLIENT_MESSAGES,
    max_size: int = DEFAULT_MAX_SIZE,
) -> dict[str, Any]:
    """Decode and validate one frame.

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
    msg = unpack(data, max_size=max_size)
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
    return _validate(spec, msg, re)


def check(msg: Mapping[str, Any]) -> dict[str, Any]:
    """Validate an outgoing server message against its spec (tests and debugging)."""
    t = msg.get("t")
    spec = SERVER_MESSAGES.get(t) if isinstance(t, str) else None
    if spec is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown server message {t!r}")
    return _validate(spec, msg, None)


def _validate(spec: MessageSpec, msg: Mapping[str, Any], re: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {"t": spec.t}
    for f in spec.fields:
        if f.name not in msg:
            if f.required:
                raise ProtocolError(
                    ErrorCode.MISSING_FIELD, f"{spec.t!r} needs field {f.name!r}", re
                )
            continue
        value = msg[f.name]
        _check_field(spec, f, value, re)
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


def _check_field(spec: MessageSpec, f: Field, value: Any, re: int | None) -> None:
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
        what = "" if kind in _NUMBERS else "length of "
        raise ProtocolError(
            ErrorCode.OUT_OF_RANGE,
            f"{what}{spec.t}.{f.name} must be within {f.lo}..{f.hi}, not {size}",
            re,
        )
    if kind in _NESTED and _depth(value) > MAX_DEPTH:
        raise ProtocolError(
            ErrorCode.OUT_OF_RANGE,
            f"{spec.t}.{f.name} is nested deeper than {MAX_DEPTH} levels",
            re,
        )


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
            for child in item.values() if isinstance(item, dict) else item:
                if isinstance(child, dict | list):
                    below.append(child)
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
    }
    return names.get(type(value), type(value).__name__)
