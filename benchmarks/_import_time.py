"""What importing pi-sdk costs, in fresh processes, against ``import pydantic`` (issue 16, item 5).

Shared by ``bench_import.py`` and ``run.py`` (its import section and target lines). Each sample
is a new interpreter (``python -c``, bytecode cache on) that times one step after the interpreter
has started, in CPU time (``time.process_time``; the start-up is left out, and CPU time is
steadier than wall time on a shared machine):

- ``pydantic``: ``import pydantic`` and ``pydantic.BaseModel`` (the baseline: pi-sdk's wire
  types are pydantic models, so this is the floor of any first use);
- ``import pi_sdk``: the bare import (names load on first use, ``pi_sdk._lazy``);
- ``first use``: ``import pi_sdk`` then ``pi_sdk.Agent``, ``pi_sdk.stream``,
  ``pi_sdk.UserMessage`` (what a program touches before its first call);
- ``plugin discovery``: after ``first use``, ``pi_sdk.plugins.get_plugin_manager()`` (scans the
  ``pi_sdk`` entry-point group and imports every installed provider and plugin package), timed
  on its own.

The steps run in shuffled order, ``rounds`` times each; the figure is the median in ms. Targets
(issue 16): ``first use`` at most 100 ms, ``plugin discovery`` at most 50 ms more.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys

from _ratios import print_ratios

_TIMED = """
import time
start = time.process_time()
{setup}
mid = time.process_time()
{step}
end = time.process_time()
print((end - mid) * 1e3 if {second} else (mid - start) * 1e3)
"""

_FIRST_USE = "import pi_sdk; pi_sdk.Agent; pi_sdk.stream; pi_sdk.UserMessage"
STEPS: dict[str, tuple[str, str, bool]] = {
    # name: (code timed first, code timed second, whether the second part is the measure)
    "pydantic": ("import pydantic; pydantic.BaseModel", "", False),
    "import pi_sdk": ("import pi_sdk", "", False),
    "first use": (_FIRST_USE, "", False),
    "plugin discovery": (
        _FIRST_USE,
        "import pi_sdk.plugins; pi_sdk.plugins.get_plugin_manager()",
        True,
    ),
}


def sample(name: str) -> float:
    """One fresh process's CPU ms for step ``name``."""
    setup, step, second = STEPS[name]
    code = _TIMED.format(setup=setup, step=step or "pass", second=second)
    # Bytecode caching on (the warm-up writes the .pyc files): with PYTHONDONTWRITEBYTECODE set,
    # every edited module would be compiled again in every sample, which no installed copy does.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env
    )
    return float(out.stdout.strip().splitlines()[-1])


def measure(rounds: int) -> dict[str, float]:
    """The median CPU ms of every step over ``rounds`` shuffled rounds (after one warm-up)."""
    for name in STEPS:  # warm the file-system cache and the bytecode
        sample(name)
    samples: dict[str, list[float]] = {name: [] for name in STEPS}
    order = list(STEPS)
    for _ in range(rounds):
        random.shuffle(order)
        for name in order:
            samples[name].append(sample(name))
    return {name: statistics.median(values) for name, values in samples.items()}


def print_import(medians: dict[str, float], rounds: int) -> None:
    """Print the median ms of every step and its ratio to ``pydantic``."""
    title = f"fresh-process import CPU times, median of {rounds} shuffled rounds"
    print_ratios(title, medians, "pydantic", lambda ms: f"{ms:7.1f} ms")
