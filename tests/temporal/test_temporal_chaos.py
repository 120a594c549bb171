"""Durable runs through worker deaths at scale (issue 33): many runs over several worker
processes while a chaos loop SIGKILLs a random one every few seconds and starts a replacement.

No run is lost, no tool execution whose result Temporal recorded runs again, and the
exactly-once tool (its effect stored with its idempotency key in one transaction) leaves one
ledger row per call although interrupted executions ran again. A smaller count than the
benchmark's (``benchmarks/bench_temporal_scale.py``: 200 runs on 4 workers) so that it fits
the suite's time; ``PI_SDK_CHAOS_RUNS`` sets another.
"""

from __future__ import annotations

import os

import pytest
from _support.temporal_chaos import ChaosSettings, run_chaos

RUNS = int(os.environ.get("PI_SDK_CHAOS_RUNS", "36"))


@pytest.mark.slow
@pytest.mark.timeout(420)
async def test_runs_survive_a_chaos_loop_of_worker_kills(client, temporal_address, tmp_path):
    settings = ChaosSettings(
        runs=RUNS,
        workers=3,
        turns=3,
        slow_every=3,
        slow_ms=2500,
        kill_every_s=3.0,
        heartbeat_timeout_s=4.0,
        task_timeout_s=10.0,
        deadline_s=300,
    )
    report = await run_chaos(client, temporal_address, tmp_path, settings)
    table = "\n".join(f"{name}: {value}" for name, value in report.rows())

    assert report.kills >= 3, table  # the loop did kill workers while runs were in flight
    assert report.lost_runs == [], table
    assert report.completed_runs == RUNS
    assert report.tool_executions == RUNS * settings.turns * 2, table
    assert report.repeated_completed == [], table
    # The exactly-once tool: one effect per call, whatever ran again.
    assert report.duplicated_effects == [], table
    assert report.ledger_rows == RUNS * settings.turns, table
    # The kills did interrupt work, which ran again (so the assertions above were tested).
    assert report.interrupted_tools + report.interrupted_models >= 1, table
    assert report.recovery_s and max(report.recovery_s) < 60, table
