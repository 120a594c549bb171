"""PEP 562 namespaces that import a name on first use, from a literal table.

A namespace module (``pi_sdk``, ``pi_sdk.provider``, ``pi_sdk.agent``, ...) states its public
names twice, both as plain code: a literal table ``_EXPORTS = {"Model": "pi_sdk.types",
...}`` that runs, and the same names as redundant-alias imports under ``TYPE_CHECKING``
(``from pi_sdk.types import Model as Model``) that type checkers read as re-exports and
that never run (``tests/core/test_exports.py`` checks that the two agree). :func:`lazy_exports`
turns the table into the module's ``__getattr__`` and ``__dir__``: a name is imported from its
module the first time it is read and stored in the namespace, so later reads are plain attribute
lookups and ``import pi_sdk`` imports nothing else (scientific-python's ``lazy_loader`` idea).
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    namespace: str, table: Mapping[str, str], deprecated: Mapping[str, tuple[str, str]] = {}
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return ``(__getattr__, __dir__)`` for the namespace module ``namespace``.

    Args:
        namespace: The namespace's ``__name__``.
        table: Public name -> the absolute module that defines it. A name whose module is
            ``f"{namespace}.{name}"`` is a public submodule (``pi_sdk.types``), imported as such.
        deprecated: Names the namespace no longer exports but still answers, for code written
            against an older release: name -> ``(defining module, what to use instead)``. Each
            read warns (:class:`DeprecationWarning`) and is not kept in the namespace; the
            names are not in ``__all__`` or ``dir()``.

    Returns:
        The two module-level functions. ``__getattr__`` also answers ``__all__`` (the table's
        names but its submodules, sorted) and raises :class:`AttributeError` for any other name,
        as a module does.
    """

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's own name
        if name == "__all__":
            value: Any = sorted(n for n, m in table.items() if m != f"{namespace}.{n}")
        elif name in deprecated:
            module, instead = deprecated[name]
            warnings.warn(
                f"{namespace}.{name} is deprecated and leaves in a later release; {instead}",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(importlib.import_module(module), name)
        elif name.startswith("__") or (module := table.get(name)) is None:
            raise AttributeError(f"module {namespace!r} has no attribute {name!r}")
        elif module == f"{namespace}.{name}":
            value = importlib.import_module(module)
        else:
            value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[namespace], name, value)
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted(set(vars(sys.modules[namespace])) | set(table))

    return __getattr__, __dir__
