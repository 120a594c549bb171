"""CPU per stream with many streams at once (issue 16, item 2), for ``benchmarks/run.py``.

N pi-sdk streams (Chat Completions, 20 text deltas each) are started together on one event loop
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
from collections.abc import Callable

import httpx2
import openai
from _consumers import Run, floor_consumer, pi_sdk_consumer
from _loopback_server import LoopbackServer
from _wire_bodies import body
from _workloads import Workload

from pi_sdk.provider import PooledTransport

_WORKLOAD = Workload("short", text=[f" word{i}" for i in range(20)])


async def _burst(run: Run, streams: int) -> float:
    """CPU seconds per stream of ``streams`` concurrent calls (each must get the whole text)."""
    gc.collect()
    began = time.process_time()
    outputs = await asyncio.gather(*(run() for _ in range(streams)), return_exceptions=True)
    seconds = time.process_time() - began
    want = _WORKLOAD.expected()
    failed = [o for o in outputs if o != want]
    if failed:
        raise RuntimeError(f"{len(failed)} of {streams} concurrent streams failed: {failed[0]!r}")
    return seconds / streams


async def _warm(run: Run, streams: int) -> None:
    """Open the connections ``streams`` calls need, a hundred at a time (connects time out
    on a busy machine when a thousand start at once)."""
    for size in range(100, streams + 1, 100):
        await asyncio.gather(*(run() for _ in range(size)), return_exceptions=True)


def _client(url: str, transport: httpx2.AsyncBaseTransport) -> openai.AsyncOpenAI:
    """The client pi-sdk's openai provider builds, on ``transport``, with a connect timeout and
    keep-alive long enough for a busy shared machine (a thousand connects at once)."""
    timeout = httpx2.Timeout(600, connect=120)
    http = openai.DefaultAsyncHttpxClient(transport=transport, timeout=timeout)
    return openai.AsyncOpenAI(
        base_url=f"{url}/v1", api_key="bench-key", max_retries=0, http_client=http
    )


_TRANSPORTS: dict[str, Callable[[int], httpx2.AsyncBaseTransport]] = {
    # the openai SDK's default pool: 1,000 connections, 100 kept alive
    "1 pool, sdk": lambda n: httpx2.AsyncHTTPTransport(
        limits=httpx2.Limits(
            max_connections=1000, max_keepalive_connections=100, keepalive_expiry=120
        )
    ),
    "pooled": lambda n: PooledTransport(keepalive_expiry=120),
}


async def concurrency_table(
    server: LoopbackServer, levels: list[int], rounds: int
) -> dict[str, dict[int, float]]:
    """Print CPU per stream at each of ``levels`` concurrent streams; return the medians
    (seconds per stream) by consumer and level."""
    server.add("concurrency", *body("chat", _WORKLOAD))
    server.select("concurrency")
    # The floor: one httpx2 pool allowed to hold every connection, no timeouts (a busy machine).
    limits = httpx2.Limits(max_connections=max(levels), max_keepalive_connections=max(levels))
    client = httpx2.AsyncClient(limits=limits, timeout=None)
    floor_run = floor_consumer("chat", server.url, client)
    consumers = {
        name: pi_sdk_consumer("chat", server.url, _client(server.url, transport(max(levels))))
        for name, transport in _TRANSPORTS.items()
    }
    consumers["floor"] = floor_run
    times: dict[tuple[str, int], list[float]] = {}
    for run in consumers.values():
        await _warm(run, max(levels))
    for _ in range(rounds):
        for level in levels:
            for name, run in consumers.items():
                times.setdefault((name, level), []).append(await _burst(run, level))
    print(f"\nconcurrent streams ({len(_WORKLOAD.text)} deltas each): CPU ms per stream, median")
    print(f"{'streams':>8}" + "".join(f" {name:>12} {'ratio':>6}" for name in consumers))
    medians = {
        name: {level: statistics.median(times[(name, level)]) for level in levels}
        for name in consumers
    }
    for level in levels:
        row = f"{level:8d}"
        for name in consumers:
            value, first = medians[name][level], medians[name][levels[0]]
            row += f" {value * 1e3:12.3f} {value / first:6.2f}"
        print(row)
    return medians
