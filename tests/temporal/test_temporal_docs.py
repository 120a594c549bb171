"""docs/examples/temporal_example.py runs as printed in docs/temporal.md, and exits cleanly."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "temporal_example.py"
LINGERING = ROOT / "tests" / "_support" / "temporal_lingering.py"
ANSWER = "answer: It is 21°C and sunny in Paris."


async def _start(script: Path, mode: str, address: str) -> asyncio.subprocess.Process:
    # PYTHONFAULTHANDLER: a process that dies by a signal prints every thread's stack.
    env = {**os.environ, "TEMPORAL_ADDRESS": address, "PYTHONFAULTHANDLER": "1"}
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        mode,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def _run(script: Path, mode: str, address: str) -> tuple[int | None, list[str], str]:
    """(exit status, stdout lines, stderr) of one run."""
    process = await _start(script, mode, address)
    out, err = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode, out.decode().splitlines(), err.decode()


def _assert_answered_and_exited(status: int | None, lines: list[str], err: str) -> None:
    assert lines and lines[-1] == ANSWER, "\n".join(lines) + err[-3000:]
    assert status == 0, f"exit status {status} after the output: {err[-3000:]}"
    # The installed observers (pi-sdk-otel) ran in the workflow sandbox without failing: its
    # first span imports OpenTelemetry, which the sandbox refused when the worker had not.
    assert "failed; ignored" not in err, err[-3000:]


async def test_the_docs_example_runs(temporal_address: str) -> None:
    status, lines, err = await _run(EXAMPLE, "both", temporal_address)
    assert lines and lines[0] == "agent_start", "\n".join(lines) + err[-3000:]
    assert "tool_execution_end get_weather" in lines
    page = (ROOT / "docs" / "temporal.md").read_text("utf-8")
    assert '--8<-- "docs/examples/temporal_example.py"' in page
    for line in lines[:-1]:
        assert line in page  # the output shown on the page is this run's
    _assert_answered_and_exited(status, lines, err)


async def test_a_second_client_run_prints_the_exhausted_script_error(temporal_address: str):
    worker = await _start(EXAMPLE, "worker", temporal_address)  # two scripted replies: one run
    try:
        first = await _run(EXAMPLE, "client", temporal_address)
        second_status, second, second_err = await _run(EXAMPLE, "client", temporal_address)
    finally:
        worker.terminate()
        await worker.communicate()
    _assert_answered_and_exited(*first)
    assert second[-1].startswith("error: ScriptedProvider "), second_err[-3000:]
    assert "has no reply left for call 3 (2 were scripted)" in second[-1]
    assert second_status == 0, second_err[-3000:]


async def test_the_example_exits_cleanly_when_the_bridge_threads_linger(temporal_address: str):
    """The exit race made wide (``temporal_lingering.py``): without the exit hook, an abort."""
    _assert_answered_and_exited(*await _run(LINGERING, "both", temporal_address))


async def test_a_client_exits_cleanly_when_the_bridge_threads_linger(temporal_address: str):
    worker = await _start(EXAMPLE, "worker", temporal_address)
    try:
        result = await _run(LINGERING, "client", temporal_address)
    finally:
        worker.terminate()
        await worker.communicate()
    _assert_answered_and_exited(*result)
