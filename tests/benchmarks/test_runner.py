"""``benchmarks/run.py`` runs every section and ends with a parsable targets summary.

Benchmarks are never judged by their timings in tests: these run the runner in a tiny
configuration (one API, one workload, a handful of streams and turns, one import round) as a
user would, in a fresh process, and check that each section printed its figures and that the
summary gives one line per target of issue 16 with a verdict.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"
TARGETS = ["1", "2", "3a", "3b", "3c", "4", "5a", "5b", "6a", "6b", "6c", "7"]
TINY = ["--quick", "--apis", "chat", "--workloads", "args-20KB", "--rounds", "1"]
TINY += [
    "--concurrency",
    "2,4",
    "--concurrency-rounds",
    "1",
    "--turns",
    "2,4",
    "--turn-rounds",
    "1",
]
TINY += ["--import-rounds", "1", "--proxy-rounds", "1", "--proxy-streams", "1,4"]
TINY += ["--first-event-rounds", "1"]
VERDICT = re.compile(r"^  (\d[a-z]?)\s{2,}(.+?)\s{2,}(met|NOT MET|not measured)$")


def run(*arguments: str) -> str:
    out = subprocess.run(
        [sys.executable, str(RUNNER), *arguments], capture_output=True, text=True, timeout=240
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def verdicts(output: str) -> dict[str, str]:
    """Target number -> verdict, from the lines after ``targets (issue 16)``."""
    summary = output.split("\ntargets (issue 16)\n", 1)[1]
    found = {m[1]: m[3] for line in summary.splitlines() if (m := VERDICT.match(line))}
    return found


@pytest.mark.timeout(300)
@pytest.mark.slow  # every section of the runner, in a fresh process
def test_a_tiny_run_prints_every_section_and_judges_every_target() -> None:
    output = run(*TINY)
    head = output.splitlines()[:2]
    assert re.match(r"pi-sdk benchmarks \(issue 16\), started .+ UTC, commit \S+", head[0])
    assert re.match(r"Python 3\.\d+\.\d+ \(\w+\), \d+ CPUs", head[1])
    sections = re.findall(r"^== (\S+)", output, re.M)
    assert sections == [
        "side-by-side:", "concurrency:", "memory:", "turns:", "import:", "proxy:", "first-event:"
    ]  # fmt: skip
    # the side-by-side row of the one cell: the floor in µs per delta, pi-sdk as a multiple
    assert re.search(r"^chat\s+args-20KB\s+\d+\s+\d+\.\d\d\s+\d+\.\d\dx$", output, re.M)
    assert re.search(r"^\s+4\s+\d+\.\d+\s+\d+\.\d\d\s+\d+\.\d+\s+\d+\.\d\d", output, re.M)
    for variant in ("pi-sdk Agent", "pi-sdk, not lean", "plain dicts", "pydantic-ai"):
        assert re.search(rf"^  {re.escape(variant)}\s+(\d+\.\d KiB|absent)", output, re.M)
    assert re.search(r"^\s+4 turns\s+\d+\.\d µs/turn$", output, re.M)
    for step in ("pydantic", "import pi_sdk", "first use", "plugin discovery"):
        assert re.search(rf"^  {step}\s+\d+\.\d ms\s+x\s*\d+\.\d\d of pydantic$", output, re.M)
    for level, way in [(1, "direct"), (1, "serve"), (4, "direct"), (4, "serve")]:
        assert re.search(rf"^\s+{level} {way}\s+\d+\s+\d+\s+(\d+\.\d\dx)?\s+\d+", output, re.M)
    # the LiteLLM proxy (120 packages of its own) runs only with the litellm consumer
    assert "  litellm: not measured: left out (litellm is not among --consumers)" in output
    assert re.search(r"^chat\s+\d+\s+\d+\s+\d+\s+-?\d+$", output, re.M)  # first event
    found = verdicts(output)
    assert list(found) == TARGETS
    measured = {n for n, v in found.items() if v != "not measured"}
    # only the peers' baselines may be missing (the bench group is not installed in CI)
    assert measured >= set(TARGETS) - {"3b", "6c"}
    assert re.search(r"^run took \d+ s wall, \d+ s CPU ", output, re.M)


def test_a_section_left_out_leaves_its_targets_not_measured() -> None:
    output = run(
        "--no-side-by-side", "--no-concurrency", "--no-turns", "--no-import", "--no-proxy",
        "--no-first-event",
    )  # fmt: skip
    assert re.findall(r"^== (\S+)", output, re.M) == ["memory:"]
    found = verdicts(output)
    assert list(found) == TARGETS
    left_out = {n for n, v in found.items() if v == "not measured"}
    assert left_out >= {"1", "2", "4", "5a", "5b", "6a", "6b", "6c", "7"}
    assert found["3a"] != "not measured" and found["3c"] == "met"


def test_an_unknown_api_is_refused_with_the_name() -> None:
    out = subprocess.run(
        [sys.executable, str(RUNNER), "--apis", "chat,nope"], capture_output=True, text=True
    )
    assert out.returncode == 2
    assert "unknown nope" in out.stderr
