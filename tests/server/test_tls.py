"""--certfile/--keyfile: the server speaks wss:// itself (certificate made here with openssl)."""

from __future__ import annotations

import shutil
import ssl
import subprocess

import pytest
from tilehall.server.app import Server
from tilehall.server.config import Config, Limits
from websockets.asyncio.client import connect

from tests.helpers import Raw


@pytest.fixture
def certificate(tmp_path):
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    args = "req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost"
    san = "subjectAltName=DNS:localhost,IP:127.0.0.1"
    subprocess.run(
        [openssl, *args.split(), "-addext", san, "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key


async def test_wss_with_a_certificate_and_no_plain_ws(tmp_path, certificate):
    cert, key = certificate
    config = Config(
        showcase=False,
        port=0,
        data_dir=tmp_path,
        certfile=cert,
        keyfile=key,
        limits=Limits(ping_interval=None),
    )
    server = Server(config)
    await server.start()
    try:
        trust = ssl.create_default_context(cafile=str(cert))
        raw = Raw(await connect(f"wss://localhost:{server.port}", ssl=trust))
        welcome = await raw.call({"t": "hello", "v": 1, "name": "Ada"})
        assert welcome["t"] == "welcome" and welcome["player"] == "Ada"
        room = (await raw.call({"t": "create", "game": "ishido"}))["room"]
        assert (await raw.call({"t": "join", "room": room}))["seat"] == 0
        await raw.close()
        with pytest.raises(Exception):  # noqa: B017 - any failure will do: it is not TLS
            async with connect(f"ws://localhost:{server.port}", open_timeout=3):
                pass
        untrusted = ssl.create_default_context()  # the self-signed certificate is refused
        with pytest.raises(ssl.SSLCertVerificationError):
            await connect(f"wss://localhost:{server.port}", ssl=untrusted)
    finally:
        await server.stop()
