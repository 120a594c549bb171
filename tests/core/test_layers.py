"""The house rules of ``pi_sdk/`` (docs/architecture.md): layers, no import circle, small modules.

Every folder ``pi_sdk/_<layer>/`` is one layer. The files at the top of ``pi_sdk/`` (with the
namespace packages ``agent/``, ``plugins/``, ``provider/``, ``testing/``) are public: the
namespaces, above every layer, and the public modules that hold the wire vocabulary itself
(``types``, ``errors``, ``events``, ``options``: layer 0) and the hook contract
(``plugins.hookspecs``: layer 2). Every ``import`` / ``from ... import`` of every module is read
from the source (module level, inside functions and under ``TYPE_CHECKING`` alike): a module may
import modules of its own layer or lower ones, and no layer module imports a namespace.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

import pi_sdk

PACKAGE = Path(pi_sdk.__file__).parent
REPOSITORY = PACKAGE.parent

LAYERS: dict[str, int] = {
    "_wire": 0,  # data every layer speaks, pure functions over it
    "_stream": 1,  # one call: the provider contract, the event stream, the read loop
    "_plugins": 2,  # pluggy: hookspecs, the manager, calling hooks
    "_models": 3,  # providers, catalogs, keys; stream() / complete()
    "_kit": 4,  # helpers provider packages are written with
    "_agent": 5,  # the loop, tools, Agent, sessions
    "_testing": 6,  # scripted provider, replay
    "_serve": 7,  # the proxy and pi-messages protocols: clients and server
    "_cli": 8,  # the command line
}
NAMESPACE_LAYER = 9
NAMESPACES = {
    "__init__",
    "agent.__init__",
    "plugins.__init__",
    "provider.__init__",
    "testing.__init__",
}
"""The namespaces: re-exports of layer modules (tests/core/test_exports.py)."""
PUBLIC_MODULES = {"types": 0, "errors": 0, "events": 0, "options": 0, "plugins.hookspecs": 2}
"""Public modules with content of their own, and their layer."""

MAX_LINES = 700


def layer_of(module: str) -> int:
    """Return the layer of ``module`` (dotted, no ``pi_sdk.`` prefix).

    Raises:
        KeyError: a private module outside every layer folder.
    """
    if module in NAMESPACES:
        return NAMESPACE_LAYER
    if module in PUBLIC_MODULES:
        return PUBLIC_MODULES[module]
    folder = module.split(".")[0]
    if folder in LAYERS:
        return LAYERS[folder]
    raise KeyError(
        f"pi_sdk.{module} is neither a public namespace nor in a layer folder"
        f" ({', '.join(LAYERS)}): move it into the folder of its layer"
    )


@dataclass(frozen=True)
class Edge:
    importer: str
    imported: str
    line: int


def _module_name(path: Path, root: Path = PACKAGE) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def _internal(name: str) -> str | None:
    """``pi_sdk.x.y`` -> ``x.y`` (``pi_sdk`` itself -> ``__init__``); other packages -> None."""
    if name == "pi_sdk":
        return "__init__"
    if name.startswith("pi_sdk."):
        return name.removeprefix("pi_sdk.")
    return None


def _resolve(target: str, root: Path) -> str:
    """A package import means its ``__init__``; a module import means the module."""
    path = root.joinpath(*target.split("."))
    if path.is_dir():
        return "__init__" if target == "" else f"{target}.__init__"
    return target


def edges_of(source: str, importer: str, root: Path = PACKAGE) -> list[Edge]:
    """Every pi_sdk-internal import in ``source`` (the module ``importer``)."""
    edges: list[Edge] = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            internal = _internal(node.module)
            if internal is not None:
                # `from pi_sdk.x import y` may name a submodule y: then y is what is imported.
                for alias in node.names:
                    sub = f"{internal}.{alias.name}" if internal != "__init__" else alias.name
                    is_module = root.joinpath(*sub.split(".")).with_suffix(".py").is_file()
                    names.append(f"pi_sdk.{sub}" if is_module else node.module)
        elif isinstance(node, ast.ImportFrom) and node.level:
            names = ["relative"]
        for name in names:
            if name == "relative":
                edges.append(Edge(importer, "<relative import>", node.lineno))
                continue
            internal = _internal(name)
            if internal is not None:
                target = _resolve("" if internal == "__init__" else internal, root)
                edge = Edge(importer, target, getattr(node, "lineno", 0))
                if edge not in edges:
                    edges.append(edge)
    return edges


def _all_edges(root: Path = PACKAGE) -> list[Edge]:
    edges: list[Edge] = []
    for path in sorted(root.rglob("*.py")):
        edges += edges_of(path.read_text(encoding="utf-8"), _module_name(path, root), root)
    return edges


def upward_edges(root: Path = PACKAGE) -> list[str]:
    """Describe every import in ``root`` that goes up a layer (or into a namespace)."""
    problems: list[str] = []
    for edge in _all_edges(root):
        if edge.imported == "<relative import>":
            problems.append(f"pi_sdk.{edge.importer}:{edge.line}: a relative import")
            continue
        if edge.imported == edge.importer:
            continue
        low, high = layer_of(edge.importer), layer_of(edge.imported)
        if high > low:
            problems.append(
                f"pi_sdk.{edge.importer}:{edge.line}: import of pi_sdk.{edge.imported}"
                f" (layer {high}) from layer {low}"
            )
    return problems


def import_cycles(root: Path = PACKAGE) -> list[list[str]]:
    """The strongly connected components of the module import graph with more than one module."""
    graph: dict[str, set[str]] = {}
    for edge in _all_edges(root):
        if edge.imported != edge.importer and not edge.imported.startswith("<"):
            graph.setdefault(edge.importer, set()).add(edge.imported)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def connect(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                connect(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return cycles


def test_every_module_is_a_namespace_or_in_a_layer_folder():
    for path in PACKAGE.rglob("*.py"):
        layer_of(_module_name(path))  # raises for a private module outside the layer folders


def test_no_module_imports_upward_or_a_namespace():
    assert upward_edges() == []


def test_no_import_circle():
    assert import_cycles() == []


def test_no_module_is_longer_than_the_budget():
    long = {
        str(path.relative_to(REPOSITORY)): lines
        for tree in ("pi_sdk", "providers", "plugins")
        for path in (REPOSITORY / tree).rglob("*.py")
        if ".venv" not in path.parts
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"modules over {MAX_LINES} lines: split them by concept"


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("from pi_sdk._agent.loop import agent_loop\n", "module level"),
        ("def f():\n    from pi_sdk._plugins import manager\n", "inside a function"),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pi_sdk._agent.x\n",
            "type",
        ),
        ("import pi_sdk\n", "the user namespace"),
        ("from pi_sdk import agent\n", "a namespace package"),
    ],
)
def test_the_walk_sees_every_kind_of_upward_import(tmp_path: Path, source: str, why: str):
    (tmp_path / "_wire").mkdir()
    (tmp_path / "_agent").mkdir()
    (tmp_path / "_agent" / "loop.py").write_text("")
    (tmp_path / "_plugins").mkdir()
    (tmp_path / "_plugins" / "manager.py").write_text("")
    (tmp_path / "_wire" / "types.py").write_text(source)  # a layer-0 module
    assert len(upward_edges(tmp_path)) == 1, why


def test_the_cycle_check_finds_a_circle_through_function_level_imports(tmp_path: Path):
    (tmp_path / "_wire").mkdir()
    (tmp_path / "_wire" / "a.py").write_text("from pi_sdk._wire import b\n")
    (tmp_path / "_wire" / "b.py").write_text("def f():\n    from pi_sdk._wire.a import x\n")
    assert import_cycles(tmp_path) == [["_wire.a", "_wire.b"]]


def test_a_private_module_at_the_top_is_refused():
    with pytest.raises(KeyError, match="move it into the folder of its layer"):
        layer_of("_registry")
