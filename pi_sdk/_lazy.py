"""Namespaces that import on first use (PEP 562 ``__getattr__``), so ``import pi_sdk`` is cheap.

A namespace ``__init__`` lists, per private module, the public names it takes from it, and
gets its ``__getattr__`` / ``__dir__`` from :func:`lazy_namespace`; the same names are imported
under ``TYPE_CHECKING`` for type checkers and IDEs (``tests/core/test_exports.py`` checks that
both lists agree). A name is imported the first time it is read and then stored in the
namespace, so later reads cost a plain attribute lookup.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_namespace"]


def lazy_namespace(
    package: str, modules: Mapping[str, Iterable[str]], submodules: Iterable[str] = ()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return ``(__getattr__, __dir__)`` for the namespace module ``package``.

    Args:
        package: The namespace's ``__name__``.
        modules: Absolute name of a defining module -> the public names taken from it.
        submodules: Public submodules (e.g. ``"types"``) reachable as attributes without an
            explicit ``import package.submodule``.

    Returns:
        The two module-level functions; ``__getattr__`` raises :class:`AttributeError` for
        any other name, as a module does.
    """
    names = {name: module for module, taken in modules.items() for name in taken}
    known_submodules = frozenset(submodules)

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's own name
        module_name = names.get(name)
        if module_name is not None:
            value = getattr(importlib.import_module(module_name), name)
        elif name in known_submodules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted(set(vars(sys.modules[package])) | set(names) | known_submodules)

    return __getattr__, __dir__
