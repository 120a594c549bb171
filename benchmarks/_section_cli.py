"""The command line of a benchmark script that prints one section of ``run.py`` on its own."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def run_section(
    doc: str | None,
    measure: Callable[[int], Any],
    show: Callable[[Any, int], None],
    *,
    default_rounds: int,
) -> None:
    """Parse ``--rounds`` (the script's docstring as help), measure, and print the section."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=default_rounds)
    rounds: int = parser.parse_args().rounds
    show(measure(rounds), rounds)
