"""What reading one client frame costs the server: ``decode`` on frames of chosen shapes.

Issue 42 made a client's frame follow transport rules (string keys, each once,
checked on every map; one nesting bound for every field, read or not; a walker
for frames nested past msgpack's own limit). This times
:func:`tilehall.protocol.decode` on the frames that exercise each, from an
everyday ``act`` to the worst 64 KiB a client may send, so the rules' price is
a number, not a guess::

    python -m bench.codec              # every frame, the median of 5 runs each
    python -m bench.codec --runs 15

The figure is CPU time per frame (``time.thread_time_ns``), which a loaded
machine does not inflate as it does wall time. A refused frame counts as read
(its refusal is what the server computes). Run it on two checkouts to compare.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import msgpack
from tilehall.protocol import ProtocolError, decode
from tilehall.server.build import build_name

FRAME = 64 * 1024
"""The default frame limit: the largest a client may send."""


def _map(*pairs: bytes) -> bytes:
    return bytes([0x80 | len(pairs) // 2]) + b"".join(pairs)


P = msgpack.packb


def _unread(value: bytes) -> bytes:
    """A ``ping`` whose unread field ``later`` holds ``value`` (packed), and an ``id`` after."""
    return _map(P("t"), P("ping"), P("later"), value, P("id"), P(7))


def _array(items: bytes, n: int) -> bytes:
    return b"\xdd" + n.to_bytes(4, "big") + items * n


ACT = {"t": "act", "room": "r1a2b3c4", "action": {"do": "place", "at": [3, 4]}, "seq": 9, "id": 6}

FRAMES: dict[str, bytes] = {
    "act (everyday)": P(ACT),
    "64 KiB: 16,000 small maps": _unread(_array(b"\x81\xa1a\x00", 16_000)),
    "64 KiB: 64,000 ints": _unread(_array(b"\x01", 64_000)),
    "64 KiB: 32,000 short strings": _unread(_array(b"\xa1a", 32_000)),
    "64 KiB: one list 65,000 deep": _unread(b"\x91" * 65_000 + b"\x00"),
    "64 KiB: pairs 32,000 deep": _unread(b"\x92" * 32_000 + b"\x00" * 32_001),
    "64 KiB: maps 21,000 deep": _unread(b"\x81\xa1a" * 21_000 + b"\x00"),
}


def cost(data: bytes, runs: int) -> tuple[float, str]:
    """The median CPU microseconds of ``decode(data)``, and what it answered."""
    said = ""
    samples = []
    read: Callable[[], object] = lambda: decode(data, max_size=FRAME * 2)  # noqa: E731
    for _ in range(runs):
        start = time.thread_time_ns()
        try:
            msg = read()
            said = str(msg.get("t")) if isinstance(msg, dict) else "?"
        except ProtocolError as exc:
            said = exc.code
        samples.append((time.thread_time_ns() - start) / 1000)
    return statistics.median(samples), said


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each frame (median)")
    args = parser.parse_args()
    print(f"build: {build_name()}")
    print("| frame | bytes | CPU per frame (µs) | answer |\n|---|---:|---:|---|")
    for name, data in FRAMES.items():
        micros, said = cost(data, args.runs)
        print(f"| {name} | {len(data):,} | {micros:,.1f} | {said} |")


if __name__ == "__main__":
    main()
