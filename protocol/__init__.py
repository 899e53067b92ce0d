"""The Tilehall wire protocol: msgpack maps over binary WebSocket frames.

Server and clients import this package; neither builds or reads a frame by
hand. See ``protocol/PROTOCOL.md`` for the reference.
"""

from protocol.codec import DEFAULT_MAX_SIZE, check, decode, encode, unpack
from protocol.errors import ErrorCode, ProtocolError
from protocol.schema import (
    CLIENT_MESSAGES,
    MAX_DEPTH,
    NAME_MAX,
    SERVER_MESSAGES,
    VERSION,
    Field,
    Kind,
    MessageSpec,
)

__all__ = [
    "CLIENT_MESSAGES",
    "DEFAULT_MAX_SIZE",
    "MAX_DEPTH",
    "NAME_MAX",
    "SERVER_MESSAGES",
    "VERSION",
    "ErrorCode",
    "Field",
    "Kind",
    "MessageSpec",
    "ProtocolError",
    "check",
    "decode",
    "encode",
    "unpack",
]
