"""The replies every consumer of ``benchmarks/run.py`` reads, and what it must get out of them.

Four workloads (issue 16): ``text`` (5,000 text deltas), ``args-20KB`` and ``args-200KB`` (one
tool call whose JSON arguments of that size arrive in 16-byte deltas), ``20x10KB`` (20 tool calls
of 10 KB arguments each, one after the other, 16-byte deltas). The arguments are a
``{"path", "content"}`` object whose content is full of escapes (quotes, backslashes, newlines,
tabs, non-ASCII), as a file-writing tool gets.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

DELTA = 16
"""Bytes of argument JSON per delta."""


@dataclass(frozen=True)
class Call:
    """One tool call of a workload: its id, name and the arguments' JSON text."""

    id: str
    name: str
    arguments: str

    def pieces(self) -> list[str]:
        """The arguments in ``DELTA``-character deltas."""
        text = self.arguments
        return [text[i : i + DELTA] for i in range(0, len(text), DELTA)]


@dataclass(frozen=True)
class Workload:
    """A reply: text deltas, then tool calls."""

    name: str
    text: list[str] = field(default_factory=list[str])
    calls: list[Call] = field(default_factory=list[Call])

    @property
    def deltas(self) -> int:
        """How many content deltas (text and argument fragments) the reply streams."""
        return len(self.text) + sum(len(c.pieces()) for c in self.calls)

    def expected(self) -> Output:
        """What a consumer must assemble from it."""
        return Output("".join(self.text), [(c.name, json.loads(c.arguments)) for c in self.calls])


@dataclass
class Output:
    """What a consumer assembled: the text, and each tool call's name and parsed arguments."""

    text: str
    calls: list[tuple[str, Any]]


def arguments(size: int, number: int = 0) -> str:
    """A ``{"path", "content"}`` JSON document of about ``size`` bytes."""
    lines: list[str] = []
    total = 0
    i = 0
    while total < size - 60:
        line = f'line {i}: say "hi" to C:\\tmp\tcafé ✓\n'
        lines.append(line)
        total += len(json.dumps(line)) - 2
        i += 1
    return json.dumps({"path": f"src/module_{number}.py", "content": "".join(lines)})


def workloads() -> list[Workload]:
    """The four workloads of the runner."""
    return [
        Workload("text", text=[f" word{i}" for i in range(5000)]),
        Workload("args-20KB", calls=[Call("call_20k", "write", arguments(20_000))]),
        Workload("args-200KB", calls=[Call("call_200k", "write", arguments(200_000))]),
        Workload(
            "20x10KB",
            calls=[Call(f"call_{i:02d}", "write", arguments(10_000, i)) for i in range(20)],
        ),
    ]
