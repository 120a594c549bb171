"""Benchmark: what importing pi-sdk costs, in fresh processes, against ``import pydantic``.

The steps (``pydantic``, ``import pi_sdk``, ``first use``, ``plugin discovery``) and how each is
timed: ``_import_time.py``. Prints the median in ms and the ratio to the ``pydantic`` median of
the same run. Targets (issue 16): ``first use`` at most 100 ms, ``plugin discovery`` at most
50 ms more. ``run.py`` prints the same section.

Run with ``uv run python benchmarks/bench_import.py [--rounds 15]``.
"""

from __future__ import annotations

from _import_time import measure, print_import
from _section_cli import run_section

if __name__ == "__main__":
    run_section(__doc__, measure, print_import, default_rounds=15)
