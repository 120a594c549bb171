"""Loading the installed plugins imports no vendor SDK and no optional heavy dependency.

Every pi-sdk process loads the ``pi_sdk`` entry points of what is installed (issue 16, item 5:
plugin discovery at most 50 ms more than ``import pi_sdk``). A provider or plugin package imports
its SDK or framework on first use, not when discovered: importing ``temporalio`` alone costs
about 290 ms, the vendor SDKs 30-150 ms each.

And every annotation the plugin packages' classes, functions and methods carry is a type where
something reads it at run time (pydantic, Temporal's data converter, ``get_type_hints``): an
expression like ``str & None`` fails there, never in the type checker's view. And each plugin
dataclass keeps its contract (frozen, keyword-only, compared by value or by identity).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

HEAVY = (
    "anthropic",
    "boto3",
    "botocore",
    "google.genai",
    "mistralai",
    "openai",
    "rich",
    "starlette",
    "temporalio",
    "uvicorn",
    "vcr",
)

_PROBE = """
import json, sys
import pi_sdk.plugins
manager = pi_sdk.plugins.get_plugin_manager()
names = sorted(name for name, _ in manager.list_name_plugin())
print(json.dumps({"plugins": names, "modules": sorted(sys.modules)}))
"""


def test_discovering_every_installed_plugin_imports_nothing_heavy() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    found = json.loads(done.stdout.splitlines()[-1])
    # the probe saw the first-party packages this workspace installs, so the check covers them
    assert {"temporal", "openai", "anthropic"} <= set(found["plugins"]), found["plugins"]
    loaded = set(found["modules"])
    heavy = [name for name in HEAVY if name in loaded]
    assert heavy == [], f"plugin discovery imported {heavy}"


def test_a_name_of_pi_sdk_temporal_is_imported_on_first_use() -> None:
    probe = (
        "import sys, pi_sdk_temporal as t\n"
        "before = 'temporalio' in sys.modules\n"
        "workflow = t.AgentWorkflow\n"
        "print(before, 'temporalio' in sys.modules, workflow.__module__,"
        " sorted(t.__all__) == sorted(n for n in dir(t) if n in t.__all__))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["False", "True", "pi_sdk_temporal._workflow", "True"]


def test_the_tool_policy_types_are_imported_on_first_use() -> None:
    # Discovery imports pi_sdk_tool_policy in every process; its rule types wait for a name
    # read (or the hook's first call), and then every public name is there.
    probe = (
        "import json, sys, pi_sdk.plugins\n"
        "pi_sdk.plugins.get_plugin_manager()\n"
        "import pi_sdk_tool_policy as t\n"
        "before = 'pi_sdk_tool_policy.policy' in sys.modules\n"
        "import pi_sdk_tool_policy.policy as p\n"
        "print(json.dumps([before, t.Rule is p.Rule, t.policy is p, t.__all__[4:] == p.__all__,"
        " sorted(t.__all__) == sorted(n for n in dir(t) if n in t.__all__)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(done.stdout.splitlines()[-1]) == [False, True, True, True, True]


# --- every annotation of the plugin packages resolves ----------------------------------------

PACKAGES = sorted(p for p in Path("plugins").glob("*/pi_sdk_*") if p.is_dir())


def _modules(package: Path) -> list[str]:
    root = package.parent
    names = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def _namespace(module: types.ModuleType) -> dict[str, Any]:
    """The module's globals plus what it imports only for the type checker."""
    namespace = dict(vars(module))
    tree = ast.parse(inspect.getsource(module))
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) in (
            "TYPE_CHECKING",
            "typing.TYPE_CHECKING",
        ):
            block = ast.Module(body=node.body, type_ignores=[])
            exec(compile(block, module.__file__ or "<module>", "exec"), namespace)  # noqa: S102
    return namespace


def _annotated(module: types.ModuleType) -> list[tuple[str, Any]]:
    """The module's own classes, functions and methods, with their qualified names."""
    found: list[tuple[str, Any]] = []
    for value in list(vars(module).values()):
        if getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(value):
            found.append((value.__qualname__, value))
            for member in list(vars(value).values()):
                for function in (
                    member,
                    getattr(member, "__func__", None),
                    getattr(member, "fget", None),
                    getattr(member, "fset", None),
                ):
                    if inspect.isfunction(function):
                        found.append((function.__qualname__, function))
        elif inspect.isfunction(value):
            found.append((value.__qualname__, inspect.unwrap(value)))
    return found


@pytest.mark.parametrize("package", PACKAGES, ids=[p.parent.name for p in PACKAGES])
def test_every_annotation_of_a_plugin_package_is_a_type(package: Path) -> None:
    """What pydantic, Temporal's data converter, pluggy's validation or a reader's
    ``get_type_hints`` would evaluate: each annotation of the package's classes, functions and
    methods, in its module's namespace (with the type checker's imports), is a valid type."""
    checked = 0
    for name in _modules(package):
        module = importlib.import_module(name)
        namespace = _namespace(module)
        for qualname, obj in _annotated(module):
            own = (
                vars(obj).get("__annotations__", {})
                if inspect.isclass(obj)
                else obj.__annotations__
            )
            for field, annotation in own.items():
                if not isinstance(annotation, str):
                    continue
                try:
                    eval(annotation, namespace)  # noqa: S307 - the package's own source
                except Exception as exc:
                    raise AssertionError(
                        f"{name}.{qualname}.{field}: {annotation!r}: {exc!r}"
                    ) from exc
                checked += 1
    assert checked > 0


# --- the dataclasses' contracts: immutable, keyword-only, compared by value -------------------

# (module, class, frozen, every parameter keyword-only, equal by fields): what users and the
# packages rely on: a frozen config cannot change under a running server or policy, a
# keyword-only constructor lets a field be added anywhere, a class compared by identity stays
# hashable (a Compactor or a run record as a dict key, in a set).
CONTRACTS = [
    ("pi_sdk_tool_policy.policy", "_Pattern", True, False, True),
    ("pi_sdk_tool_policy.policy", "Rule", True, True, True),
    ("pi_sdk_tool_policy.policy", "Decision", True, True, True),
    ("pi_sdk_tool_policy.policy", "ApprovalRequest", True, True, True),
    ("pi_sdk_pytest.conformance.declaration", "RecordedBody", True, True, True),
    ("pi_sdk_pytest.conformance.declaration", "ProviderUnderTest", True, True, True),
    ("pi_sdk_pytest.conformance.loopback", "Reply", False, False, True),
    ("pi_sdk_pytest.conformance.loopback", "Request", True, False, True),
    ("pi_sdk_pytest.conformance.session", "Session", False, False, True),
    ("pi_sdk_pytest.cassette", "CassetteSession", False, False, True),
    ("pi_sdk_compaction.compactor", "CompactionRecord", True, False, True),
    ("pi_sdk_compaction.compactor", "Compactor", False, False, False),
    ("pi_sdk_temporal._tool_call", "DurableToolCall", True, True, True),
    ("pi_sdk_mcp._servers", "ServerStatus", True, True, True),
    ("pi_sdk_mcp._config", "Timeouts", True, True, True),
    ("pi_sdk_mcp._config", "ServerOptions", True, True, True),
    ("pi_sdk_mcp._config", "StdioServer", True, True, True),
    ("pi_sdk_mcp._config", "HttpServer", True, True, True),
    ("pi_sdk_otel.tracing", "_Call", False, False, False),
    ("pi_sdk_otel.tracing", "_Run", False, False, False),
]


@pytest.mark.parametrize(
    ("module", "name", "frozen", "keyword_only", "by_value"),
    CONTRACTS,
    ids=[f"{m.split('.')[0]}.{n}" for m, n, *_ in CONTRACTS],
)
def test_a_plugin_dataclass_keeps_its_contract(
    module: str, name: str, frozen: bool, keyword_only: bool, by_value: bool
) -> None:
    cls = getattr(importlib.import_module(module), name)
    params = cls.__dataclass_params__
    assert (params.frozen, params.eq) == (frozen, by_value)
    kinds = {p.kind for p in inspect.signature(cls).parameters.values()}
    assert (kinds == {inspect.Parameter.KEYWORD_ONLY}) is keyword_only
    if not by_value:  # identity: hashable, and two alike are two
        assert cls.__hash__ is object.__hash__


def test_every_plugin_dataclass_has_a_contract() -> None:
    listed = {(module, name) for module, name, *_ in CONTRACTS}
    found = set()
    for package in PACKAGES:
        for module_name in _modules(package):
            module = importlib.import_module(module_name)
            for value in list(vars(module).values()):
                if dataclasses.is_dataclass(value) and value.__module__ == module_name:
                    found.add((module_name, value.__name__))
    temporal_payloads = {(m, n) for m, n in found if m == "pi_sdk_temporal._wire"}
    assert (
        found - temporal_payloads == listed
    )  # _wire: tests/temporal/test_temporal_payload_classes.py
