"""Each namespace's ``__all__`` is exactly its public names (httpx's test_exported_members).

The namespaces import their names on first use (``pi_sdk._lazy``): a public attribute is a name
the namespace module holds or lists in its lazy table, not starting with ``_``, and not a
submodule. The lazy table must also agree with the ``TYPE_CHECKING`` imports that type checkers
read, name for name and module for module.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
import types

import pytest

import pi_sdk

NAMESPACES = ["pi_sdk", "pi_sdk.provider", "pi_sdk.plugins", "pi_sdk.testing", "pi_sdk.agent"]


def _public_attributes(module: types.ModuleType) -> set[str]:
    names = set(vars(module)) | set(dir(module))
    return {
        name
        for name in names
        if not name.startswith("_")
        and name != "annotations"
        and not isinstance(getattr(module, name), types.ModuleType)
    }


@pytest.mark.parametrize("name", NAMESPACES)
def test_all_is_sorted_and_is_exactly_the_public_attributes(name: str):
    module = importlib.import_module(name)
    exported = module.__all__
    assert exported == sorted(exported)
    assert len(set(exported)) == len(exported)
    assert set(exported) == _public_attributes(module)
    for attribute in exported:
        assert getattr(module, attribute) is not None, attribute


def _type_checking_imports(module: types.ModuleType) -> dict[str, str]:
    tree = ast.parse(inspect.getsource(module))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom), ast.unparse(statement)
                for alias in statement.names:
                    found[alias.asname or alias.name] = statement.module or ""
    return found


@pytest.mark.parametrize("name", ["pi_sdk", "pi_sdk.plugins", "pi_sdk.testing", "pi_sdk.agent"])
def test_the_lazy_table_matches_the_type_checking_imports(name: str):
    module = importlib.import_module(name)
    table = {n: m for m, names in module._MODULES.items() for n in names}
    assert table == _type_checking_imports(module)
    for attribute, defining in table.items():
        assert getattr(module, attribute) is getattr(importlib.import_module(defining), attribute)


def test_the_user_namespace_stays_small_and_leaves_the_kit_to_pi_sdk_provider():
    assert len(pi_sdk.__all__) <= 100
    kit_only = {"ApiProvider", "ProviderError", "iter_sse", "ResponseBody", "transform_messages"}
    assert not kit_only & set(pi_sdk.__all__)
    assert kit_only <= set(pi_sdk.provider.__all__)
    assert {"ScriptedProvider", "ScriptedReply"} <= set(pi_sdk.testing.__all__)
    assert {"hookimpl", "PluginManager", "use_plugin_manager"} <= set(pi_sdk.plugins.__all__)


def test_an_unknown_name_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="'pi_sdk' has no attribute 'ProviderError'"):
        pi_sdk.ProviderError  # noqa: B018 - moved to pi_sdk.provider


def _modules_after(statement: str, prefixes: tuple[str, ...]) -> list[str]:
    code = (
        f"{statement}\nimport sys\n"
        f"print(','.join(sorted(m for m in sys.modules if m.startswith({prefixes!r}))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return [m for m in result.stdout.strip().split(",") if m]


@pytest.mark.parametrize(
    "statement",
    [
        "import pi_sdk",
        "import pi_sdk.testing",
        "from pi_sdk.testing import ScriptedProvider",
        "from pi_sdk import Agent, stream, tool",
    ],
)
def test_importing_pi_sdk_or_its_test_helpers_imports_no_vcrpy(statement: str):
    assert _modules_after(statement, ("vcr", "yaml")) == []


def test_the_cassette_parts_load_vcrpy_on_first_use():
    assert "vcr" in _modules_after("from pi_sdk.testing import open_cassette", ("vcr",))


PUBLIC_MODULES = [
    "pi_sdk.types",
    "pi_sdk.events",
    "pi_sdk.errors",
    "pi_sdk.options",
    "pi_sdk.plugins.hookspecs",
]


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_public_modules_list_every_class_and_function_they_define(name: str):
    """docs/api.md names these modules public: what they define must be in their ``__all__``."""
    module = importlib.import_module(name)
    defined = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and getattr(value, "__module__", None) == name
    }
    exported = set(module.__all__)
    assert defined <= exported, f"{name}: defined but not in __all__: {sorted(defined - exported)}"
    assert all(hasattr(module, attr) for attr in exported), name
