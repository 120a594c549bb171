"""CPU per stream with many streams at once (issue 16, item 2), for ``benchmarks/run.py``.

N pi-sdk streams (Chat Completions, 200 text deltas each) are started together on one event loop
against the loopback server, through pi-sdk's own cached client (its connection pool), and their
CPU time (``time.process_time``) is divided by N. Levels alternate within each round; a level is
run once before it is timed, so the pool holds its connections (connection reuse, no connects
in the timed part). Printed: ms per stream per level (median) and the ratio to the first level
(target: at most 1.2 at 1,000 against 100). The floor (one httpx2 client, ``json.loads``) at the
same levels shows what the transport alone costs.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import time

from _consumers import Run, floor_consumer, pi_sdk_consumer
from _loopback_server import LoopbackServer
from _wire_bodies import body
from _workloads import Workload

_WORKLOAD = Workload("short", text=[f" word{i}" for i in range(200)])


async def _burst(run: Run, streams: int) -> float:
    gc.collect()
    began = time.process_time()
    outputs = await asyncio.gather(*(run() for _ in range(streams)))
    seconds = time.process_time() - began
    want = _WORKLOAD.expected()
    assert all(o == want for o in outputs), "a concurrent stream got the wrong text"
    return seconds / streams


async def concurrency_table(server: LoopbackServer, levels: list[int], rounds: int) -> None:
    """Print CPU per stream at each of ``levels`` concurrent streams."""
    server.add("concurrency", *body("chat", _WORKLOAD))
    server.select("concurrency")
    floor_run = floor_consumer("chat", server.url)
    consumers = {"pi-sdk": pi_sdk_consumer("chat", server.url), "floor": floor_run}
    times: dict[tuple[str, int], list[float]] = {}
    for name, run in consumers.items():
        for level in levels:
            await _burst(run, level)  # warm: the pool opens its connections
    for _ in range(rounds):
        for level in levels:
            for name, run in consumers.items():
                times.setdefault((name, level), []).append(await _burst(run, level))
    print(f"\nconcurrent streams ({len(_WORKLOAD.text)} deltas each): CPU ms per stream, median")
    print(f"{'streams':>8}" + "".join(f" {name:>10} {'ratio':>6}" for name in consumers))
    for level in levels:
        row = f"{level:8d}"
        for name in consumers:
            value = statistics.median(times[(name, level)])
            first = statistics.median(times[(name, levels[0])])
            row += f" {value * 1e3:10.3f} {value / first:6.2f}"
        print(row)
