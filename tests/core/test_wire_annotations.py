"""Every annotation of the wire layer resolves at run time: classes, functions and methods.

``tests/core/test_public_annotations.py`` resolves the public classes' annotations. The wire
layer (``pi_sdk/_wire`` and the top modules ``types``, ``errors``, ``events``, ``options``) also
has functions, methods and private classes whose annotations a user's code, pydantic
(``validate_call``) or a dataclass reads: each must name real types joined by ``|`` (an
operator other than ``|`` between two types raises ``TypeError`` when it is evaluated, which
``from __future__ import annotations`` delays until something reads it).

Names a module imports only for the type checker (``if TYPE_CHECKING:``) and string aliases
written in another module are resolved from the layer's other modules, as the type checker does.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import pkgutil
import typing
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

import pi_sdk._wire

MODULES = sorted(
    [
        "pi_sdk.errors",
        "pi_sdk.events",
        "pi_sdk.options",
        "pi_sdk.types",
        *(f"pi_sdk._wire.{found.name}" for found in pkgutil.iter_modules(pi_sdk._wire.__path__)),
    ]
)


def _checking_names(module: ModuleType) -> dict[str, Any]:
    """The names ``module`` imports under ``if TYPE_CHECKING:`` (run here, in a copy)."""
    names: dict[str, Any] = {}
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            block = ast.Module(body=node.body, type_ignores=[])
            code = compile(block, str(module.__file__), "exec")
            exec(code, dict(vars(module)), names)  # noqa: S102 - the module's own imports
    return names


@functools.cache
def _layer_names() -> dict[str, Any]:
    pool: dict[str, Any] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        pool.update(_checking_names(module))
        for key, value in vars(module).items():
            if not key.startswith("__"):
                pool.setdefault(key, value)
    return pool


def _annotated(module: ModuleType) -> list[tuple[str, Callable[..., Any] | type]]:
    """The classes, functions, methods and property getters ``module`` defines."""
    found: list[tuple[str, Callable[..., Any] | type]] = []
    for name, value in vars(module).items():
        if getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(value):
            found.append((name, value))
        elif inspect.isclass(value):
            found.append((name, value))
            for key, member in vars(value).items():
                if isinstance(member, staticmethod | classmethod):
                    member = member.__func__  # noqa: PLW2901
                elif isinstance(member, property):
                    member = member.fget  # noqa: PLW2901
                if inspect.isfunction(member):
                    found.append((f"{name}.{key}", member))
    return found


@pytest.mark.parametrize("name", MODULES)
def test_every_annotation_of_a_wire_module_resolves(name: str) -> None:
    module = importlib.import_module(name)
    own = vars(module)
    local = {key: value for key, value in _layer_names().items() if key not in own}
    failures: list[str] = []
    found = _annotated(module)
    for qualname, target in found:
        try:
            typing.get_type_hints(target, localns=local)
        except Exception as error:  # noqa: BLE001 - every failure is reported below
            failures.append(f"{qualname}: {type(error).__name__}: {error}")
    assert found, f"{name} defines nothing to check: the walk is broken"
    assert failures == []
