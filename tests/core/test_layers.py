"""Imports inside pi_sdk go only downward (docs/architecture.md, target-layout section 4).

Every ``import`` / ``from ... import`` in every module of ``pi_sdk/`` is read from the source
(module level, inside functions and under ``TYPE_CHECKING`` alike) and checked against the layer
table below: a module may import modules of its own layer or lower ones. The one documented
exception is the type-only edge ``errors -> types`` (``errors`` names ``AssistantMessage`` in
annotations, as httpx's ``_exceptions`` names ``_models``): ``errors`` is the bottom of L0, and
``types`` imports it at run time.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

import pi_sdk

PACKAGE = Path(pi_sdk.__file__).parent

# Layer of each module (dotted, without the ``pi_sdk.`` prefix); a package prefix ending in
# "." covers every module below it that is not listed on its own. Fractions order modules
# inside L0: errors at the bottom, the types the other data modules build on next.
LAYERS: dict[str, float] = {
    # L0 data: no pi-sdk imports but L0's own
    "errors": 0.0,
    "_abort": 0.1,
    "_activity": 0.1,
    "_unicode": 0.1,
    "_lazy": 0.1,
    "_levels": 0.1,
    "_output": 0.1,
    "_lean": 0.15,
    "types": 0.2,
    "events": 0.3,
    "options": 0.3,
    "_overflow": 0.3,
    # L1 contracts (and the tool-argument schema helpers the AgentTool base uses)
    "_provider_api": 1,
    "agent._types": 1,
    "agent._validation": 1,
    "agent._estimate": 1,
    "agent._invalid_arguments": 1,
    # L2 plugins
    "plugins.hookspecs": 2,
    "plugins._manager": 2,
    "plugins._calling": 2,
    "plugins._listing": 2,
    "plugins._setting": 2,
    "plugins._observers": 2,
    # L3 services, the provider kit, the message-type registry
    "_registry": 3,
    "_calls": 3,
    "_event_stream": 3,
    "_usage_estimate": 3,
    "_transform": 3,
    "_redact": 3,
    "_log_redaction": 3,
    "_ids": 3,
    "_provider_errors": 3,
    "provider.": 3,
    "agent._messages": 3,
    # L4 agent engine
    "agent._tool_thread": 1,
    "agent._tools": 4,
    "agent._tool_calls": 4,
    "agent._transcript": 4,
    "agent._loop": 4,
    "agent._output_repair": 4,
    "agent._proxy_policy": 3,
    "agent._proxy_wire": 4,
    "agent._proxy_client": 4,
    "agent._proxy_server": 5,
    # L5 edges
    "agent._agent": 5,
    "agent._session": 5,
    "agent._jsonl": 5,
    "agent._entry_errors": 5,
    "agent._pi_session": 5,
    "agent._pi_messages": 3,
    "testing.": 5,
    "_cli.": 5,
    "_serve": 5,
    # L6 namespaces: re-exports only
    "__init__": 6,
    "provider.__init__": 6,
    "plugins.__init__": 6,
    "agent.__init__": 6,
    "testing.__init__": 6,
}

TYPE_ONLY_EXCEPTIONS = {("errors", "types")}
"""(importer, imported) pairs allowed upward, each only under ``if TYPE_CHECKING:``."""


def layer_of(module: str) -> float:
    """Return the layer of ``module`` (dotted, no ``pi_sdk.`` prefix)."""
    if module in LAYERS:
        return LAYERS[module]
    prefixes = [p for p in LAYERS if p.endswith(".") and module.startswith(p)]
    if not prefixes:
        raise KeyError(f"pi_sdk.{module} has no layer: add it to LAYERS in {__file__}")
    return LAYERS[max(prefixes, key=len)]


@dataclass(frozen=True)
class Edge:
    importer: str
    imported: str
    line: int
    type_only: bool


def _module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts)


def _target(importer: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = ["pi_sdk", *importer.split(".")][: -node.level]  # relative import
    return ".".join([*package, *([node.module] if node.module else [])])


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _internal(name: str) -> str | None:
    """``pi_sdk.x.y`` -> ``x.y`` (``pi_sdk`` itself -> ``__init__``); other packages -> None."""
    if name == "pi_sdk":
        return "__init__"
    if name.startswith("pi_sdk."):
        return name.removeprefix("pi_sdk.")
    return None


def _resolve(target: str) -> str:
    """A package import means its ``__init__``; a module import means the module."""
    path = PACKAGE.joinpath(*target.split("."))
    if path.is_dir():
        return "__init__" if target == "" else f"{target}.__init__"
    return target


def edges_of(source: str, importer: str) -> list[Edge]:
    """Every pi_sdk-internal import in ``source`` (the module ``importer``)."""
    edges: list[Edge] = []

    def visit(node: ast.AST, type_only: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, type_only)
            return
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _target(importer, node)
            internal = _internal(base)
            if internal is not None:
                # `from pi_sdk.x import y` may name a submodule y: then y is what is imported.
                for alias in node.names:
                    sub = f"{internal}.{alias.name}" if internal != "__init__" else alias.name
                    is_module = PACKAGE.joinpath(*sub.split(".")).with_suffix(".py").is_file()
                    names.append(f"pi_sdk.{sub}" if is_module else base)
        for name in names:
            internal = _internal(name)
            if internal is not None:
                target = _resolve("" if internal == "__init__" else internal)
                edge = Edge(importer, target, getattr(node, "lineno", 0), type_only)
                if edge not in edges:
                    edges.append(edge)
        for child in ast.iter_child_nodes(node):
            visit(child, type_only)

    visit(ast.parse(source), False)
    return edges


def upward_edges(root: Path = PACKAGE) -> list[str]:
    """Describe every import in ``root`` that goes up the layer table."""
    problems: list[str] = []
    for path in sorted(root.rglob("*.py")):
        importer = _module_name(path, root)
        for edge in edges_of(path.read_text(encoding="utf-8"), importer):
            if edge.imported == importer:
                continue
            low, high = layer_of(importer), layer_of(edge.imported)
            if high <= low:
                continue
            if edge.type_only and (importer, edge.imported) in TYPE_ONLY_EXCEPTIONS:
                continue
            kind = "type-only " if edge.type_only else ""
            problems.append(
                f"pi_sdk/{path.relative_to(root)}:{edge.line}: {kind}import of"
                f" pi_sdk.{edge.imported} (L{high:g}) from pi_sdk.{importer} (L{low:g})"
            )
    return problems


def test_every_module_has_a_layer():
    for path in PACKAGE.rglob("*.py"):
        layer_of(_module_name(path))  # raises for a module missing from the table


def test_no_module_imports_upward():
    assert upward_edges() == []


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("from pi_sdk.agent._loop import agent_loop\n", "module level"),
        ("def f():\n    from pi_sdk.plugins import _manager\n", "inside a function"),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pi_sdk.agent._types\n",
            "under TYPE_CHECKING",
        ),
        ("import pi_sdk\n", "the user namespace"),
    ],
)
def test_the_walk_sees_every_kind_of_upward_import(tmp_path: Path, source: str, why: str):
    module = tmp_path / "types.py"  # an L0 module
    module.write_text(source)
    assert len(upward_edges(tmp_path)) == 1, why


def test_the_errors_to_types_exception_holds_only_under_type_checking(tmp_path: Path):
    (tmp_path / "errors.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pi_sdk.types import X\n"
    )
    assert upward_edges(tmp_path) == []
    (tmp_path / "errors.py").write_text("from pi_sdk.types import X\n")
    assert len(upward_edges(tmp_path)) == 1
