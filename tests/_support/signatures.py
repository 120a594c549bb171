"""A callable's calling convention as one line: which parameters go by position, which by name.

``convention(obj)`` lists the parameter names in order, with ``/`` after the positional-only
ones and ``*`` before the keyword-only ones (as a ``def`` spells them), ``*args`` and
``**kwargs`` as written (a decorated function: the one it wraps); annotations and defaults are
left out. A table of these lines pins what callers may write: a keyword-only option stays
refused by position, and a parameter before the ``*`` stays accepted by name.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

_KIND = inspect.Parameter


def resolve(target: str) -> Any:
    """The object named ``"package.module:Qual.name"``."""
    module, _, qualname = target.partition(":")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = inspect.getattr_static(found, part)
    if isinstance(found, (staticmethod, classmethod)):
        found = found.__func__
    if isinstance(found, property):
        found = found.fget
    return found


def convention(obj: Any) -> str:
    """``obj``'s parameters as a ``def`` lists them, markers included, without annotations."""
    parts: list[str] = []
    params = list(inspect.signature(obj).parameters.values())
    for i, param in enumerate(params):
        before = params[i - 1].kind if i else None
        if param.kind is _KIND.KEYWORD_ONLY and before not in (
            _KIND.KEYWORD_ONLY,
            _KIND.VAR_POSITIONAL,
        ):
            parts.append("*")
        if param.kind is _KIND.VAR_POSITIONAL:
            parts.append(f"*{param.name}")
        elif param.kind is _KIND.VAR_KEYWORD:
            parts.append(f"**{param.name}")
        else:
            parts.append(param.name)
        after = params[i + 1].kind if i + 1 < len(params) else None
        if param.kind is _KIND.POSITIONAL_ONLY and after is not _KIND.POSITIONAL_ONLY:
            parts.append("/")
    return ", ".join(parts)


def convention_test(conventions: list[tuple[str, str]]) -> Any:
    """A package's table test: each row ``(target, expected)`` names a callable whose ``def`` has
    a bare ``*`` (keyword-only options after it) or ``/`` (positional-only parameters before
    it), and its parameters as the ``def`` lists them (:func:`convention`). Callers rely on
    both sides of the marker: an option after ``*`` is refused by position (so a later
    parameter can be added before it), a parameter before it is accepted by name
    (``Tracing(tracer_provider=...)``). Assign the result to a ``test_*`` name of the module.
    """
    import pytest

    @pytest.mark.parametrize(("target", "expected"), conventions, ids=[t for t, _ in conventions])
    def test(target: str, expected: str) -> None:
        assert convention(resolve(target)) == expected

    return test
