"""The broker as deploy/ configures it: a password, an ACL, nobody anonymous.

A real Mosquitto runs deploy/mosquitto.conf and deploy/mosquitto.acl (their
paths moved into the test's folder), with a password file made by
``mosquitto_passwd`` as the compose file makes it. Two real nodes reach it with
the password read from a file (``--mqtt-password-file``), never from their
command line, and act as one server; a client without it is turned away.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import aiomqtt
import pytest

from tests.cluster.conftest import Cluster, Peer, until
from tests.helpers import ROOT, http_get
from tests.services import Mosquitto

pytestmark = pytest.mark.slow  # server processes, a broker and PostgreSQL schemas: seconds each

DEPLOY = ROOT / "deploy"


@pytest.fixture
def guarded_broker(tmp_path):
    passwd_tool = shutil.which("mosquitto_passwd")
    if passwd_tool is None:
        pytest.skip("mosquitto_passwd is not installed (it comes with mosquitto)")
    broker = Mosquitto(tmp_path)
    # Not under the test's folder: pytest keeps that 0700 to root, and a broker started
    # as root reads its files as the 'mosquitto' user.
    home = Path(tempfile.mkdtemp(prefix="tilehall-mqtt-"))
    passwd, acl = home / "passwd", home / "mosquitto.acl"
    subprocess.run(
        [passwd_tool, "-c", "-b", str(passwd), "tilehall", "a secret, with spaces"], check=True
    )
    shutil.copy(DEPLOY / "mosquitto.acl", acl)
    (home / "data").mkdir()
    if os.geteuid() == 0 and _has_user("mosquitto"):
        for path in (home, passwd, acl, home / "data"):
            shutil.chown(path, "mosquitto")
    conf = (DEPLOY / "mosquitto.conf").read_text()
    for deployed, here in (
        ("listener 1883", f"listener {broker.port} 127.0.0.1"),
        ("password_file /mosquitto/passwd", f"password_file {passwd}"),
        ("acl_file /mosquitto/config/mosquitto.acl", f"acl_file {acl}"),
        ("persistence_location /mosquitto/data/", f"persistence_location {home / 'data'}/"),
    ):
        assert deployed in conf, deployed
        conf = conf.replace(deployed, here)
    broker.conf.write_text(conf)
    broker.start()
    yield broker
    broker.stop()
    shutil.rmtree(home, ignore_errors=True)


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


async def test_nodes_use_the_password_from_a_file_and_strangers_are_refused(
    tmp_path, guarded_broker, pg_url
):
    with pytest.raises(aiomqtt.MqttError):  # no user, no password: not authorised
        async with aiomqtt.Client("127.0.0.1", guarded_broker.port, timeout=5):
            pass

    secret = tmp_path / "mqtt.password"
    secret.write_text("a secret, with spaces\n")
    # The nodes' --mqtt names the user; the password comes from the file.
    user = SimpleNamespace(url=f"mqtt://tilehall@127.0.0.1:{guarded_broker.port}/tilehall")
    cluster = Cluster(tmp_path, user, pg_url)  # type: ignore[arg-type]
    try:
        u1, u2 = await cluster.start("n1", "n2", extra=("--mqtt-password-file", str(secret)))
        for node in cluster.nodes.values():
            assert "a secret" not in " ".join(node.proc.args)
            # On the bus. A node answers before its first connection to the broker and
            # its first lease are through, and says 503 (and why) until they are.
            readyz = node.url.replace("ws://", "http://") + "/readyz"
            deadline = time.monotonic() + 15
            while (got := await asyncio.to_thread(http_get, readyz))[0] != 200:
                assert time.monotonic() < deadline, f"not on the bus: {got}"
                await asyncio.sleep(0.1)
        # one server: a room made on n1 is played from n2
        ada = await Peer.open(u1, "Ada")
        room = (await ada.call({"t": "create", "game": "ishido"}))["room"]
        bob = await Peer.open(u2, "Bob")
        watched = await until(lambda: _watch(bob, room))
        assert watched["room"] == room
        await ada.close()
        await bob.close()
    finally:
        cluster.stop()


async def _watch(peer: Peer, room: str):
    reply = await peer.call({"t": "watch", "room": room})
    return reply if reply["t"] == "joined" else None
