"""The Tilehall wire protocol: msgpack maps over binary WebSocket frames.

Server and clients import this package; neither builds or reads a frame by
hand. See ``protocol/PROTOCOL.md`` for the reference.
"""

from tilehall.protocol.codec import (
    DEFAULT_MAX_SIZE,
    Packed,
    check,
    decode,
    encode,
    encode_with,
    pack_array,
    unpack,
)
from tilehall.protocol.errors import CloseCode, ErrorCode, GameCode, ProtocolError
from tilehall.protocol.schema import (
    CLIENT_MESSAGES,
    MAX_DEPTH,
    NAME_MAX,
    SERVER_MESSAGES,
    VERSION,
    Field,
    Kind,
    MessageSpec,
)
from tilehall.protocol.states import Status

__all__ = [
    "CLIENT_MESSAGES",
    "DEFAULT_MAX_SIZE",
    "MAX_DEPTH",
    "NAME_MAX",
    "SERVER_MESSAGES",
    "VERSION",
    "CloseCode",
    "ErrorCode",
    "Field",
    "GameCode",
    "Kind",
    "MessageSpec",
    "Packed",
    "ProtocolError",
    "Status",
    "check",
    "decode",
    "encode",
    "encode_with",
    "pack_array",
    "unpack",
]
