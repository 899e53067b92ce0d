"""Server settings, with every limit in one place and documented where declared.

Each setting is declared once, with :func:`setting`: its default, the doc that
``tilehall-server --help`` prints, and whatever its option needs beyond what
its name and type say. ``tilehall-server``'s options are made from these
fields (:func:`add_options`, :func:`read_options`), so adding a field adds its
option: ``max_frame: int = setting(65536, doc=...)`` is ``--max-frame N``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import MISSING, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tilehall.server.net.forwarded import network

__all__ = [
    "Config",
    "Limits",
    "Option",
    "add_options",
    "default_data_dir",
    "default_of",
    "help_text",
    "option_name",
    "read_options",
    "read_secret",
    "setting",
]


if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")


def default_data_dir() -> Path:
    """``$TILEHALL_DATA``, else ``$XDG_DATA_HOME/tilehall``, else ``~/.local/share/tilehall``."""
    if env := os.environ.get("TILEHALL_DATA"):
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tilehall"


def read_secret(path: Path | None, env: str | None = None) -> str | None:
    """A password from a file (its first line), else from ``$env``; None if neither."""
    if path is not None:
        lines = path.read_text().splitlines()
        return lines[0].strip() if lines else ""
    return (os.environ.get(env) or None) if env else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Option:
    """What a setting's command-line option needs beyond its field's name and type.

    The option is ``--`` and the field's name with dashes; it reads a value of
    the field's type. A ``T | None`` number reads ``0`` as None (a command line
    has no other way to say "none"); a ``tuple[T, ...]`` is an option repeated
    once per item.
    """

    flag: str | None = None
    """The option's name when it is not the field's (kept for names deployed already)."""
    metavar: str | None = None
    """What ``--help`` calls the value (default: the option's name in capitals)."""
    choices: tuple[str, ...] | None = None
    """The only values accepted."""
    parse: Callable[[str], Any] | None = None
    """Reads one value instead of the field's type; a ValueError's message is the refusal."""


def setting(
    default: Any = MISSING,
    *,
    doc: str,
    factory: Callable[[], Any] | None = None,
    flag: str | None = None,
    metavar: str | None = None,
    choices: Sequence[str] | None = None,
    parse: Callable[[str], Any] | None = None,
) -> Any:
    """A settings field: its default (or ``factory``), its doc and its option.

    Args:
        default: the value when the option is not given.
        doc: what the setting means, for readers of the code and of ``--help``.
        factory: makes the default instead, when it is mutable or read from the
            environment.
        flag, metavar, choices, parse: see :class:`Option`.
    """
    option = Option(
        flag=flag,
        metavar=metavar,
        choices=tuple(choices) if choices is not None else None,
        parse=parse,
    )
    metadata = {"doc": doc, "option": option}
    if factory is not None:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


def _proxy(text: str) -> str:
    """Read ``--trusted-proxy``: an address or a CIDR block, normalised."""
    try:
        return str(network(text))
    except ValueError:
        raise ValueError(f"not an address or network: {text!r}") from None


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """What one connection may cost the server.

    A client over a limit gets ``rate_limited`` errors; one that keeps it up is
    disconnected. A client that stops reading is disconnected once its send
    queue is full: the server never buffers without bound for a slow receiver,
    and a slow receiver never stalls a room.
    """

    max_frame: int = setting(
        64 * 1024, doc="Largest frame accepted, in bytes; a larger one closes with 1009."
    )
    max_action: int = setting(
        1024,
        doc="""Largest ``act`` frame, in bytes: an action is a few small fields, so a larger one
        is refused ``action_too_large`` before anything looks at it.""",
    )
    rate: float = setting(
        50.0, doc="Sustained requests per second per connection (token bucket refill)."
    )
    burst: int = setting(100, doc="Requests a connection may send at once (token bucket size).")
    initial_burst: int = setting(
        20,
        doc="""Requests a new connection may send at once; its allowance then grows to
        ``burst`` at ``rate``. A flooder that is cut off and comes back starts small.""",
    )
    pace_backlog: int = setting(
        4,
        doc="""Requests over budget that a connection may have sent ahead (read, not yet
        handled). Up to that many are paced: delayed until their token is there, while
        nothing more is read from the connection, so TCP pushes back on the sender. A
        client that waits for its answers never has more; one that sends further ahead
        gets ``rate_limited`` (with ``retry_after``) for each request beyond.""",
    )
    bot_rate: float | None = setting(
        None,
        doc="""Sustained requests per second for a connection whose ``hello`` says
        ``bot: true``; None (0 on the command line) gives bots the same as players.
        Anyone can say it: raise it only as far as you would for any client.""",
    )
    bot_burst: int | None = setting(
        None,
        doc="""Requests a bot connection may send at once; None (0 on the command line)
        gives bots the same as players.""",
    )
    max_strikes: int = setting(
        200, doc="Requests refused as rate-limited before the connection is closed (1008)."
    )
    send_queue: int = setting(
        256, doc="Frames waiting for a slow client before it is disconnected (1008)."
    )
    ping_interval: float | None = setting(
        20.0, doc="Seconds between keepalive pings; None (0 on the command line) disables them."
    )
    ping_timeout: float | None = setting(
        20.0,
        doc="""Seconds to wait for a pong before closing the connection; None (0 on the
        command line) waits for ever.""",
    )
    close_timeout: float = setting(
        5.0,
        doc="""Seconds to wait for a peer's close handshake (a peer that never reads) before
        dropping the TCP connection.""",
    )
    flood_ban: float = setting(
        10.0,
        doc="""Seconds an address whose connection was cut off for flooding may not open new
        ones (HTTP 429 at the handshake, before any WebSocket or player exists); 0 disables.
        Its other open connections are left alone. Behind a proxy every client shares
        its address unless the proxy is in ``Config.trusted_proxies``: otherwise set 0.""",
    )
    max_connections_per_ip: int = setting(
        0,
        flag="--max-conns-per-ip",
        doc="Concurrent connections from one address; 0 means unlimited.",
    )
    names_per_address: int = setting(
        20,
        doc="""New names one address may make within an hour (a budget that refills over the
        hour; an IPv6 address counts by its /64); past it ``hello`` with a new name is
        refused ``too_many_names`` with ``retry_after``, before anything is hashed or
        written, and other addresses' sign-ins are not delayed. Names already made sign in
        as ever. 0: no bound.""",
    )
    max_rooms_per_player: int = setting(
        10,
        doc="""Rooms a player may have created that are not over yet (on every node of a
        cluster); a create past it is refused ``too_many_rooms``. 0: no bound.""",
    )
    waiting_ttl: float = setting(
        600.0,
        doc="""Seconds a room may wait for players with nobody in it before it is closed
        (its result says it expired); also counted again after a restart. 0: never.""",
    )
    finished_ttl: float = setting(
        120.0,
        doc="""Seconds a finished room stays in memory (for late spectators) before it is
        dropped; its journal and result stay in the store.""",
    )
    replay_days: float = setting(
        0.0,
        doc="""Days a finished game's moves are kept for history and replays; older ones are
        deleted (their results and high scores stay). 0: kept for ever.""",
    )
    bot_think: float = setting(0.25, doc="Seconds of thinking a COMP seat gets per decision.")
    search_think: float = setting(
        0.35,
        doc="""Seconds a COMP seat of a compiled search level (Lines ``master``, the ``search``
        extra) may think per move at most; its search is sized to take well under half of
        it (mean 150 ms, p95 400 ms or less).""",
    )
    bot_delay: float = setting(
        0.3, doc="Pause before a COMP move so that people can follow the game."
    )
    showcase_pause: float = setting(
        20.0,
        doc="""Seconds between the end of the server's own all-COMP game (``--no-showcase``)
        and the start of the next.""",
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """Everything ``tilehall-server`` can be told."""

    host: str = setting("127.0.0.1", doc="The address to listen on.")
    port: int = setting(8765, doc="The port to listen on; 0 picks a free one.")
    admin_host: str = setting(
        "127.0.0.1",
        doc="""The address of the admin listener: ``/metrics`` (Prometheus), ``/admin/...``
        (``tilehall-server admin``), ``/healthz`` and ``/readyz``, in plain HTTP. Keep it on
        loopback or a private network: metrics need no key.""",
    )
    admin_port: int | None = setting(
        None,
        doc="""The port of the admin listener; None (0 on the command line): the game port + 1,
        or a free port when the game port is 0.""",
    )
    search_compile: str = setting(
        "start",
        choices=("start", "demand"),
        doc="""When the Lines ``master`` level (the ``search`` extra) compiles its search:
        ``start``, in a child process as the server starts; ``demand``, when a ``master`` seat
        first thinks. Either way in the background, its cache in ``DATA_DIR/numba``; until it
        is done a ``master`` seat plays as ``hard``.""",
    )
    data_dir: Path = setting(
        factory=default_data_dir,
        doc="""Where the SQLite file, the admin key and ``admin.json`` (where the admin listener
        is) live, all private to the server's user: the folder 0700, the files 0600
        (``$TILEHALL_DATA``, else ``$XDG_DATA_HOME/tilehall``, else
        ``~/.local/share/tilehall``).""",
    )
    db: str | None = setting(
        None,
        doc="""Store URL: a SQLite path (default ``DATA_DIR/tilehall.sqlite3``) or
        postgresql://... (needs the ``cluster`` extra).""",
    )
    db_password_file: Path | None = setting(
        None,
        doc="""A file holding the PostgreSQL password (its first line), so that it is never
        on a command line; else ``$PGPASSWORD`` (read by the driver), else the URL's.""",
    )
    certfile: Path | None = setting(
        None,
        doc="Serve ``wss://`` directly: the certificate chain (PEM); None serves plain ``ws://``.",
    )
    keyfile: Path | None = setting(
        None, doc="The private key (PEM) of ``certfile``, unless that file holds it too."
    )
    node: str = setting(
        "",
        doc="This node's name in a cluster (the host name when ``mqtt`` is set and this is empty).",
    )
    mqtt: str | None = setting(
        None,
        doc="""Cluster mode: the MQTT broker, ``mqtt://[user:password@]host:port[/prefix]``
        (``mqtts://`` for TLS). Needs the ``cluster`` extra and a PostgreSQL store shared by
        the nodes.""",
    )
    mqtt_password_file: Path | None = setting(
        None,
        doc="""A file holding the broker's password (its first line), so that it is never on
        a command line; else ``$TILEHALL_MQTT_PASSWORD``, else the ``mqtt`` URL's.""",
    )
    mqtt_keepalive: int = setting(
        10,
        doc="""Seconds between MQTT keepalives; the broker publishes the Last Will of a node
        silent for 1.5 times this or longer, which makes the others check its lease sooner
        (Mosquitto 2.0 sent it 4-5 s after a node stopped for 1, 17 s for 10: a lease
        usually lapses first, and the lease alone decides a takeover).""",
    )
    lease: float = setting(
        2.0,
        doc="""Cluster mode: seconds a node may go without renewing its lease in the store
        before the others take its rooms over (it renews four times per lease).""",
    )
    public_url: str | None = setting(
        None,
        doc="""Cluster mode: the ws:// or wss:// address players reach this node at; the
        players of another node that stops are sent here.""",
    )
    loop: str = setting(
        "asyncio",
        choices=("asyncio", "uvloop"),
        doc="""The event loop ``tilehall-server`` runs on: ``asyncio`` or ``uvloop`` (pip install
        'tilehall[uvloop]'), which makes the transport cheaper, not the game work (see
        tests/perf/RESULTS.md).""",
    )
    trusted_proxies: tuple[str, ...] = setting(
        (),
        flag="--trusted-proxy",
        metavar="ADDRESS[/BITS]",
        parse=_proxy,
        doc="""Reverse proxies (addresses or CIDR blocks; the option once for each) whose
        ``X-Forwarded-For`` names the client: the per-address limits then count players,
        not the proxy (see :mod:`tilehall.server.net.forwarded`). Empty: the header is ignored.""",
    )
    web: bool = setting(
        True,
        flag="--no-web",
        doc="""Serve the web client on the game port: ``GET /`` answers the page and ``/r/ROOM``
        a room's own address (the WebSocket stays at ``/``). ``--no-web`` turns the page off:
        the port then answers WebSockets and the health checks only.""",
    )
    showcase: bool = setting(
        True,
        flag="--no-showcase",
        doc="""Keep an all-COMP Mathable game running while no public game is played, for the
        lobby to show as its live game (its bots play only while someone watches). It counts
        for no rating, table, quick match, room budget or history; finished ones are deleted
        after a day. In a cluster one node keeps it. ``--no-showcase``: none (one left
        unfinished by an earlier run is closed at start-up).""",
    )
    limits: Limits = field(default_factory=Limits)

    @property
    def db_url(self) -> str:
        return self.db or str(self.data_dir / "tilehall.sqlite3")


# -- the command line ------------------------------------------------------------------------


def option_name(f: dataclasses.Field[Any]) -> str:
    """The option of a settings field: its own name with dashes, unless it says otherwise."""
    option: Option = f.metadata["option"]
    return option.flag or "--" + f.name.replace("_", "-")


def help_text(f: dataclasses.Field[Any]) -> str:
    """A field's doc as ``--help`` prints it: without reST markup, with its default."""
    text = re.sub(r":\w+:`([^`]*)`", r"\1", f.metadata["doc"]).replace("``", "")
    text = " ".join(text.split()).replace("%", "%%")
    default = default_of(f)
    if default not in (None, "", ()) and not isinstance(default, bool):  # a switch says it
        text += " (default %(default)s)"
    return text


def default_of(f: dataclasses.Field[Any]) -> Any:
    """A field's default; one made by a factory is made now (``data_dir`` reads the environment)."""
    if f.default_factory is not MISSING:
        return f.default_factory()
    return f.default


def _shape(hint: Any) -> tuple[Any, bool, bool]:
    """A field's type as (type of one value, may be None, repeated)."""
    optional = repeated = False
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        optional, hint = True, args[0]
    if typing.get_origin(hint) is tuple:
        repeated, hint = True, typing.get_args(hint)[0]
    return hint, optional, repeated


def _reader(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return read


def add_options(parser: argparse.ArgumentParser, cls: type[Any], prefix: str = "") -> None:
    """Add an option for each field of the settings class ``cls``.

    A field that is itself a settings class (``Config.limits``) becomes an
    argument group of its own, named after the field.
    """
    group: Any = parser
    if prefix:
        doc = (cls.__doc__ or "").strip().splitlines()[0]
        group = parser.add_argument_group(prefix.rstrip("."), doc)
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if dataclasses.is_dataclass(hints[f.name]):
            add_options(parser, hints[f.name], f"{prefix}{f.name}.")
            continue
        if "option" not in f.metadata:
            raise TypeError(f"{cls.__name__}.{f.name} is not declared with setting()")
        option: Option = f.metadata["option"]
        kind, _optional, repeated = _shape(hints[f.name])
        name = option_name(f)
        if kind is bool:
            # A switch: its flag says which way it turns the default (``--no-web``).
            group.add_argument(
                name,
                dest=prefix + f.name,
                action="store_false" if f.default else "store_true",
                default=f.default,
                help=help_text(f),
            )
            continue
        kwargs: dict[str, Any] = {
            "dest": prefix + f.name,
            "type": _reader(option.parse) if option.parse else kind,
            "help": help_text(f),
        }
        if option.choices is not None:
            kwargs["choices"] = option.choices
        else:
            kwargs["metavar"] = option.metavar or name[2:].upper().replace("-", "_")
        if repeated:
            kwargs.update(action="append", default=[])
        else:
            kwargs["default"] = default_of(f)
        group.add_argument(name, **kwargs)


def read_options(args: argparse.Namespace, cls: type[T], prefix: str = "") -> T:
    """The ``cls`` that :func:`add_options`' options were given for."""
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if dataclasses.is_dataclass(hints[f.name]):
            values[f.name] = read_options(args, hints[f.name], f"{prefix}{f.name}.")
            continue
        kind, optional, repeated = _shape(hints[f.name])
        value = getattr(args, prefix + f.name)
        if repeated:
            value = tuple(value)
        elif optional and kind in (int, float) and value == 0:
            value = None
        values[f.name] = value
    return cls(**values)
