"""``tilehall-server``'s options: every name, default, type and rule that deployments rely on."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import re
import socket
import typing
from pathlib import Path
from typing import Any

import pytest
from tilehall.server.app import parse_args
from tilehall.server.config import (
    Config,
    Limits,
    add_options,
    option_name,
    read_options,
    setting,
)
from tilehall.server.ops.logs import JsonFormatter

OLD_OPTIONS = {
    "--host": "0.0.0.0",
    "--port": "9000",
    "--data-dir": "/srv/tilehall",
    "--certfile": "chain.pem",
    "--keyfile": "key.pem",
    "--db": "postgresql://tilehall@db/tilehall",
    "--node": "game1",
    "--mqtt": "mqtt://broker:1883/th",
    "--mqtt-keepalive": "7",
    "--log-level": "warning",
    "--log-format": "json",
    "--loop": "uvloop",
    "--max-frame": "1000",
    "--rate": "3",
    "--burst": "9",
    "--initial-burst": "4",
    "--max-strikes": "5",
    "--send-queue": "6",
    "--ping-interval": "1.5",
    "--ping-timeout": "2.5",
    "--close-timeout": "3.5",
    "--max-conns-per-ip": "8",
    "--flood-ban": "0",
    "--trusted-proxy": "10.0.0.1",
    "--finished-ttl": "8.5",
    "--bot-delay": "0",
    "--bot-think": "0.75",
}
"""Every option ``tilehall-server`` has had, with a value other than its default."""

EXPECTED = Config(
    host="0.0.0.0",
    port=9000,
    data_dir=Path("/srv/tilehall"),
    certfile=Path("chain.pem"),
    keyfile=Path("key.pem"),
    db="postgresql://tilehall@db/tilehall",
    node="game1",
    mqtt="mqtt://broker:1883/th",
    mqtt_keepalive=7,
    loop="uvloop",
    trusted_proxies=("10.0.0.1/32", "10.8.0.0/16"),
    limits=Limits(
        max_frame=1000,
        rate=3.0,
        burst=9,
        initial_burst=4,
        max_strikes=5,
        send_queue=6,
        ping_interval=1.5,
        ping_timeout=2.5,
        close_timeout=3.5,
        max_connections_per_ip=8,
        flood_ban=0.0,
        finished_ttl=8.5,
        bot_delay=0.0,
        bot_think=0.75,
    ),
)


@pytest.fixture
def logs(monkeypatch) -> list[dict[str, Any]]:
    """What parse_args asks of logging.basicConfig (it would reconfigure the test's logging)."""
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(logging, "basicConfig", lambda **kwargs: calls.append(kwargs))
    return calls


def _same(got: Any, want: Any, where: str = "config") -> None:
    """Equal, and of the same types field by field (3 == 3.0 would hide an int for a float)."""
    assert got == want, where
    for f in dataclasses.fields(want):
        a, b = getattr(got, f.name), getattr(want, f.name)
        if dataclasses.is_dataclass(b):
            _same(a, b, f"{where}.{f.name}")
        else:
            assert type(a) is type(b), (f"{where}.{f.name}", a, b)


def test_every_old_option_still_parses_to_the_same_config(logs):
    argv = [x for opt, value in OLD_OPTIONS.items() for x in (opt, value)]
    argv += ["--trusted-proxy", "10.8.1.2/16"]  # repeated, and normalised to its network
    _same(parse_args(argv), EXPECTED)
    (call,) = logs
    assert call["level"] == "WARNING" and call["force"] is True
    assert isinstance(call["handlers"][0].formatter, JsonFormatter)


def test_no_options_is_the_default_config(logs, monkeypatch, tmp_path):
    monkeypatch.setenv("TILEHALL_DATA", str(tmp_path))
    _same(parse_args([]), Config(data_dir=tmp_path))
    (call,) = logs
    assert call["level"] == "INFO"
    assert not isinstance(call["handlers"][0].formatter, JsonFormatter)


def test_numbers_take_their_field_types(logs):
    config = parse_args(["--rate", "7", "--flood-ban", "2", "--port", "0", "--bot-think", "1"])
    assert type(config.limits.rate) is float and config.limits.rate == 7.0
    assert type(config.limits.flood_ban) is float and type(config.limits.bot_think) is float
    assert type(config.port) is int and config.port == 0


def test_zero_turns_keepalive_off_but_leaves_other_zeros_alone(logs):
    limits = parse_args(
        ["--ping-interval", "0", "--ping-timeout", "0", "--max-conns-per-ip", "0",
         "--flood-ban", "0", "--bot-delay", "0"]
    ).limits  # fmt: skip
    assert limits.ping_interval is None and limits.ping_timeout is None
    assert limits.max_connections_per_ip == 0 and limits.flood_ban == 0.0
    assert limits.bot_delay == 0.0


def test_the_node_defaults_to_the_host_name_only_in_cluster_mode(logs):
    assert parse_args([]).node == ""
    assert parse_args(["--mqtt", "mqtt://b:1883"]).node == socket.gethostname()
    assert parse_args(["--mqtt", "mqtt://b:1883", "--node", "n2"]).node == "n2"
    assert parse_args(["--node", "n3"]).node == "n3"


@pytest.mark.parametrize(
    "argv",
    [
        ["--port", "eighty"],
        ["--rate", "fast"],
        ["--burst", "1.5"],
        ["--loop", "trio"],
        ["--log-level", "loud"],
        ["--log-format", "xml"],
        ["--trusted-proxy", "proxy.internal"],
        ["--max-connections-per-ip", "3"],
        ["--no-such-option"],
    ],
)
def test_bad_values_and_unknown_names_are_refused(logs, argv, capsys):
    with pytest.raises(SystemExit) as exc:
        parse_args(argv)
    assert exc.value.code == 2
    assert "error:" in capsys.readouterr().err
    assert logs == []


def test_help_lists_every_old_option(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    out = capsys.readouterr().out
    for opt in OLD_OPTIONS:
        assert opt in out


def _settings(cls: type = Config) -> list[dataclasses.Field]:
    """Every setting of ``cls``, those of its nested settings classes included."""
    out = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if dataclasses.is_dataclass(hints[f.name]):
            out += _settings(hints[f.name])
        else:
            out.append(f)
    return out


def _help(capsys) -> str:
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    return capsys.readouterr().out


def test_every_setting_has_exactly_one_option_and_nothing_else_has_one(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    listed = re.findall(r"^  (?:-\w, )?(--[a-z][a-z-]*)", _help(capsys), re.M)
    names = [option_name(f) for f in _settings()]
    assert len(names) == len(set(names))
    assert sorted(listed) == sorted([*names, "--help", "--log-level", "--log-format"])


def test_help_shows_every_settings_doc(capsys):
    out = "".join(_help(capsys).split())
    for f in _settings():
        doc = re.sub(r":\w+:`([^`]*)`", r"\1", f.metadata["doc"]).replace("``", "")
        assert "".join(doc.split()) in out, f.name


@dataclasses.dataclass(frozen=True, kw_only=True)
class Inner:
    """Settings nested in others, like Config.limits."""

    per_room: int = setting(3, doc="Rooms per player.")
    wait: float | None = setting(1.5, doc="Seconds to wait; None (0) waits for ever.")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Outer:
    """Settings of every shape Config has."""

    name: str = setting("x", doc="A name.")
    where: Path = setting(factory=lambda: Path("/d"), doc="A folder.")
    mode: str = setting("a", choices=("a", "b"), doc="A mode.")
    tags: tuple[str, ...] = setting((), flag="--tag", parse=str.upper, doc="Tags.")
    inner: Inner = dataclasses.field(default_factory=Inner)


def test_a_new_field_is_a_new_option():
    """What the limits to come rely on: declaring the field is all it takes."""

    def parse(*argv: str) -> Outer:
        p = argparse.ArgumentParser()
        add_options(p, Outer)
        return read_options(p.parse_args(argv), Outer)

    assert parse() == Outer()
    got = parse("--name", "y", "--where", "/e", "--mode", "b", "--tag", "p", "--tag", "q",
                "--per-room", "4", "--wait", "0")  # fmt: skip
    assert got == Outer(
        name="y", where=Path("/e"), mode="b", tags=("P", "Q"), inner=Inner(per_room=4, wait=None)
    )
    assert isinstance(got.where, Path) and type(parse("--wait", "2").inner.wait) is float


def test_no_web_is_a_switch_that_turns_the_page_off(logs, capsys):
    assert parse_args([]).web is True
    assert parse_args(["--no-web"]).web is False
    with pytest.raises(SystemExit):
        parse_args(["--no-web", "yes"])
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    shown = capsys.readouterr().out
    assert "--no-web" in shown and "(default True)" not in shown
