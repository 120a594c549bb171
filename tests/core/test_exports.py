"""Each namespace's ``__all__`` is exactly its public names (httpx's test_exported_members).

The namespaces import their names on first use (``pi_sdk._wire.exports``): a namespace states each
public name in a literal ``_EXPORTS`` table (what runs) and as a ``from module import name as
name`` line under ``TYPE_CHECKING`` (what type checkers read); the two must agree. A public
attribute is a name the namespace module holds or lists there, not starting with ``_``, and not a
submodule.
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
NAMESPACE_STATEMENTS = (
    "_EXPORTS = ",
    "_DEPRECATED = ",
    "__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS",
    "__all__ = ",
)
"""What a namespace module may hold besides docstrings, imports and its TYPE_CHECKING block."""


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


def _type_checking_block(module: types.ModuleType) -> list[ast.stmt]:
    tree = ast.parse(inspect.getsource(module))
    blocks = [
        n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)
    ]
    assert len(blocks) == 1, module.__name__
    return blocks[0].body


def _exports_table(module: types.ModuleType) -> dict[str, str]:
    """The namespace's literal ``_EXPORTS`` table, read from its source (the test reads it; the
    namespace itself never parses anything)."""
    tree = ast.parse(inspect.getsource(module))
    tables = [
        n
        for n in tree.body
        if isinstance(n, ast.Assign)
        and [ast.unparse(t) for t in n.targets] == ["_EXPORTS"]
        and isinstance(n.value, ast.Dict)
    ]
    assert len(tables) == 1, f"{module.__name__}: one literal _EXPORTS table"
    value = ast.literal_eval(tables[0].value)
    assert isinstance(value, dict)
    return value


@pytest.mark.parametrize("name", NAMESPACES)
def test_the_type_checking_block_and_the_exports_table_name_the_same_definitions(name: str):
    module = importlib.import_module(name)
    found: dict[str, str] = {}
    for statement in _type_checking_block(module):
        assert isinstance(statement, ast.ImportFrom), ast.unparse(statement)
        for alias in statement.names:
            assert alias.asname == alias.name, ast.unparse(statement)  # pyright's re-export form
            assert alias.name not in found, f"{name}: {alias.name} imported twice"
            source = statement.module or ""
            found[alias.name] = source if source != name else f"{name}.{alias.name}"
    assert found == _exports_table(module)
    assert sorted(n for n, m in found.items() if m != f"{name}.{n}") == module.__all__
    for attribute, defining in found.items():
        value = getattr(module, attribute)
        if defining == f"{name}.{attribute}":
            assert value is importlib.import_module(defining)
        else:
            assert value is getattr(importlib.import_module(defining), attribute)


@pytest.mark.parametrize("name", NAMESPACES)
def test_a_namespace_holds_re_exports_only(name: str):
    """Docstrings, imports, the table, the TYPE_CHECKING block, the hooks and ``__all__``."""
    tree = ast.parse(inspect.getsource(importlib.import_module(name)))
    for node in tree.body:
        text = ast.unparse(node)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring
        if isinstance(node, ast.ImportFrom | ast.Import):
            continue
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        assert text.startswith(NAMESPACE_STATEMENTS), f"{name}: {text[:80]}"


def _namespace_from_source(tmp_path, monkeypatch: pytest.MonkeyPatch, source: str):
    (tmp_path / "lazyns.py").write_text(source)
    (tmp_path / "lazyns_sub.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lazyns", raising=False)
    return importlib.import_module("lazyns")


LAZY_SOURCE = (
    "from pi_sdk._wire.exports import lazy_exports\n"
    "_EXPORTS = {'dumps': 'json', 'dedent': 'textwrap'}\n"
    "__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)\n"
)


def test_a_lazy_namespace_imports_a_name_on_first_read_and_keeps_it(tmp_path, monkeypatch):
    module = _namespace_from_source(tmp_path, monkeypatch, LAZY_SOURCE)
    assert "dumps" not in vars(module)
    assert module.__all__ == ["dedent", "dumps"]
    assert {"dedent", "dumps"} <= set(dir(module))
    import json

    assert module.dumps is json.dumps
    assert vars(module)["dumps"] is json.dumps
    star: dict[str, object] = {}
    exec("from lazyns import *", star)
    assert {k for k in star if not k.startswith("__")} == {"dedent", "dumps"}
    with pytest.raises(AttributeError, match="'lazyns' has no attribute 'loads'"):
        module.loads  # noqa: B018 - not listed, though json defines it


def test_a_table_entry_naming_the_namespace_s_own_submodule_imports_that_module(
    tmp_path, monkeypatch
):
    """``pi_sdk.types`` reads as an attribute of ``pi_sdk`` without ``import pi_sdk.types``."""
    package = tmp_path / "lazypkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from pi_sdk._wire.exports import lazy_exports\n"
        "__getattr__, __dir__ = lazy_exports(__name__, {'sub': 'lazypkg.sub'})\n"
    )
    (package / "sub.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lazypkg", raising=False)
    monkeypatch.delitem(sys.modules, "lazypkg.sub", raising=False)
    module = importlib.import_module("lazypkg")
    assert "lazypkg.sub" not in sys.modules
    assert module.sub.VALUE == 1
    assert sys.modules["lazypkg.sub"] is module.sub


def test_the_user_namespace_stays_small_and_leaves_the_kit_to_pi_sdk_provider():
    # 100 until issue 26 added the collections (Models, Provider, ProviderAuth, default_models,
    # register_provider, the answers AuthCheck and RefreshResult, the model store) and took
    # tune_gc_for_streams out of the provider kit (at most 50 names); 116 since issue 27 added
    # the transcript form (SystemMessage, normalize_context and the three replay helpers); 121
    # with issue 28's FallbackPolicy, RateLimit, RateLimiter, count_tokens and TokenCount.
    # 125 with issue 29's DocumentContent, ServerToolCall, ServerToolResult and Citation.
    assert len(pi_sdk.__all__) <= 125
    assert len(pi_sdk.provider.__all__) <= 50
    kit_only = {"ApiProvider", "ProviderError", "iter_sse", "HttpCall", "transform_messages"}
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


def test_cassette_replay_loads_vcrpy_on_first_use():
    assert "vcr" in _modules_after("from pi_sdk.testing import replay_vcr; replay_vcr()", ("vcr",))


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


def test_a_deprecated_name_still_answers_with_a_warning_and_is_never_exported(
    tmp_path, monkeypatch
):
    source = (
        "from pi_sdk._wire.exports import lazy_exports\n"
        "__getattr__, __dir__ = lazy_exports(\n"
        "    __name__, {'dumps': 'json'}, {'loads': ('json', 'use json.loads')}\n"
        ")\n"
    )
    module = _namespace_from_source(tmp_path, monkeypatch, source)
    import json

    with pytest.warns(DeprecationWarning, match=r"lazyns\.loads is deprecated .*use json\.loads"):
        assert module.loads is json.loads
    assert "loads" not in vars(module)  # asked again, it warns again
    assert module.__all__ == ["dumps"] and "loads" not in dir(module)
