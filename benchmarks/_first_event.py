"""Time to first event, per wire API, against the floor's time to first byte (issue 32, item 5).

Both read the same short reply (200 text deltas) from the loopback server (``_loopback_server``,
another process), over a kept-alive connection, interleaved call by call:

- ``floor``: wall time from sending the request with ``httpx2`` to the first bytes of the body
  (the least any client can wait);
- ``pi-sdk``: wall time from calling ``pi_sdk.stream`` to its first event (``start``, which
  pi-sdk yields once the reply's first bytes are in) and to its first content delta.

Both then read the reply to its end (not timed), so the connection goes back to the pool as in an
application. The figure is the median over ``rounds`` calls of each, in µs, and pi-sdk's added
time is its median minus the floor's (target: at most 1 ms).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import httpx2
from _consumers import PROMPT, pi_model
from _loopback_server import LoopbackServer
from _wire_bodies import MODELS, body
from _workloads import Workload

import pi_sdk
from pi_sdk import Context, StreamOptions, UserMessage

SHORT = Workload("short", text=[f" word{i}" for i in range(200)])
"""The reply every call reads: short, so the first event is most of what is timed."""


@dataclass
class FirstEvent:
    """One API's medians, in seconds."""

    floor: float
    first_event: float
    first_delta: float

    @property
    def added(self) -> float:
        """pi-sdk's first event minus the floor's first byte."""
        return self.first_event - self.floor


async def _floor(client: httpx2.AsyncClient, api: str, url: str) -> float:
    request = {"model": MODELS[api], "stream": True, "messages": [{"role": "user", "content": ""}]}
    path = "/model/x/converse-stream" if api == "bedrock" else "/stream"
    first = 0.0
    start = time.perf_counter()
    async with client.stream("POST", f"{url}{path}", json=request) as response:
        async for _ in response.aiter_bytes():
            if not first:
                first = time.perf_counter() - start
    return first


async def _pi_sdk(
    model: pi_sdk.Model, context: Context, options: StreamOptions
) -> tuple[float, float]:
    first = delta = 0.0
    start = time.perf_counter()
    stream = pi_sdk.stream(model, context, options)
    async for event in stream:
        if not first:
            first = time.perf_counter() - start
        if not delta and event.type.endswith("_delta"):
            delta = time.perf_counter() - start
    message = await stream.result()
    assert message.stop_reason == "stop", message.error_message
    return first, delta


async def measure(server: LoopbackServer, apis: list[str], rounds: int) -> dict[str, FirstEvent]:
    """Every API's medians over ``rounds`` interleaved calls (after one untimed call each)."""
    results: dict[str, FirstEvent] = {}
    async with httpx2.AsyncClient(timeout=None) as floor_client:
        for api in apis:
            name = f"first-event-{api}"
            server.add(name, *body(api, SHORT))
            server.select(name)
            model = pi_model(api, server.url)
            context = Context(messages=[UserMessage(content=PROMPT)])
            options = StreamOptions(api_key="bench-key", max_retries=0)  # pi-sdk's own client
            await _floor(floor_client, api, server.url)
            await _pi_sdk(model, context, options)
            floors: list[float] = []
            firsts: list[float] = []
            deltas: list[float] = []
            for _ in range(rounds):
                floors.append(await _floor(floor_client, api, server.url))
                first, delta = await _pi_sdk(model, context, options)
                firsts.append(first)
                deltas.append(delta)
            results[api] = FirstEvent(
                statistics.median(floors), statistics.median(firsts), statistics.median(deltas)
            )
    return results


def print_first_event(results: dict[str, FirstEvent], rounds: int) -> None:
    """One line per API: the floor's first byte, pi-sdk's first event and delta, the difference."""
    print(f"wall time to the first event, median of {rounds} interleaved calls, µs")
    print(f"{'api':<10} {'floor byte':>10} {'pi event':>9} {'pi delta':>9} {'added':>8}")
    for api, result in results.items():
        print(
            f"{api:<10} {result.floor * 1e6:>10.0f} {result.first_event * 1e6:>9.0f}"
            f" {result.first_delta * 1e6:>9.0f} {result.added * 1e6:>8.0f}"
        )
