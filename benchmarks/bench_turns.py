"""Benchmark: the cost of one agent turn as the transcript grows (issue 16, item 4).

What runs and how it is timed: ``_turns.py`` (the scripted provider calls a tool on each of 100
or 1,000 turns; the sizes alternate). Prints the best µs per turn of each and the ratio
per-turn(1,000) / per-turn(100): 1.0 is a constant cost per turn, the target is at most 1.3.
``run.py`` prints the same section.

Run with ``uv run python benchmarks/bench_turns.py [--rounds 5]``.
"""

from __future__ import annotations

import argparse

from _turns import measure, print_turns


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print_turns(measure(args.rounds), args.rounds)


if __name__ == "__main__":
    main()
