"""Benchmark: the memory an idle Agent's transcript takes (issue 16, item 3).

What is built and how it is measured: ``_memory.py``. Prints KiB per variant (the pi-sdk Agent,
the same without ``pi_sdk._wire.lean``, plain dicts, pydantic-ai's messages when installed) and the
ratio to plain dicts. Target: the Agent at most 16 KiB for the issue's transcript (then
42.8 KiB; plain dicts 14.7 KiB); this transcript is larger, so the ratio to plain dicts is the
comparable figure (target at most 16 / 14.7 = 1.09). ``run.py`` prints the same section.

Run with ``uv run python benchmarks/bench_memory.py``.
"""

from __future__ import annotations

from _memory import measure, print_memory

if __name__ == "__main__":
    print_memory(measure())
