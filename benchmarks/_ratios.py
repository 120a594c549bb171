"""Printing a benchmark's figures as ratios to a baseline measured in the same run."""

from __future__ import annotations

from collections.abc import Callable, Mapping


def print_ratios(
    title: str, figures: Mapping[str, float], base: str, show: Callable[[float], str]
) -> None:
    """Print ``title``, then one line per figure: its value (``show``) and ``value / base``."""
    print(title)
    width = max(map(len, figures))
    for name, value in figures.items():
        print(f"  {name:<{width}}  {show(value)}   x{value / figures[base]:5.2f} of {base}")
