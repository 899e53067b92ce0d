"""deploy/ stays true to the server: every option documented, every example accepted."""

from __future__ import annotations

import json
import re
import shlex
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
        "from server.app import parse_args\n"
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
        [sys.executable, "-m", "server.app", "--help"],
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


def test_the_compose_nodes_are_a_valid_cluster_behind_the_image_entrypoint():
    entry = json.loads(re.search(r"^ENTRYPOINT (\[.*\])$", DOCKERFILE, re.M)[1])
    assert entry[0] == "tilehall-server"
    nodes = re.findall(r"^  (node\d):\n((?:    .*\n)+)", COMPOSE, re.M)
    assert [n for n, _ in nodes] == ["node1", "node2"]
    argvs = []
    for _, body in nodes:
        args = re.findall(r"^      - (--\S+)$", body, re.M)
        args = [a.replace("${POSTGRES_PASSWORD:-tilehall}", "pw") for a in args]
        argvs.append(entry[1:] + args)
    configs = parse(argvs)
    assert [c["node"] for c in configs] == ["node1", "node2"]
    assert all(c["host"] == "0.0.0.0" for c in configs)
    assert len({c["mqtt"] for c in configs}) == 1 and len({c["db"] for c in configs}) == 1
    assert configs[0]["db"].startswith("postgresql://")
    for service in ("postgres:", "mosquitto:", "node1:", "node2:"):
        assert f"\n  {service}" in COMPOSE


def test_the_image_runs_as_an_unprivileged_user_with_the_cluster_extra():
    assert "'.[cluster]'" in DOCKERFILE
    users = re.findall(r"^USER (\S+)$", DOCKERFILE, re.M)
    assert users and users[-1].split(":")[0] not in ("root", "0")
    assert shlex.split(re.search(r"^EXPOSE (.*)$", DOCKERFILE, re.M)[1]) == ["8765"]
