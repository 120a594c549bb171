"""CPU per stream with many streams at once (issue 16, item 2), for ``benchmarks/run.py``.

N streams (Chat Completions, 20 text deltas each) are started together on one event loop
against the loopback server and their CPU time (``time.process_time``) is divided by N. The
columns, visited in turn at every level of every round (a busy moment of the shared machine hits
all alike):

* ``1 pool``: pi-sdk on one httpx2 pool with the openai SDK's default limits (1,000
  connections, 100 kept alive);
* ``pooled``: pi-sdk on :class:`pi_sdk.provider.PooledTransport` (what pi-sdk builds);
* ``tuned``: the same, with :func:`pi_sdk.tune_gc_for_streams` applied for its bursts
  (the start-up heap frozen, a young generation of 50,000; undone after each burst, so the other
  columns run with CPython's defaults);
* ``floor``: httpx2 on a ``PooledTransport``, a minimal SSE split and ``json.loads``: what the
  transport alone costs.

Every client keeps its connections alive for the whole run and is warmed up to 1,000
connections first (connection reuse: no connects in the timed part). Printed per column and
level: ms per stream (median), its ratio to the first level (target: at most 1.2 at 1,000
against 100), and the cyclic GC's share (``gc.callbacks``: ms per stream spent in collections);
then the GC-tracked objects one stream holds in flight (peak net allocations of containers over
a burst with the collector off, per stream): what each collection has to walk.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import time
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

import httpx2
import openai
from _consumers import Run, floor_consumer, pi_sdk_consumer
from _loopback_server import LoopbackServer
from _wire_bodies import body
from _workloads import Workload

from pi_sdk import tune_gc_for_streams
from pi_sdk.provider import PooledTransport

_WORKLOAD = Workload("short", text=[f" word{i}" for i in range(20)])
_KEEPALIVE = 600.0
"""Seconds an idle connection is kept: longer than the run, so every level reuses them."""


class _GcClock:
    """CPU seconds spent in cyclic-GC collections while it is installed (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.process_time()
        else:
            self.seconds += time.process_time() - self._began

    @contextmanager
    def installed(self) -> Any:
        self.seconds = 0.0
        gc.callbacks.append(self)
        try:
            yield self
        finally:
            gc.callbacks.remove(self)


@contextmanager
def _defaults() -> Any:
    yield


@contextmanager
def _tuned() -> Any:
    restore = tune_gc_for_streams()
    try:
        yield
    finally:
        restore()


async def _burst(run: Run, streams: int) -> tuple[float, float]:
    """CPU seconds per stream of ``streams`` concurrent calls (each must get the whole text),
    and the GC's part of them."""
    want = _WORKLOAD.expected()
    gc.collect()
    with _GcClock().installed() as clock:
        began = time.process_time()
        outputs = await asyncio.gather(*(run() for _ in range(streams)), return_exceptions=True)
        seconds = time.process_time() - began
    failed = [o for o in outputs if o != want]
    if failed:
        raise RuntimeError(f"{len(failed)} of {streams} concurrent streams failed: {failed[0]!r}")
    return seconds / streams, clock.seconds / streams


async def _objects_in_flight(run: Run, streams: int) -> float:
    """Peak net GC-tracked allocations per stream of a burst, with the collector off."""
    gc.collect()  # the young generation's count starts at 0
    peak = 0
    done = False

    async def watch() -> None:
        nonlocal peak
        while not done:
            peak = max(peak, gc.get_count()[0])
            await asyncio.sleep(0)

    gc.disable()
    try:
        watcher = asyncio.ensure_future(watch())
        await asyncio.gather(*(run() for _ in range(streams)))
        done = True
        await watcher
    finally:
        gc.enable()
    return peak / streams


async def _warm(run: Run, streams: int) -> None:
    """Open the connections ``streams`` calls need, a hundred at a time (connects time out
    on a busy machine when a thousand start at once)."""
    for size in range(100, streams + 1, 100):
        await asyncio.gather(*(run() for _ in range(size)), return_exceptions=True)


def _client(url: str, transport: httpx2.AsyncBaseTransport) -> openai.AsyncOpenAI:
    """The client pi-sdk's openai provider builds, on ``transport``, with a connect timeout
    long enough for a busy shared machine (a thousand connects at once)."""
    timeout = httpx2.Timeout(600, connect=120)
    http = openai.DefaultAsyncHttpxClient(transport=transport, timeout=timeout)
    return openai.AsyncOpenAI(
        base_url=f"{url}/v1", api_key="bench-key", max_retries=0, http_client=http
    )


def _one_pool() -> httpx2.AsyncBaseTransport:
    """The openai SDK's default pool: 1,000 connections, 100 kept alive."""
    limits = httpx2.Limits(
        max_connections=1000, max_keepalive_connections=100, keepalive_expiry=_KEEPALIVE
    )
    return httpx2.AsyncHTTPTransport(limits=limits)


def _columns(url: str) -> dict[str, tuple[Run, Callable[[], Any]]]:
    """Each column's consumer and the GC settings its bursts run under."""
    floor = httpx2.AsyncClient(transport=PooledTransport(keepalive_expiry=_KEEPALIVE), timeout=None)
    pooled = pi_sdk_consumer(
        "chat", url, _client(url, PooledTransport(keepalive_expiry=_KEEPALIVE))
    )
    return {
        "1 pool": (pi_sdk_consumer("chat", url, _client(url, _one_pool())), _defaults),
        "pooled": (pooled, _defaults),
        "tuned": (pooled, _tuned),
        "floor": (floor_consumer("chat", url, floor), _defaults),
    }


async def concurrency_table(
    server: LoopbackServer, levels: list[int], rounds: int
) -> dict[str, dict[int, float]]:
    """Print CPU per stream (and the GC's part) at each of ``levels`` concurrent streams;
    return the medians (seconds per stream) by column and level."""
    server.add("concurrency", *body("chat", _WORKLOAD))
    server.select("concurrency")
    columns = _columns(server.url)
    for run, _ in columns.values():
        await _warm(run, max(levels))
    times: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for number in range(rounds):
        for level in levels:
            for name, (run, settings) in columns.items():
                with settings():
                    times.setdefault((name, level), []).append(await _burst(run, level))
        print(f"concurrency round {number + 1}/{rounds} done", flush=True)
    print(
        f"\nconcurrent streams ({len(_WORKLOAD.text)} deltas each): CPU ms per stream, median of"
        f" {rounds} rounds; ratio to {levels[0]} streams; gc: ms per stream in collections"
    )
    print(f"{'streams':>8}" + "".join(f" {name:>9} {'ratio':>5} {'gc':>5}" for name in columns))
    medians = {
        name: {level: statistics.median(t for t, _ in times[(name, level)]) for level in levels}
        for name in columns
    }
    for level in levels:
        row = f"{level:8d}"
        for name in columns:
            value, first = medians[name][level], medians[name][levels[0]]
            collecting = statistics.median(g for _, g in times[(name, level)])
            row += f" {value * 1e3:9.3f} {value / first:5.2f} {collecting * 1e3:5.2f}"
        print(row)
    held = {
        name: await _objects_in_flight(columns[name][0], levels[0]) for name in ("pooled", "floor")
    }
    print(
        "GC-tracked objects per stream in flight:"
        + "".join(f" {name} {count:.0f}" for name, count in held.items())
    )
    return medians
