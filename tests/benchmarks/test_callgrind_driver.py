"""``benchmarks/bench_callgrind.py``: its bytecode profile mode, and how it reads a profile.

The callgrind mode itself needs valgrind and minutes of CPU, so it is run by hand (docs/
benchmarks.md); here the same calls run under the bytecode tracer, in a fresh process, and the
totals parser reads a profile's ``summary:`` / ``totals:`` line.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
DRIVER = BENCHMARKS / "bench_callgrind.py"


@pytest.mark.timeout(240)
@pytest.mark.slow  # a fresh process with the loopback server
def test_the_opcode_mode_prints_bytecodes_per_call_and_the_heaviest_functions() -> None:
    command = [sys.executable, str(DRIVER), "--apis", "chat,bedrock", "--calls", "2"]
    command += ["--warm", "1", "--opcodes", "12"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=220)
    assert out.returncode == 0, out.stderr[-3000:]
    for api in ("chat", "bedrock"):
        totals = re.search(
            rf"^{api}: bytecodes per call floor (\d+), pi-sdk (\d+)$", out.stdout, re.M
        )
        assert totals, out.stdout
        assert int(totals[1]) > 0 and int(totals[2]) > 0
        section = out.stdout.split(f"\n{api} pi-sdk: bytecodes per call, inclusive", 1)[1]
        rows = section.splitlines()[1:13]
        assert all(re.match(r"^\s+\d+\s+\d+\.\d  \S+:\d+:\S+$", row) for row in rows), rows
    assert "pi_sdk/_stream/read_loop.py" in out.stdout


def test_the_total_is_read_from_the_summary_or_totals_line(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from bench_callgrind import _total  # pyright: ignore[reportPrivateUsage]
    finally:
        sys.path.remove(str(BENCHMARKS))
    summary = tmp_path / "a"
    summary.write_text("version: 1\nevents: Ir\nfn=(1) f\n3 5\nsummary: 123456\n")
    totals = tmp_path / "b"
    totals.write_text("events: Ir\ntotals: 987\n")
    empty = tmp_path / "c"
    empty.write_text("events: Ir\n")
    assert (_total(summary), _total(totals), _total(empty)) == (123456, 987, 0)
