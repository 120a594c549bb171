"""One command for the side-by-side (issue 16): pi-sdk against the floor, the SDKs and peers.

Every consumer reads the same long bodies from a loopback HTTP server running in another process
(``_loopback_server.py``), over real sockets, with its own client stack:

* the workloads of ``_workloads.py``: 5,000 text deltas; 20 KB and 200 KB tool arguments in
  16-byte deltas; 20 calls x 10 KB;
* on every wire API of ``_wire_bodies.py``: ``chat`` (OpenAI Chat Completions), ``azure``
  (Azure OpenAI chat), ``mistral``, ``messages`` (Anthropic), ``responses`` (OpenAI
  Responses), ``gemini``, ``bedrock`` (ConverseStream);
* through the consumers of ``_consumers.py``, ``_sdk_consumers.py`` and ``_peers.py``:
  ``floor`` (httpx2 + ``json.loads`` + the same accumulation), ``pi-sdk``, ``sdk`` (the raw
  vendor SDK), ``pydantic-ai`` and ``litellm`` (from the ``bench`` dependency group:
  ``uv sync --all-packages --group bench``; a consumer whose package is missing shows ``-``).

Each consumer's output (the text, each call's name and parsed arguments) is checked against the
workload on every run; a consumer that gets it wrong is shown as ``WRONG`` and left out. Rounds
visit every (API, workload, consumer) cell in a new random order, so a busy moment of the shared
machine hits all alike; the table shows the median CPU time (``time.process_time``: this
process only, the server excluded) as µs per delta for the floor, and every consumer as a
multiple of the floor (target for pi-sdk: at most 1.2).

Then the concurrency figures (``_concurrency.py``): CPU per stream at 100, 500 and 1,000
concurrent streams (target: 1,000 at most 1.2x 100), with the GC's part: pi-sdk on one pool, on
``PooledTransport``, and with ``tune_gc_for_streams``; the floor (docs/concurrency.md).

Run: ``uv run python benchmarks/run.py [--rounds 5] [--apis chat,messages] [--workloads text]
[--consumers floor,pi-sdk] [--concurrency 100,500,1000] [--no-concurrency]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import statistics
import time
from typing import Any

from _concurrency import concurrency_table
from _consumers import AWS, Run, floor_consumer, pi_sdk_consumer
from _loopback_server import LoopbackServer
from _peers import litellm_consumer, pydantic_ai_consumer
from _sdk_consumers import sdk_consumer
from _wire_bodies import APIS, body
from _workloads import Output, Workload, workloads

CONSUMERS = {
    "floor": floor_consumer,
    "pi-sdk": pi_sdk_consumer,
    "sdk": sdk_consumer,
    "pydantic-ai": pydantic_ai_consumer,
    "litellm": litellm_consumer,
}


def _same(got: Output, want: Output) -> str:
    """Empty when ``got`` is what the workload holds, else what differs."""
    if got.text != want.text:
        return f"text of {len(got.text)} chars, expected {len(want.text)}"
    if got.calls != want.calls:
        return f"{len(got.calls)} calls / arguments differ (expected {len(want.calls)})"
    return ""


class Cell:
    """One (API, workload, consumer): its runs' CPU seconds, or why it has none."""

    def __init__(self, api: str, workload: Workload, consumer: str, run: Run | None) -> None:
        self.api, self.workload, self.consumer, self.run = api, workload, consumer, run
        self.times: list[float] = []
        self.problem = "-" if run is None else ""

    async def once(self, server: LoopbackServer) -> None:
        if self.run is None or self.problem:
            return
        server.select(f"{self.api}-{self.workload.name}")
        gc.collect()
        began = time.process_time()
        try:
            output = await self.run()
        except Exception as exc:  # a consumer that fails is reported, not fatal
            self.problem = f"ERROR {type(exc).__name__}: {str(exc)[:120]}"
            return
        seconds = time.process_time() - began
        wrong = _same(output, self.workload.expected())
        if wrong:
            self.problem = f"WRONG ({wrong})"
            return
        self.times.append(seconds)

    @property
    def median(self) -> float:
        return statistics.median(self.times[1:] or self.times)  # the first run warms up


def _table(cells: list[Cell], apis: list[str], names: list[str], consumers: list[str]) -> None:
    by_key = {(c.api, c.workload.name, c.consumer): c for c in cells}
    others = [c for c in consumers if c != "floor"]
    header = f"{'api':10} {'workload':11} {'deltas':>6} {'floor µs/δ':>10}"
    print(header + "".join(f" {name:>12}" for name in others))
    problems: list[str] = []
    for api in apis:
        for name in names:
            floor = by_key.get((api, name, "floor"))
            deltas = (floor or by_key[(api, name, consumers[0])]).workload.deltas
            base = floor.median if floor and floor.times else None
            row = f"{api:10} {name:11} {deltas:6d} "
            row += f"{base / deltas * 1e6:10.2f}" if base else f"{'?':>10}"
            for consumer in others:
                cell = by_key[(api, name, consumer)]
                if cell.problem:
                    row += f" {cell.problem[:12]:>12}"
                    if cell.problem != "-":
                        problems.append(f"{api}/{name}/{consumer}: {cell.problem}")
                elif base:
                    row += f" {cell.median / base:11.2f}x"
                else:
                    row += f" {cell.median / deltas * 1e6:9.1f}µs"
            print(row)
    for problem in problems:
        print("  ", problem)


async def side_by_side(server: LoopbackServer, args: argparse.Namespace) -> None:
    apis: list[str] = args.apis
    chosen = [w for w in workloads() if w.name in args.workloads]
    for api in apis:
        for workload in chosen:
            server.add(f"{api}-{workload.name}", *body(api, workload))
    cells: list[Cell] = []
    for api in apis:
        for consumer in args.consumers:
            run = CONSUMERS[consumer](api, server.url)
            cells += [Cell(api, w, consumer, run) for w in chosen]
    rng = random.Random(args.seed)
    for number in range(args.rounds + 1):  # round 0 warms up (imports, pools, caches)
        rng.shuffle(cells)
        for cell in cells:
            await cell.once(server)
        print(f"round {number}/{args.rounds} done", flush=True)
    print(
        f"\nCPU time, median of {args.rounds} shuffled rounds; floor in µs per delta, others as"
        " a multiple of the floor"
    )
    names = [w.name for w in chosen]
    _table(cells, apis, names, args.consumers)


def _list(text: str) -> list[str]:
    return [part for part in text.split(",") if part]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--apis", type=_list, default=APIS)
    parser.add_argument("--workloads", type=_list, default=[w.name for w in workloads()])
    parser.add_argument("--consumers", type=_list, default=list(CONSUMERS))
    parser.add_argument("--concurrency", type=lambda t: [int(n) for n in _list(t)])
    parser.add_argument("--no-concurrency", action="store_true")
    parser.add_argument("--no-side-by-side", action="store_true")
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    os.environ.update(AWS)
    with LoopbackServer() as server:
        if not args.no_side_by_side:
            await side_by_side(server, args)
        if not args.no_concurrency:
            levels: Any = args.concurrency or [100, 500, 1000]
            await concurrency_table(server, levels, rounds=max(args.rounds, 3))


if __name__ == "__main__":
    asyncio.run(main())
