"""The side-by-side of ``run.py`` (issue 16, item 1): every consumer on every API and workload.

Every consumer reads the same long bodies from the loopback server (``_loopback_server.py``,
another process) over real sockets, with its own client stack. Each consumer's output (the text,
each call's name and parsed arguments) is checked against the workload on every run; a consumer
that gets it wrong is shown as ``WRONG`` and left out, one that raises as ``ERROR``, one whose
package is missing as ``-``. A warm-up pass (untimed) makes one call per (API, consumer), so
imports, pools and caches are ready; then every round visits every (API, workload, consumer)
cell in a new random order, so a busy moment of the shared machine hits all alike. The figure of
a cell is the median CPU time (``time.process_time``: this process only, the server excluded).
"""

from __future__ import annotations

import gc
import random
import statistics
import time
from collections.abc import Callable

from _consumers import Run, floor_consumer, pi_sdk_consumer
from _loopback_server import LoopbackServer
from _peers import litellm_consumer, pydantic_ai_consumer
from _sdk_consumers import sdk_consumer
from _wire_bodies import body
from _workloads import Output, Workload

CONSUMERS: dict[str, Callable[[str, str], Run | None]] = {
    "floor": floor_consumer,
    "pi-sdk": pi_sdk_consumer,
    "sdk": sdk_consumer,
    "pydantic-ai": pydantic_ai_consumer,
    "litellm": litellm_consumer,
}
PEERS = ("pydantic-ai", "litellm")
"""The slowest consumers (10-100x the floor): ``peer_rounds`` of ``side_by_side`` bounds theirs."""


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

    async def once(self, server: LoopbackServer, record: bool = True) -> None:
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
        elif record:
            self.times.append(seconds)

    @property
    def median(self) -> float | None:
        """The median CPU seconds, ``None`` without a good run."""
        return statistics.median(self.times) if self.times and not self.problem else None


class SideBySide:
    """The cells of one run, by (API, workload name, consumer)."""

    def __init__(self, cells: list[Cell], apis: list[str], workloads: list[Workload]) -> None:
        self.cells = {(c.api, c.workload.name, c.consumer): c for c in cells}
        self.apis, self.workloads = apis, workloads

    def ratio(self, api: str, workload: str, consumer: str) -> float | None:
        """The consumer's median CPU time as a multiple of the floor's, if both ran."""
        floor, cell = (
            self.cells.get((api, workload, "floor")),
            self.cells.get((api, workload, consumer)),
        )
        if floor is None or cell is None or floor.median is None or cell.median is None:
            return None
        return cell.median / floor.median

    def print_table(self, consumers: list[str]) -> None:
        others = [c for c in consumers if c != "floor"]
        header = f"{'api':10} {'workload':11} {'deltas':>6} {'floor µs/δ':>10}"
        print(header + "".join(f" {name:>12}" for name in others))
        problems: list[str] = []
        for api in self.apis:
            for workload in self.workloads:
                name, deltas = workload.name, workload.deltas
                floor = self.cells.get((api, name, "floor"))
                base = floor.median if floor else None
                row = f"{api:10} {name:11} {deltas:6d} "
                row += f"{base / deltas * 1e6:10.2f}" if base else f"{'?':>10}"
                for consumer in others:
                    cell = self.cells[(api, name, consumer)]
                    ratio = self.ratio(api, name, consumer)
                    if cell.problem:
                        row += f" {cell.problem[:12]:>12}"
                        if cell.problem != "-":
                            problems.append(f"{api}/{name}/{consumer}: {cell.problem}")
                    elif ratio is not None:
                        row += f" {ratio:11.2f}x"
                    elif cell.median is not None:
                        row += f" {cell.median / deltas * 1e6:9.1f}µs"
                    else:
                        row += f" {'?':>12}"
                print(row)
        for problem in problems:
            print("  ", problem)


async def side_by_side(
    server: LoopbackServer,
    apis: list[str],
    chosen: list[Workload],
    consumers: list[str],
    rounds: int,
    seed: int,
    peer_rounds: int | None = None,
) -> SideBySide:
    """Run every cell ``rounds`` times (the peers' only in the first ``peer_rounds``, all when
    ``None``), after the warm-up pass, and print the table."""
    peer_rounds = rounds if peer_rounds is None else min(peer_rounds, rounds)
    for api in apis:
        for workload in chosen:
            server.add(f"{api}-{workload.name}", *body(api, workload))
    cells: list[Cell] = []
    for api in apis:
        for consumer in consumers:
            run = CONSUMERS[consumer](api, server.url)
            cells += [Cell(api, w, consumer, run) for w in chosen]
    smallest = min(chosen, key=lambda w: w.deltas)
    for cell in cells:  # warm-up: imports, pools, caches; one untimed call per (API, consumer)
        if cell.workload is smallest:
            await cell.once(server, record=False)
    rng = random.Random(seed)
    for number in range(1, rounds + 1):
        rng.shuffle(cells)
        for cell in cells:
            if number <= peer_rounds or cell.consumer not in PEERS:
                await cell.once(server)
        print(f"round {number}/{rounds} done", flush=True)
    peers = f" ({', '.join(PEERS)}: {peer_rounds})" if peer_rounds < rounds else ""
    print(
        f"\nCPU time, median of {rounds} shuffled rounds{peers}; floor in µs per delta, others"
        " as a multiple of the floor"
    )
    table = SideBySide(cells, apis, chosen)
    table.print_table(consumers)
    return table
