"""The fuzz suite reports how many examples it tried (``_support.fuzz.TRIED``)."""

from __future__ import annotations

from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from _support.fuzz import TRIED

    if TRIED:
        total = sum(TRIED.values())
        terminalreporter.write_line(f"fuzz: {total} examples tried")
        for name, count in sorted(TRIED.items()):
            terminalreporter.write_line(f"  {name}: {count}")
