"""The web client's files, served on the game port: ``GET /``, ``/r/ROOM`` and ``/js/...``.

The page is plain files (``clients/web/``, shipped as package data): no build step,
nothing from outside. They are read once, at start-up, into memory with their
content hash (the ETag) and, where it is smaller, a gzipped copy; a request is then
a dictionary lookup. That lookup is also the whole of the route's safety: a path
is answered only if it is, byte for byte, the name of a file that was found inside
the folder when the server started, so no spelling of ``..``, encoded or not, no
backslash, NUL, absolute path or symlink can name anything else. Nothing is
decoded and nothing is joined to a file-system path at request time.

``/`` and ``/r/ROOM`` (any room id or private code form, with any query string) answer
``index.html``: the page reads its own address to know which room to open.

Every answer carries a Content-Security-Policy that allows scripts, styles and
connections from the page's own origin only (and the WebSocket to it), no inline
script, no ``eval``, no framing. ``Cache-Control: no-cache`` with an ETag makes a
second visit a round of ``304 Not Modified`` answers with no bodies.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import ipaddress
import logging
import os
import posixpath
import re
import socket
from dataclasses import dataclass
from pathlib import Path

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

__all__ = [
    "CONTENT_TYPES",
    "CSP",
    "WILDCARD_HOSTS",
    "WebFiles",
    "network_addresses",
    "web_folder",
    "who_can_open",
]

log = logging.getLogger(__name__)

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
}
"""The only kinds of file served; anything else in the folder (READMEs, notes) is not."""

COMPRESSIBLE = frozenset({".html", ".js", ".css", ".json", ".webmanifest", ".svg"})
"""Kinds worth a gzipped copy (images and fonts are compressed already)."""

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
)
"""The page's Content-Security-Policy.

``connect-src`` names ``ws:`` and ``wss:`` beside ``'self'``: CSP Level 3 lets
``'self'`` match a WebSocket to the same host, but older browsers (Safari before
15.4, for one) do not, and a player on a LAN may have one. Scripts and styles
come from this origin only, so nothing injected into the page can run to use that.
"""

SECURITY_HEADERS = (
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
)

CACHE_CONTROL = "no-cache"
"""Keep, but ask each time: a changed file is seen at once, an unchanged one costs a 304."""

_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")
"""One part of a served file's path: no dotfiles, nothing that needs encoding."""

NOT_SERVED = frozenset({"screenshots"})
"""Folders at the top of the web folder that are not the page's: ``screenshots`` are the
README's pictures (about 0.8 MB), never asked for by the page, and so neither served nor
shipped (pyproject.toml's ``exclude-package-data``)."""

_ROOM_PAGE = re.compile(r"/r/[A-Za-z0-9_-]{1,64}/?")
"""A room's own address: room ids and private codes are URL-safe base64 or ``r`` + hex."""

_REASONS = {
    200: "OK",
    304: "Not Modified",
    404: "Not Found",
    405: "Method Not Allowed",
}


def web_folder() -> Path:
    """``clients/web`` as installed: beside ``tilehall.clients``' modules, editable or not.

    Found without importing ``tilehall.clients``: the server needs none of its code.
    """
    spec = importlib.util.find_spec("tilehall.clients")
    assert spec is not None and spec.submodule_search_locations is not None
    return Path(next(iter(spec.submodule_search_locations))) / "web"


@dataclass(frozen=True, slots=True)
class WebFile:
    """One file as served: its bytes, their gzipped copy (None: not worth it), its headers."""

    body: bytes
    gzipped: bytes | None
    content_type: str
    etag: str
    """A strong ETag: the content's hash. The gzipped copy's is this with ``-gz`` inside."""

    @property
    def gzip_etag(self) -> str:
        return self.etag[:-1] + '-gz"'


def _load(path: Path) -> WebFile:
    body = path.read_bytes()
    digest = hashlib.sha256(body).hexdigest()[:20]
    gzipped = None
    if path.suffix in COMPRESSIBLE:
        packed = gzip.compress(body, compresslevel=9, mtime=0)
        if len(packed) < len(body):
            gzipped = packed
    return WebFile(body, gzipped, CONTENT_TYPES[path.suffix], f'"{digest}"')


def _wants_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` allows gzip (by name or by ``*``, with a q above 0)."""
    weights: dict[str, float] = {}
    for item in accept_encoding.split(","):
        name, _, params = item.partition(";")
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value.strip())
                except ValueError:
                    weight = 0.0
        weights[name.strip().lower()] = weight
    for name in ("gzip", "x-gzip"):
        if name in weights:
            return weights[name] > 0
    return weights.get("*", 0.0) > 0


def _matches(if_none_match: str, etags: tuple[str, ...]) -> bool:
    """``If-None-Match`` names one of ``etags`` (weak comparison, as RFC 9110 asks), or is ``*``."""
    if if_none_match.strip() == "*":
        return True
    given = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
    return not given.isdisjoint(etags)


_MODULE_SCRIPT = re.compile(r"""<script\b[^>]*\btype=["']?module["']?[^>]*\bsrc=["']([^"']+)["']""")
"""``<script type="module" src="...">`` in the page (type before src, as the page writes it)."""

_STATIC_IMPORT = re.compile(
    r"""^\s*(?:import|export)\s*(?:[^"'`;]*?\bfrom\s*)?["'](\.{0,2}/[^"']+\.js(?:on)?)["']""",
    re.M,
)
"""A static ``import ... from "./x.js"`` (or ``export ... from``, or a bare ``import "./x.js"``),
or a JSON module's (``import words from "../words.json" with { type: "json" }``)."""


def module_graph(files: dict[str, WebFile], page: str = "/index.html") -> list[str]:
    """The page's module scripts and everything they import statically, in the order found.

    Read once at start-up, so that the page's answer can name them all (a
    ``Link: rel=modulepreload`` header): the browser then fetches the whole graph
    at once, instead of one level of imports per round trip. A dynamic
    ``import()`` (a game's board) is left to load when it is needed.
    """
    if page not in files:
        return []
    html = files[page].body.decode("utf-8", "replace")
    queue = [
        posixpath.normpath(posixpath.join(posixpath.dirname(page), src))
        for src in _MODULE_SCRIPT.findall(html)
    ]
    found: list[str] = []
    while queue:
        path = queue.pop(0)
        if path in found or path not in files:
            continue
        found.append(path)
        source = files[path].body.decode("utf-8", "replace")
        for target in _STATIC_IMPORT.findall(source):
            queue.append(posixpath.normpath(posixpath.join(posixpath.dirname(path), target)))
    return found


class WebFiles:
    """The web folder's files in memory, and the answer to each request for one."""

    def __init__(self, files: dict[str, WebFile]) -> None:
        self.files = files
        """URL path (``/js/app.js``) -> file."""
        modules = module_graph(files)
        # A JSON module is preloaded as one (``as=json``): else the browser finds it only
        # once the module importing it has arrived and been read, the one request of the
        # graph that waited for another (words.json, a good 10 to 100 ms of a first visit).
        self.preload = ", ".join(
            f"<{path}>; rel=modulepreload" + ("; as=json" if path.endswith(".json") else "")
            for path in modules
        )
        """The page's ``Link`` header: its static module graph (see :func:`module_graph`)."""

    @classmethod
    def load(cls, folder: Path | None = None) -> WebFiles:
        """Read every servable file under ``folder`` (default: the installed web folder).

        A dotfile or dot-folder, a name that would need encoding, a kind not in
        :data:`CONTENT_TYPES`, a folder of :data:`NOT_SERVED` and a symlink that leads
        out of the folder are left out: they can never be asked for. Folders behind
        symlinks are not entered.
        """
        folder = folder or web_folder()
        root = folder.resolve()
        files: dict[str, WebFile] = {}
        for top, dirs, names in os.walk(root):
            here = Path(top)
            top_level = here == root
            dirs[:] = sorted(
                d for d in dirs if _NAME.fullmatch(d) and not (top_level and d in NOT_SERVED)
            )
            for name in sorted(names):
                path = here / name
                if not _NAME.fullmatch(name) or path.suffix not in CONTENT_TYPES:
                    continue
                real = path.resolve()
                if not real.is_relative_to(root) or not real.is_file():
                    continue
                files["/" + path.relative_to(root).as_posix()] = _load(real)
        if "/index.html" not in files:
            log.warning("the web client has no index.html in %s: / answers 404", root)
        return cls(files)

    @property
    def size(self) -> int:
        return sum(len(f.body) for f in self.files.values())

    def lookup(self, path: str) -> WebFile | None:
        """The file a request path names: ``/`` and room pages are ``index.html``."""
        if path == "/" or _ROOM_PAGE.fullmatch(path):
            return self.files.get("/index.html")
        return self.files.get(path)

    def answer(self, request: Request) -> Response:
        """Answer a plain HTTP request (not a WebSocket handshake) on the game port."""
        method = getattr(request, "method", "GET")  # websockets < 15 parses GET only
        if method not in ("GET", "HEAD"):
            response = _plain(405, "only GET and HEAD\n")
            response.headers["Allow"] = "GET, HEAD"
            return response
        path = request.path.split("?", 1)[0]
        file = self.lookup(path)
        if file is None:
            page = self.files.get("/404.html")
            if page is not None and "text/html" in request.headers.get("Accept", ""):
                # A browser that followed a bad link (``/r/``, a room's link mangled) gets the
                # site's own page with a way back, not a bare line; other clients the line.
                return _html_404(page, method)
            missing = _plain(404, "not found\n")
            if method == "HEAD":
                missing.body = b""
            return missing
        headers = request.headers
        zipped = file.gzipped is not None and _wants_gzip(headers.get("Accept-Encoding", ""))
        etag = file.gzip_etag if zipped else file.etag
        # websockets closes the connection after any answer but a handshake's: say so.
        out = Headers([("ETag", etag), ("Cache-Control", CACHE_CONTROL), ("Connection", "close")])
        if file.gzipped is not None:
            out["Vary"] = "Accept-Encoding"
        inm = headers.get("If-None-Match")
        if inm is not None and _matches(inm, (file.etag, file.gzip_etag)):
            # What RFC 9110 asks of a 304 and no more: the browser keeps the stored
            # answer's other headers (its CSP among them), and a second visit stays small.
            return Response(304, _REASONS[304], out, b"")
        body = file.gzipped if zipped and file.gzipped is not None else file.body
        out["Content-Type"] = file.content_type
        out["Content-Length"] = str(len(body))
        if zipped:
            out["Content-Encoding"] = "gzip"
        for name, value in SECURITY_HEADERS:
            out[name] = value
        if file.content_type.startswith("text/html") and self.preload:
            out["Link"] = self.preload
        return Response(200, _REASONS[200], out, b"" if method == "HEAD" else body)


def _html_404(page: WebFile, method: str) -> Response:
    """``404.html`` as a 404, with the page's headers (its CSP too); never cached."""
    headers = Headers(
        [
            ("Content-Type", page.content_type),
            ("Content-Length", str(len(page.body))),
            ("Cache-Control", "no-store"),
            ("Connection", "close"),
            *SECURITY_HEADERS,
        ]
    )
    return Response(404, _REASONS[404], headers, b"" if method == "HEAD" else page.body)


def _plain(status: int, text: str) -> Response:
    body = text.encode()
    headers = Headers(
        [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
            ("Connection", "close"),
            *SECURITY_HEADERS,
        ]
    )
    return Response(status, _REASONS[status], headers, body)


WILDCARD_HOSTS: dict[str, str] = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}
"""The ``--host`` values that mean every address, each with the loopback address a browser
on this computer opens the page at."""


def network_addresses() -> list[str]:
    """This computer's IPv4 address on its network, as the route out of it says.

    A UDP socket "connected" to an address of a private range picks the interface
    a packet would leave by; nothing is sent. None on a computer with no route out
    (then only loopback is left, which is no use to anyone else).
    """
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))
            address = str(probe.getsockname()[0])
    except OSError:
        return []
    if ipaddress.ip_address(address).is_loopback or address == "0.0.0.0":
        return []
    return [address]


def who_can_open(host: str, port: int, scheme: str) -> str | None:
    """Who else can open the page, as a start-up line says it (None: the address said is it).

    The default address is loopback. A host who sends a friend a room's link from
    it (``http://127.0.0.1:8765/r/...``) sends a link that opens nowhere else, and
    nothing said so: the line says what to start with instead. Listening on every
    address, it names this computer's address on its network, the one to share.
    """
    if host in WILDCARD_HOSTS:
        found = network_addresses()
        if not found:
            return f"others open it at this computer's network address, port {port}"
        urls = ", ".join(f"{scheme}://{address}:{port}/" for address in found)
        return f"others on your network open {urls} (room links: /r/ROOM there)"
    try:
        loopback = ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        loopback = host.casefold() == "localhost"
    if not loopback:
        return None
    return (
        "only this computer can open it: to play with others on your network, start the "
        "server with --host 0.0.0.0 (over the internet: --certfile, or a TLS proxy in front)"
    )
