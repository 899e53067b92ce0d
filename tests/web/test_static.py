"""The web client's static route on a real server: what it answers, and what it never does.

Requests go out as raw bytes (tests/web/rawhttp.py), so that every traversal form
reaches the server exactly as an attacker would send it.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest
from tilehall.server.app import Server
from tilehall.server.config import Config, Limits
from tilehall.server.net.web import CSP, WebFiles, network_addresses, web_folder, who_can_open

from tests.helpers import Raw, ServerProcess
from tests.web.rawhttp import request

WEB = web_folder()
INDEX = (WEB / "index.html").read_bytes()


def csp_directives(value: str) -> dict[str, list[str]]:
    out = {}
    for part in value.split(";"):
        name, *sources = part.split()
        out[name] = sources
    return out


# -- what is served -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "target",
    [
        "/",
        "/?lang=en",
        "/index.html",
        "/r/r0a1b2c3",
        "/r/Xf3kq0Zb2mWc9sTa",
        "/r/mA5c3k0-4bXq2Zs1?code=mA5c3k0-4bXq2Zs1",
        "/r/r0a1b2c3?seat=1&x=%2e%2e",
        "/r/r0a1b2c3/",
    ],
)
async def test_the_page_and_every_room_address_answer_index_html(server: Server, target):
    reply = await request(server.port, target)
    assert reply.status == 200
    assert reply.headers["content-type"] == "text/html; charset=utf-8"
    assert reply.body == INDEX


async def test_files_are_served_from_the_folder_with_their_types(server: Server):
    reply = await request(server.port, "/vendor/msgpack.min.js")
    assert reply.status == 200
    assert reply.headers["content-type"].split(";")[0] == "text/javascript"
    assert reply.body == (WEB / "vendor" / "msgpack.min.js").read_bytes()


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A web folder of every kind of file, with traps beside it and inside it."""
    web = tmp_path / "web"
    (web / "js" / "games").mkdir(parents=True)
    (web / "css").mkdir()
    (web / "img").mkdir()
    (web / "index.html").write_text("<!doctype html><title>t</title>\n")
    (web / "js" / "app.js").write_text("export const a = 1;\n" * 50)
    (web / "js" / "games" / "ishido.js").write_text("export function mount() {}\n")
    (web / "css" / "app.css").write_text("body { margin: 0; }\n" * 40)
    (web / "img" / "tile.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>\n')
    (web / "img" / "tile.png").write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(64))
    (web / "manifest.json").write_text('{"name": "t"}\n')
    (web / "README.md").write_text("not served: not a kind of file the page uses\n")
    (web / ".secret.js").write_text("dotfile\n")
    (web / ".git").mkdir()
    (web / ".git" / "config.js").write_text("dot folder\n")
    (web / "odd name.js").write_text("needs encoding\n")
    (tmp_path / "outside.js").write_text("SECRET outside the folder\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "deep.js").write_text("SECRET in a folder outside\n")
    (web / "leak.js").symlink_to(tmp_path / "outside.js")
    (web / "leakdir").symlink_to(tmp_path / "outside")
    (web / "js" / "alias.js").symlink_to(web / "js" / "app.js")  # inside: served
    return web


TYPES = {
    "/index.html": "text/html; charset=utf-8",
    "/js/app.js": "text/javascript; charset=utf-8",
    "/js/games/ishido.js": "text/javascript; charset=utf-8",
    "/js/alias.js": "text/javascript; charset=utf-8",
    "/css/app.css": "text/css; charset=utf-8",
    "/img/tile.svg": "image/svg+xml",
    "/img/tile.png": "image/png",
    "/manifest.json": "application/json",
}


async def test_each_kind_of_file_has_its_content_type(server: Server, site: Path):
    server.web = WebFiles.load(site)
    assert set(server.web.files) == set(TYPES)
    for path, ctype in TYPES.items():
        reply = await request(server.port, path)
        assert (reply.status, reply.headers["content-type"]) == (200, ctype), path
        real = (site / path.lstrip("/")).resolve()
        assert reply.body == real.read_bytes(), path


# -- what is never served -------------------------------------------------------------------

TRAVERSALS = [
    "/..",
    "/../",
    "/../pyproject.toml",
    "/../../../../etc/passwd",
    "/js/../../server/app.py",
    "/js/../index.html",
    "/./index.html",
    "/%2e%2e/pyproject.toml",
    "/%2E%2E/%2E%2E/etc/passwd",
    "/%2e%2e%2fpyproject.toml",
    "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
    "/..%2f..%2fetc%2fpasswd",
    "/%252e%252e/pyproject.toml",
    "/%252e%252e%252fetc%252fpasswd",
    "/..%c0%af..%c0%afetc/passwd",
    "/..\\..\\pyproject.toml",
    "/js\\app.js",
    "/..%5c..%5cpyproject.toml",
    "/%5c..%5cpyproject.toml",
    "/index.html%00",
    "/index.html%00.js",
    "/%00/etc/passwd",
    "/etc/passwd",
    "//etc/passwd",
    "///etc/passwd",
    "/%2fetc%2fpasswd",
    "/C:/Windows/win.ini",
    "/C:%5cWindows%5cwin.ini",
    "/file:///etc/passwd",
    "http://127.0.0.1/etc/passwd",
    "etc/passwd",
    "*",
    "/index.html/",
    "/index.html/.",
    "/INDEX.HTML",
    "/vendor",
    "/vendor/",
    "/vendor/VENDORED.md",
    "/README.md",
    "/.git/config",
    "/.env",
    "/r",
    "/r/",
    "/r/abc//",
    "/r/abc/def",
    "/r/../index.html",
    "/r/%2e%2e",
    "/r/..%2fpyproject.toml",
    "/r/" + "a" * 65,
    "/js/app.js",  # not in this branch's folder: no such file is a 404 too
]


@pytest.mark.parametrize("target", TRAVERSALS)
async def test_anything_but_a_file_of_the_folder_is_a_plain_404(server: Server, target):
    reply = await request(server.port, target)
    if target == "/js/app.js" and (WEB / "js" / "app.js").exists():
        assert reply.status == 200
        return
    assert reply.status == 404, target
    assert reply.body == b"not found\n"
    assert reply.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    "target",
    [
        b"/index.html\x00",
        b"/\x00../etc/passwd",
        b"/..\\..\\etc\\passwd",
        b"/\xc0\xae\xc0\xae/etc/passwd",
        b"/\xff",
        b"/r/\x00",
    ],
)
async def test_raw_nul_and_non_ascii_bytes_never_cause_a_500(server: Server, target):
    """websockets' HTTP parser hangs up on a path that is not ASCII; what it lets by is a 404."""
    reply = await request(server.port, target)
    assert reply.status in (0, 400, 404), (target, reply.status)
    assert INDEX not in reply.body
    # and the server goes on answering
    assert (await request(server.port, "/")).status == 200


async def test_files_beside_and_inside_the_folder_that_are_not_its_own_are_404(
    server: Server, site: Path
):
    server.web = WebFiles.load(site)
    for target in [
        "/leak.js",  # a symlink out of the folder
        "/leakdir/deep.js",  # a folder behind a symlink out of it
        "/outside.js",
        "/../outside.js",
        "/%2e%2e/outside.js",
        "/js/%2e%2e/%2e%2e/outside.js",
        "/.secret.js",  # dotfiles
        "/.git/config.js",
        "/odd%20name.js",
        "/README.md",  # not a kind the page uses
        "/js",  # folders
        "/js/",
        "/js/games",
        "/img/",
    ]:
        reply = await request(server.port, target)
        assert reply.status == 404, target
        assert b"SECRET" not in reply.body


async def test_the_readme_screenshots_are_not_served(server: Server):
    """clients/web/screenshots are the README's pictures, not the page's: a 404 like any
    file the folder does not serve, though the file is there."""
    assert (WEB / "screenshots" / "lobby.png").is_file()
    for target in ["/screenshots/lobby.png", "/screenshots/mathable.png"]:
        reply = await request(server.port, target)
        assert reply.status == 404, target
    assert server.web is not None
    assert not [path for path in server.web.files if path.startswith("/screenshots/")]
    assert "/css/app.css" in server.web.files  # the rest is served


async def test_methods_other_than_get_and_head_are_refused(server: Server):
    for method in ("POST", "PUT", "DELETE", "OPTIONS"):
        reply = await request(server.port, "/", method=method)
        assert reply.status in (400, 405), (method, reply.status)  # 400: an older websockets
        assert INDEX not in reply.body


# -- headers ------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["/", "/r/r0a1b2c3", "/vendor/msgpack.min.js", "/nothing"])
async def test_every_answer_carries_the_security_headers(server: Server, target):
    reply = await request(server.port, target, {"Accept-Encoding": "gzip"})
    assert reply.headers["x-content-type-options"] == "nosniff"
    assert reply.headers["referrer-policy"] == "no-referrer"
    assert reply.headers["content-security-policy"] == CSP
    csp = csp_directives(reply.headers["content-security-policy"])
    assert csp["default-src"] == ["'self'"]
    assert csp["script-src"] == ["'self'"]  # no inline script, no eval, nothing from outside
    assert csp["style-src"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["base-uri"] == ["'none'"]
    assert csp["object-src"] == ["'none'"]
    assert set(csp["connect-src"]) == {"'self'", "ws:", "wss:"}
    assert not any("unsafe" in s or "http" in s for sources in csp.values() for s in sources)


async def test_etag_and_if_none_match_make_a_304_with_no_body(server: Server):
    first = await request(server.port, "/vendor/msgpack.min.js")
    etag = first.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"')
    assert first.headers["cache-control"] == "no-cache"
    for given in (etag, "W/" + etag, f'"other", {etag}', "*"):
        again = await request(server.port, "/vendor/msgpack.min.js", {"If-None-Match": given})
        assert again.status == 304, given
        assert again.body == b""
        assert again.headers["etag"] == etag
        assert again.headers["cache-control"] == "no-cache"
        assert again.size < 250  # a second visit costs a few of these
    changed = await request(server.port, "/vendor/msgpack.min.js", {"If-None-Match": '"other"'})
    assert changed.status == 200
    assert changed.body == first.body
    # the page's ETag is not the script's, and a room address is the page
    page = await request(server.port, "/r/r0a1b2c3")
    assert page.headers["etag"] != etag
    assert (await request(server.port, "/", {"If-None-Match": page.headers["etag"]})).status == 304


async def test_an_etag_is_the_content_s_so_a_changed_file_is_a_200(server: Server, site: Path):
    server.web = WebFiles.load(site)
    before = (await request(server.port, "/js/app.js")).headers["etag"]
    (site / "js" / "app.js").write_text("export const a = 2;\n")
    server.web = WebFiles.load(site)  # files are read at start-up
    reply = await request(server.port, "/js/app.js", {"If-None-Match": before})
    assert reply.status == 200
    assert reply.body == b"export const a = 2;\n"
    assert reply.headers["etag"] != before


@pytest.mark.parametrize(
    ("accept", "zipped"),
    [
        ("gzip", True),
        ("gzip, deflate, br, zstd", True),
        ("br;q=1.0, gzip;q=0.8, *;q=0.1", True),
        ("*", True),
        ("GZIP", True),
        ("x-gzip", True),
        ("gzip;q=0", False),
        ("*;q=0", False),
        ("br", False),
        ("identity", False),
        ("gzip;q=nonsense", False),
        ("", False),
    ],
)
async def test_gzip_when_the_browser_asks(server: Server, accept, zipped):
    plain = (WEB / "vendor" / "msgpack.min.js").read_bytes()
    reply = await request(server.port, "/vendor/msgpack.min.js", {"Accept-Encoding": accept})
    assert reply.status == 200
    assert reply.headers["vary"] == "Accept-Encoding"
    if zipped:
        assert reply.headers["content-encoding"] == "gzip"
        assert gzip.decompress(reply.body) == plain
        assert len(reply.body) < len(plain) / 2
    else:
        assert "content-encoding" not in reply.headers
        assert reply.body == plain
    # each encoding has its own ETag, and either revalidates
    again = await request(
        server.port,
        "/vendor/msgpack.min.js",
        {"Accept-Encoding": accept, "If-None-Match": reply.headers["etag"]},
    )
    assert again.status == 304


async def test_images_are_not_gzipped(server: Server, site: Path):
    server.web = WebFiles.load(site)
    reply = await request(server.port, "/img/tile.png", {"Accept-Encoding": "gzip"})
    assert reply.status == 200
    assert "content-encoding" not in reply.headers
    assert reply.body == (site / "img" / "tile.png").read_bytes()


async def test_head_answers_the_headers_without_the_body(server: Server):
    get = await request(server.port, "/vendor/msgpack.min.js")
    head = await request(server.port, "/vendor/msgpack.min.js", method="HEAD")
    assert head.status == 200
    assert head.body == b""
    assert head.headers["content-length"] == str(len(get.body))
    assert head.headers["etag"] == get.headers["etag"]
    missing = await request(server.port, "/nothing", method="HEAD")
    assert (missing.status, missing.body) == (404, b"")


# -- beside the WebSocket ---------------------------------------------------------------------


async def test_the_websocket_and_health_checks_stay_at_their_addresses(server: Server):
    a = await Raw.open(f"ws://127.0.0.1:{server.port}", "Ada")
    created = await a.call({"t": "create", "game": "ishido"})
    assert created["t"] == "created"
    page = await request(server.port, f"/r/{created['room']}")
    assert page.status == 200 and page.body == INDEX
    assert (await a.call({"t": "rooms"}))["t"] == "rooms"
    await a.close()
    assert (await request(server.port, "/healthz")).body == b"ok\n"
    assert (await request(server.port, "/readyz")).body == b"ready\n"
    assert (await request(server.port, "/metrics")).status == 404
    assert (await request(server.port, "/admin/rooms")).status == 404


async def test_no_web_turns_the_page_off(tmp_path: Path):
    srv = Server(
        Config(
            showcase=False, port=0, data_dir=tmp_path, web=False, limits=Limits(ping_interval=None)
        )
    )
    await srv.start()
    try:
        assert srv.web is None
        root = await request(srv.port, "/")
        assert root.status == 426  # websockets' own answer to a plain GET, as before
        assert INDEX not in root.body
        for target in ("/r/r0a1b2c3", "/index.html", "/vendor/msgpack.min.js"):
            assert (await request(srv.port, target)).status == 404, target
        assert (await request(srv.port, "/healthz")).body == b"ok\n"
        a = await Raw.open(f"ws://127.0.0.1:{srv.port}", "Ada")
        assert (await a.call({"t": "rooms"}))["t"] == "rooms"
        await a.close()
    finally:
        await srv.stop()


@pytest.mark.slow
def test_the_server_says_where_to_open_the_page(tmp_path: Path):
    """And who else can: on loopback (the default) nobody, and it says how to let others in;
    on every address, others at this computer's network address, which it names."""
    proc = ServerProcess(tmp_path)
    proc.start()
    try:
        log = "".join(proc.log)
        assert f"open http://127.0.0.1:{proc.port}/ in a browser" in log
        assert "only this computer can open it" in log and "--host 0.0.0.0" in log
    finally:
        proc.stop()
    everyone = ServerProcess(tmp_path, "--host", "0.0.0.0")
    everyone.start()
    try:
        log = "".join(everyone.log)
        found = network_addresses()
        if found:
            assert f"others on your network open http://{found[0]}:{everyone.port}/" in log
        else:
            assert f"others open it at this computer's network address, port {everyone.port}" in log
        assert "only this computer" not in log
    finally:
        everyone.stop()
    quiet = ServerProcess(tmp_path, "--no-web")
    quiet.start()
    try:
        assert "in a browser" not in "".join(quiet.log)
    finally:
        quiet.stop()


async def test_the_page_names_its_static_module_graph_for_preloading(server: Server, tmp_path):
    """The page's answer lists every module its scripts import statically, and only those."""
    (tmp_path / "js" / "games").mkdir(parents=True)
    (tmp_path / "index.html").write_text(
        '<!doctype html><title>t</title><script src="/vendor.js"></script>\n'
        '<script type="module" src="/js/app.js"></script>'
    )
    (tmp_path / "vendor.js").write_text("var classic = 1;\n")
    (tmp_path / "js" / "app.js").write_text(
        'import { h } from "./dom.js";\n'
        "import {\n  a,\n  b,\n} from './net.js';\n"
        'import "./side.js";\n'
        'export { c } from "./dom.js";\n'
        'const board = () => import("./games/ishido.js");\n'
        'export function f() { return fetch("./comment.js"); }\n'
        'export const from = load("./comment.js");\n'
        'import{z}from"./util.js";\n'
        '// import { nothing } from "./comment.js" is a comment, not indented code\n'
        'import { gone } from "./missing.js";\n'
        'import words from "../words.json" with { type: "json" };\n'
    )
    (tmp_path / "words.json").write_text("{}")
    (tmp_path / "js" / "dom.js").write_text('import { q } from "../js/util.js";\n')
    (tmp_path / "js" / "net.js").write_text("export const a = 1, b = 2;\n")
    (tmp_path / "js" / "side.js").write_text('import "./dom.js";\n')
    (tmp_path / "js" / "util.js").write_text("export const q = 1;\n")
    (tmp_path / "js" / "comment.js").write_text("")
    (tmp_path / "js" / "games" / "ishido.js").write_text("export function mount() {}\n")
    server.web = WebFiles.load(tmp_path)
    page = await request(server.port, "/r/r0a1b2c3")
    links = [part.strip() for part in page.headers["link"].split(",")]
    assert links == [
        f"<{path}>; rel=modulepreload"
        for path in ("/js/app.js", "/js/dom.js", "/js/net.js", "/js/side.js", "/js/util.js")
    ] + ["</words.json>; rel=modulepreload; as=json"]  # a JSON module, preloaded as one
    assert "link" not in (await request(server.port, "/js/app.js")).headers
    revalidated = await request(server.port, "/", {"If-None-Match": page.headers["etag"]})
    assert revalidated.status == 304 and "link" not in revalidated.headers


async def test_a_banned_address_is_refused_a_handshake_at_any_path(server: Server):
    """The page's files are served beside the WebSocket; a ban still covers every handshake."""
    server.ban("127.0.0.1", "a test")
    upgrade = {
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
    }
    for target in ("/", "/js/app.js", "/r/r0a1b2c3", "/anything"):
        reply = await request(server.port, target, upgrade)
        assert reply.status == 429, target
    assert (await request(server.port, "/")).status == 200  # the page itself is not a handshake


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.1.1", "::1", "[::1]", "localhost"])
def test_a_loopback_address_is_said_to_reach_this_computer_only(host: str):
    said = who_can_open(host, 8765, "http")
    assert said is not None and "only this computer" in said and "--host 0.0.0.0" in said


def test_a_named_address_needs_no_word_of_its_own():
    """The page's address the server prints is then the one to share."""
    assert who_can_open("192.0.2.7", 8765, "http") is None
    assert who_can_open("games.example", 8765, "https") is None


def test_every_address_names_this_computers_own():
    for host in ("0.0.0.0", "::", ""):
        said = who_can_open(host, 8443, "https")
        assert said is not None
        for address in network_addresses():
            assert f"https://{address}:8443/" in said
