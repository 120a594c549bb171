"""Benchmark: the cost of one agent turn as the transcript grows (issue 16, item 4).

What runs and how it is timed: ``_turns.py`` (the scripted provider calls a tool on each of 100
or 1,000 turns; the sizes alternate). Prints the best µs per turn of each and the ratio
per-turn(1,000) / per-turn(100): 1.0 is a constant cost per turn, the target is at most 1.3.
``run.py`` prints the same section.

Run with ``uv run python benchmarks/bench_turns.py [--rounds 5]``.
"""

from __future__ import annotations

from _section_cli import run_section
from _turns import measure, print_turns

if __name__ == "__main__":
    run_section(__doc__, measure, print_turns, default_rounds=5)
