"""docs/examples/temporal_example.py runs as printed in docs/temporal.md."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "temporal_example.py"


async def test_the_docs_example_runs(temporal_address: str) -> None:
    env = {**os.environ, "TEMPORAL_ADDRESS": temporal_address}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(EXAMPLE),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    lines = out.decode().splitlines()
    assert process.returncode == 0, err.decode()[-3000:]
    assert lines[0] == "agent_start", out.decode()
    assert "tool_execution_end get_weather" in lines
    assert lines[-1] == "answer: It is 21°C and sunny in Paris."
    page = (ROOT / "docs" / "temporal.md").read_text("utf-8")
    assert '--8<-- "docs/examples/temporal_example.py"' in page
    for line in lines[:-1]:
        assert line in page  # the output shown on the page is this run's
