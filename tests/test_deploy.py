"""deploy/ stays true to the server: every option documented, every example accepted."""

from __future__ import annotations

import json
import re
import shlex
import socket
import subprocess
import sys

from tests.helpers import ROOT

DEPLOY = ROOT / "deploy"
ENV = (DEPLOY / "tilehall.env").read_text()
UNIT = (DEPLOY / "tilehall.service").read_text()
DOCKERFILE = (DEPLOY / "Dockerfile").read_text()
COMPOSE = (DEPLOY / "compose.yaml").read_text()


def parse(argvs: list[list[str]]) -> list[dict]:
    """Run the server's own option parser on each argv (in a child: it sets up logging)."""
    script = (
        "import json, sys\n"
        "from tilehall.server.app import parse_args\n"
        "out = []\n"
        "for argv in json.loads(sys.argv[1]):\n"
        "    c = parse_args(argv)\n"
        "    out.append({'host': c.host, 'port': c.port, 'db': c.db, 'node': c.node,\n"
        "                'mqtt': c.mqtt, 'data_dir': str(c.data_dir)})\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(argvs)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def env_groups() -> tuple[dict[str, str], dict[str, list[str]]]:
    """The active value of each group, and the commented examples of each."""
    active: dict[str, str] = {}
    examples: dict[str, list[str]] = {}
    for line in ENV.splitlines():
        if m := re.match(r"^(TILEHALL_[A-Z]+)=(.*)$", line):
            active[m[1]] = m[2]
        elif m := re.match(r"^#(TILEHALL_[A-Z]+)=(.*)$", line):
            examples.setdefault(m[1], []).append(m[2])
    return active, examples


def server_options() -> set[str]:
    help_text = subprocess.run(
        [sys.executable, "-m", "tilehall.server.app", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    return set(re.findall(r"(--[a-z][a-z-]+)", help_text)) - {"--help"}


def test_the_example_configuration_names_every_option():
    missing = {opt for opt in server_options() if opt not in ENV}
    assert not missing, f"deploy/tilehall.env does not mention {sorted(missing)}"


def test_the_unit_passes_exactly_the_groups_the_configuration_defines():
    active, examples = env_groups()
    start = re.search(r"^ExecStart=(.*)$", UNIT, re.M)[1]
    assert start.split()[0] == "/opt/tilehall/bin/tilehall-server"
    assert re.findall(r"\$(TILEHALL_[A-Z]+)", start) == list(active)
    assert set(examples) <= set(active)
    assert re.search(r"^User=tilehall$", UNIT, re.M) and "KillSignal=SIGTERM" in UNIT


def test_every_configuration_line_is_accepted_by_the_server():
    active, examples = env_groups()
    base = [arg for value in active.values() for arg in value.split()]
    argvs = [base]
    for group, values in examples.items():
        for value in values:  # each example in place of the active line
            argvs.append(
                [a for g, v in active.items() for a in (value if g == group else v).split()]
            )
    configs = parse(argvs)
    assert configs[0]["host"] == "127.0.0.1" and configs[0]["port"] == 8765
    assert configs[0]["mqtt"] is None
    cluster = [c for c in configs if c["mqtt"]]
    assert cluster and all(c["node"] for c in cluster)
    assert any(c["db"] and c["db"].startswith("postgresql://") for c in configs)


def test_the_compose_node_is_a_valid_cluster_node_behind_the_image_entrypoint():
    entry = json.loads(re.search(r"^ENTRYPOINT (\[.*\])$", DOCKERFILE, re.M)[1])
    assert entry[0] == "tilehall-server"
    node = re.search(r"^  node:\n((?:    .*\n|\n)+)", COMPOSE, re.M)[1]
    args = re.findall(r"^      - (--\S+)$", node, re.M)
    args = [a.replace("${TILEHALL_PUBLIC_URL:-ws://localhost:8765}", "ws://lb:8765") for a in args]
    [config] = parse([entry[1:] + args])
    assert config["host"] == "0.0.0.0"
    assert config["node"] == socket.gethostname(), "no --node: each replica takes its host name"
    assert config["db"].startswith("postgresql://") and config["mqtt"].startswith("mqtt://")
    for service in ("postgres:", "mosquitto:", "node:", "haproxy:"):
        assert f"\n  {service}" in COMPOSE
    assert "container_name" not in node and "ports:" not in node, "replicas can scale"


def test_no_password_is_on_a_command_line_or_in_the_repository():
    """Passwords come from files the host makes (Docker secrets), never from argv."""
    for url in re.findall(r"(?:postgresql|mqtt)s?://\S+", COMPOSE + ENV + UNIT):
        assert not re.match(r"\w+://[^/@\s]*:[^/@\s]*@", url), url
    assert "--db-password-file=/run/secrets/postgres_password" in COMPOSE
    assert "--mqtt-password-file=/run/secrets/mqtt_password" in COMPOSE
    assert "POSTGRES_PASSWORD_FILE: /run/secrets/postgres_password" in COMPOSE
    assert "deploy/secrets/" in (ROOT / ".gitignore").read_text()
    mosquitto = (DEPLOY / "mosquitto.conf").read_text()
    assert "allow_anonymous false" in mosquitto and "password_file" in mosquitto


def test_health_checks_ask_readiness_on_the_configured_port():
    check = re.search(r"^  CMD (\[.*\])$", DOCKERFILE, re.M)[1]
    assert json.loads(check) == ["tilehall-server", "admin", "health"]
    haproxy = (DEPLOY / "haproxy.cfg").read_text()
    assert "option httpchk GET /readyz" in haproxy
    assert re.search(r"server-template node \S+ node:8765 check", haproxy)
    assert "bind :8765" in haproxy and '"8765:8765"' in COMPOSE
    assert "--trusted-proxy=10.89.0.10" in COMPOSE and "ipv4_address: 10.89.0.10" in COMPOSE


def test_the_image_runs_as_an_unprivileged_user_with_the_cluster_extra():
    assert "'.[cluster]'" in DOCKERFILE
    users = re.findall(r"^USER (\S+)$", DOCKERFILE, re.M)
    assert users and users[-1].split(":")[0] not in ("root", "0")
    assert shlex.split(re.search(r"^EXPOSE (.*)$", DOCKERFILE, re.M)[1]) == ["8765"]
