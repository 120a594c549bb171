"""docs/examples/temporal_example.py runs as printed in docs/temporal.md."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "temporal_example.py"


def _exit_status_after_output(status: int | None, err: str) -> None:
    """Fail on a non-zero exit; a signal death after the checked output is an expected failure.

    The example's process was seen, rarely and only in CI, to die by SIGSEGV or SIGABRT after
    printing everything, while the interpreter was finalizing ("PyGILState_Release: thread state
    ... must be current", from temporalio's native runtime threads). Reported, not hidden: see
    docs/temporal.md, "Known problems".
    """
    if status is not None and status < 0:
        pytest.xfail(f"exited by signal {-status} after its output: {err[-2000:]}")
    assert status == 0, err[-3000:]


async def test_the_docs_example_runs(temporal_address: str) -> None:
    env = {**os.environ, "TEMPORAL_ADDRESS": temporal_address, "PYTHONFAULTHANDLER": "1"}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(EXAMPLE),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    lines = out.decode().splitlines()
    assert lines and lines[0] == "agent_start", out.decode() + err.decode()[-3000:]
    assert "tool_execution_end get_weather" in lines
    assert lines[-1] == "answer: It is 21°C and sunny in Paris."
    page = (ROOT / "docs" / "temporal.md").read_text("utf-8")
    assert '--8<-- "docs/examples/temporal_example.py"' in page
    for line in lines[:-1]:
        assert line in page  # the output shown on the page is this run's
    _exit_status_after_output(process.returncode, err.decode())


async def _example(mode: str, env: dict[str, str]) -> asyncio.subprocess.Process:
    env = {**env, "PYTHONFAULTHANDLER": "1"}  # a crash prints every thread's stack
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(EXAMPLE),
        mode,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_a_second_client_run_prints_the_exhausted_script_error(temporal_address: str):
    env = {**os.environ, "TEMPORAL_ADDRESS": temporal_address}
    worker = await _example("worker", env)  # one registry: two scripted replies, one run
    try:
        outputs: list[tuple[int | None, list[str], str]] = []
        for _ in range(2):
            client = await _example("client", env)
            out, err = await asyncio.wait_for(client.communicate(), 60)
            outputs.append((client.returncode, out.decode().splitlines(), err.decode()))
    finally:
        worker.terminate()
        await worker.communicate()
    (first_status, first, _), (second_status, second, second_err) = outputs
    assert first[-1] == "answer: It is 21°C and sunny in Paris."
    assert second[-1].startswith("error: ScriptedProvider "), second_err[-3000:]
    assert "has no reply left for call 3 (2 were scripted)" in second[-1]
    for status, err in ((first_status, ""), (second_status, second_err)):
        _exit_status_after_output(status, err)
