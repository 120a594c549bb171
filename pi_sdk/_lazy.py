"""Namespaces that import on first use (PEP 562 ``__getattr__``), so ``import pi_sdk`` is cheap.

A namespace ``__init__`` states its public names once, as imports under ``TYPE_CHECKING`` in the
redundant-alias form (``from pi_sdk.types import Model as Model``), which type checkers read as a
re-export (the typing spec's library interface rules) and which runs nothing at import time. Its
``__getattr__`` / ``__dir__`` come from :func:`lazy_namespace`, which reads that same block from
the namespace's source the first time a name is asked for: a name is then imported from the
module the block names and stored in the namespace, so later reads cost a plain attribute lookup.
``__all__`` is the sorted list of those names, so ``from pi_sdk import *`` takes exactly them.
The same idea as scientific-python's ``lazy_loader.attach_stub``, without a separate stub file.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["lazy_namespace", "type_checking_imports"]


def type_checking_imports(package: str) -> dict[str, str]:
    """Read the re-exports of the namespace module ``package``: public name -> defining module.

    The names are those imported at the top level under ``if TYPE_CHECKING:`` (or
    ``if typing.TYPE_CHECKING:``, any alias of the module), in source order.

    Raises:
        ImportError: The block holds something other than absolute ``from module import name as
            name`` imports, or neither the source nor the compiled code can be read. A sourceless
            install (pyc only, e.g. a frozen app) is read from its code object instead.
    """
    import ast  # only when a name is first asked for: ``import pi_sdk`` stays cheap

    module = sys.modules[package]
    loader = module.__loader__
    # Duck-typed (importlib.abc.InspectLoader's method): importing importlib.abc would pull in
    # importlib.resources, pathlib and tempfile, a third of ``import pi_sdk``.
    get_source = getattr(loader, "get_source", None)
    source = get_source(package) if get_source is not None else None
    path = module.__file__
    if source is None and path is not None and path.endswith(".py"):
        # A loader without get_source (pytest's assertion rewriter, say) still read this file.
        with open(path, "rb") as file:
            source = importlib.util.decode_source(file.read())
    if source is None:
        return _compiled_imports(package, loader)
    names: dict[str, str] = {}
    blocks = [
        node.body
        for node in ast.parse(source).body
        if isinstance(node, ast.If)
        and (
            (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
            or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")
        )
    ]
    for block in blocks:
        for statement in block:
            if not isinstance(statement, ast.ImportFrom) or statement.level or not statement.module:
                raise ImportError(
                    f"{package}: only absolute from-imports may stand under TYPE_CHECKING"
                )
            for alias in statement.names:
                if alias.asname != alias.name:
                    raise ImportError(
                        f"{package}: write 'from {statement.module} import {alias.name} as "
                        f"{alias.name}' so type checkers see a re-export"
                    )
                names[alias.name] = statement.module
    return names


def _compiled_imports(package: str, loader: object) -> dict[str, str]:
    """The same names read from the compiled module, for a sourceless install (pyc only).

    The block is compiled even though it never runs: it is the code a conditional jump after
    reading ``TYPE_CHECKING`` skips, and in it ``from m import A as A`` is ``IMPORT_NAME m``,
    ``IMPORT_FROM A``, ``STORE_NAME A`` (tests/core/test_exports.py checks this reading against
    the source reading on every namespace, on the Python that runs the tests).
    """
    import dis

    get_code = getattr(loader, "get_code", None)
    code = get_code(package) if get_code is not None else None
    if code is None:
        raise ImportError(f"{package}: the lazy namespace cannot read its source or its code")
    names: dict[str, str] = {}
    module = pending = ""
    armed = False  # just read TYPE_CHECKING: the next conditional jump skips the block
    block_end = -1  # offset where the block's code ends
    for instruction in dis.get_instructions(code):
        if instruction.argval == "TYPE_CHECKING":
            armed = True
        elif armed and "IF_FALSE" in instruction.opname:
            armed, block_end = False, int(instruction.argval)
        elif instruction.offset >= block_end:
            continue
        elif instruction.opname == "IMPORT_NAME":
            module = str(instruction.argval)
        elif instruction.opname == "IMPORT_FROM":
            pending = str(instruction.argval)
        else:
            if instruction.opname == "STORE_NAME" and instruction.argval == pending:
                names[pending] = module
            pending = ""
    return names


def lazy_namespace(
    package: str, submodules: Iterable[str] = ()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return ``(__getattr__, __dir__)`` for the namespace module ``package``.

    Args:
        package: The namespace's ``__name__``; its ``TYPE_CHECKING`` imports are its public names
            (:func:`type_checking_imports`), read on first use.
        submodules: Public submodules (e.g. ``"types"``) reachable as attributes without an
            explicit ``import package.submodule``.

    Returns:
        The two module-level functions. ``__getattr__`` also answers ``__all__`` (the sorted
        public names) and raises :class:`AttributeError` for any other name, as a module does.
    """
    known_submodules = frozenset(submodules)
    table: dict[str, str] = {}

    def names() -> dict[str, str]:
        if not table:
            table.update(type_checking_imports(package))
        return table

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's own name
        if name == "__all__":
            value: Any = sorted(names())
        elif name in known_submodules:
            value = importlib.import_module(f"{package}.{name}")
        elif name.startswith("__") or (module_name := names().get(name)) is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        else:
            value = getattr(importlib.import_module(module_name), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted(set(vars(sys.modules[package])) | set(names()) | known_submodules)

    return __getattr__, __dir__
