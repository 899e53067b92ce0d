"""The report: JSON for keeping, a table for reading, each figure next to its baseline."""

from __future__ import annotations

from typing import Any

from bench.load.config import LoadConfig

__all__ = ["config_json", "table"]


def config_json(cfg: LoadConfig) -> dict[str, Any]:
    """The run's settings, as the report records them."""
    return {k: getattr(cfg, k) for k in cfg.__dataclass_fields__}


def table(report: dict[str, Any]) -> str:
    """The figures that matter, one per line, each next to its baseline."""
    rows: list[tuple[str, str, str]] = []

    def add(name: str, value: Any, base: Any = "") -> None:
        rows.append((name, "-" if value is None else str(value), "" if base is None else str(base)))

    m = report.get("machine", {})
    add("machine", f"{m.get('nproc')} cpu, {m.get('memory_gib')} GiB, python "
        f"{m.get('python')}, websockets {m.get('websockets')}")  # fmt: skip
    if idle := report.get("idle"):
        add("idle: connections", idle["connections"])
        add(
            "idle: server KiB per connection",
            idle.get("kib_per_connection"),
            f"bare websockets {idle.get('baseline_kib_per_connection')}",
        )
    if rooms := report.get("rooms"):
        echo = rooms.get("baseline_echo", {})
        ratio = rooms.get("ratio_to_echo")
        add(f"rooms: {rooms['rooms']} rooms moves/s", rooms["moves_per_s"],
            f"bare echo {echo.get('round_trips_per_s')} rt/s, ratio {ratio}")  # fmt: skip
        for q in ("p50_ms", "p95_ms", "p99_ms"):
            add(f"rooms: act->update {q}", rooms["act_update_rtt"][q],
                f"bare echo {echo.get('rtt', {}).get(q)}")  # fmt: skip
        add("rooms: bot think ms/move", rooms["think_ms_per_move"])
        add("rooms: frame bytes act/update", f"{rooms['act_bytes']}/{rooms['update_bytes']}",
            f"update median {rooms.get('update_bytes_median')}")  # fmt: skip
        add("rooms: server cpu %", rooms["server_cpu_pct"], f"bare {echo.get('server_cpu_pct')}")
        add("rooms: server cpu us per move", rooms["server_cpu_us_per_move"],
            f"bare us per round trip {echo.get('server_cpu_us_per_round_trip')}")  # fmt: skip
        if rooms.get("server_loop_cpu_us_per_move") is not None:
            loop = rooms["server_loop_cpu_us_per_move"]
            others = round(rooms["server_cpu_us_per_move"] - loop, 2)
            add("rooms: of which the loop's thread", loop,
                f"other threads (journal, hashing) {others}")  # fmt: skip
        if "server_collections" in rooms:
            by_gen, build = rooms["server_collections"], rooms["server_build"]
            add("rooms: server collections per 1,000 moves",
                rooms["server_collections_per_1000_moves"],
                f"by generation {by_gen}, build {build}")  # fmt: skip
        add("rooms: errors", rooms["errors"] or 0)
    if fan := report.get("fanout"):
        bare = fan.get("baseline_broadcast", {})
        ratio = fan.get("ratio_to_broadcast")
        add(f"fanout: {fan['spectators']} spectators frames/s", fan["delivery_per_s"],
            f"bare broadcast {bare.get('delivery_per_s')}, ratio {ratio}")  # fmt: skip
        add("fanout: moves/s", fan["moves_per_s"], f"bare msgs/s {bare.get('messages_per_s')}")
        for q in ("p50_ms", "p99_ms"):
            add(f"fanout: spectator lag {q}", fan["lag"][q],
                f"bare {bare.get('lag', {}).get(q)}")  # fmt: skip
        add("fanout: completeness", fan["completeness"], f"bare {bare.get('completeness')}")
        add("fanout: server cpu us per frame", fan["server_cpu_us_per_frame"],
            f"bare {bare.get('server_cpu_us_per_frame')}")  # fmt: skip
        add("fanout: watch setup s", fan["watch_setup_s"])
        add("fanout: spectators lost", fan["spectators_lost"])
    if j := report.get("journal"):
        add("journal: committed actions/s", j["committed_per_s"],
            f"{j['rooms']} rooms, p99 {j['append_latency']['p99_ms']} ms")  # fmt: skip
    if srv := report.get("server"):
        add("server rss / peak MiB", f"{srv.get('rss_mib')} / {srv.get('peak_rss_mib')}")
    if cg := report.get("client_gc"):
        add("harness gc collections / ms", f"{cg['collections']} / {cg['total_ms']}",
            f"{cg['over_5ms']} over 5 ms, collector {cg.get('mode', 'tuned')}, "
            f"peak rss {cg.get('client_rss_mib')} MiB")  # fmt: skip
    w = max(len(r[0]) for r in rows)
    v = max(len(r[1]) for r in rows)
    return "\n".join(f"{a:<{w}}  {b:>{v}}  {c}".rstrip() for a, b, c in rows)
