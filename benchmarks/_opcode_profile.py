"""Bytecodes executed per Python function, self and inclusive: a profile load does not move.

callgrind counts machine instructions but sees Python functions only as the interpreter's
``_PyEval_EvalFrameDefault``; this tracer (``sys.settrace`` with opcode events) counts the
bytecodes each Python function runs, itself and with what it calls, so where a call's work goes
can be read by function. C work (``json``, pydantic-core, hashing, the socket) is not counted,
and the tracer is slow (fine for a few short calls). A generator or coroutine counts each
resumption; a function already on the stack (recursion) is counted once, at its outermost frame.
Used by ``bench_callgrind.py --opcodes``.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

_PREFIX = re.compile(
    r"^.*?(?:site-packages/|/benchmarks/|/providers/|/plugins/|/lib/python3\.\d+/)"
)
"""What a file's name loses in the profile (the checkout's or the environment's folder)."""


def _name(code: CodeType) -> str:
    path, cut = _PREFIX.subn("", code.co_filename, count=1)
    if not cut and path.count("/") > 1:  # pi_sdk's own modules: the package folder and file
        path = "/".join(path.rsplit("/", 3)[-3:])
    return f"{path}:{code.co_firstlineno}:{code.co_name}"


class OpcodeProfile:
    """``profile.run(action)`` traces ``action``; ``inclusive`` and ``calls`` hold the counts."""

    def __init__(self) -> None:
        self.inclusive: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self.total = 0
        self._stack: list[list[Any]] = []  # [name, bytecodes so far, frame]

    def _trace(self, frame: FrameType, event: str, _arg: object) -> Callable[..., Any]:
        stack = self._stack
        if event == "opcode":
            if stack:
                stack[-1][1] += 1
        elif event == "call":
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
            name = _name(frame.f_code)
            stack.append([name, 0, frame])
            self.calls[name] += 1
        elif event == "return" and stack and stack[-1][2] is frame:
            name, count, _ = stack.pop()
            if all(entry[0] != name for entry in stack):
                self.inclusive[name] += count
            if stack:
                stack[-1][1] += count
            else:
                self.total += count
        return self._trace

    def run(self, action: Callable[[], object]) -> None:
        """Run ``action`` with the tracer on (the bytecodes of ``action`` itself count too)."""
        sys.settrace(self._trace)
        try:
            action()
        finally:
            sys.settrace(None)
