"""Each namespace's ``__all__`` is exactly its public names (httpx's test_exported_members).

The namespaces import their names on first use (``pi_sdk._lazy``): a namespace states each public
name once, as a ``from module import name as name`` line under ``TYPE_CHECKING`` (what type
checkers read); at run time the lazy namespace reads that block, so a public attribute is a name
the namespace module holds or lists there, not starting with ``_``, and not a submodule.
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
import pi_sdk._lazy

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


def _type_checking_block(module: types.ModuleType) -> list[ast.stmt]:
    tree = ast.parse(inspect.getsource(module))
    blocks = [
        n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)
    ]
    assert len(blocks) == 1, module.__name__
    return blocks[0].body


@pytest.mark.parametrize("name", NAMESPACES)
def test_each_public_name_is_one_redundant_alias_import_resolving_to_its_definition(name: str):
    module = importlib.import_module(name)
    found: dict[str, str] = {}
    for statement in _type_checking_block(module):
        assert isinstance(statement, ast.ImportFrom), ast.unparse(statement)
        for alias in statement.names:
            assert alias.asname == alias.name, ast.unparse(statement)  # pyright's re-export form
            assert alias.name not in found, f"{name}: {alias.name} imported twice"
            found[alias.name] = statement.module or ""
    assert pi_sdk._lazy.type_checking_imports(name) == found
    assert sorted(found) == module.__all__
    for attribute, defining in found.items():
        assert getattr(module, attribute) is getattr(importlib.import_module(defining), attribute)


def _namespace_from_source(tmp_path, monkeypatch: pytest.MonkeyPatch, source: str):
    (tmp_path / "lazyns.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lazyns", raising=False)
    return importlib.import_module("lazyns")


HEADER = "import typing\nfrom pi_sdk._lazy import lazy_namespace\n"
HOOKS = "__getattr__, __dir__ = lazy_namespace(__name__)\n"


def test_a_lazy_namespace_imports_a_name_on_first_read_and_keeps_it(tmp_path, monkeypatch):
    source = (
        HEADER
        + "if typing.TYPE_CHECKING:\n    from json import dumps as dumps\n"
        + "    from textwrap import dedent as dedent\n"
        + HOOKS
    )
    module = _namespace_from_source(tmp_path, monkeypatch, source)
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


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("from json import dumps\n", "write 'from json import dumps as dumps'"),
        ("from json import dumps as to_json\n", "write 'from json import dumps as dumps'"),
        ("import json\n", "only absolute from-imports"),
    ],
)
def test_a_lazy_namespace_refuses_a_name_type_checkers_would_not_see_as_exported(
    tmp_path, monkeypatch, block: str, message: str
):
    source = HEADER + "if typing.TYPE_CHECKING:\n    " + block + HOOKS
    module = _namespace_from_source(tmp_path, monkeypatch, source)
    with pytest.raises(ImportError, match=message):
        module.dumps  # noqa: B018


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


@pytest.mark.parametrize("name", NAMESPACES)
def test_a_sourceless_install_reads_the_same_names_from_the_compiled_code(name: str):
    """A pyc-only install (a frozen app) has no source: the names come from the code object."""
    import importlib.abc

    from pi_sdk import _lazy

    module = importlib.import_module(name)
    assert module.__file__ is not None
    with open(module.__file__, encoding="utf-8") as file:
        code = compile(file.read(), module.__file__, "exec")

    class Sourceless(importlib.abc.InspectLoader):
        def get_source(self, fullname: str) -> None:
            return None

        def get_code(self, fullname: str):  # type: ignore[override]
            return code

    assert _lazy._compiled_imports(name, Sourceless()) == _lazy.type_checking_imports(name)


def test_a_sourceless_namespace_imports_its_names(tmp_path, monkeypatch):
    import py_compile

    source = HEADER + "if typing.TYPE_CHECKING:\n    from json import dumps as dumps\n" + HOOKS
    (tmp_path / "src.py").write_text(source)
    py_compile.compile(str(tmp_path / "src.py"), cfile=str(tmp_path / "pycns.pyc"))
    (tmp_path / "src.py").unlink()
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "pycns", raising=False)

    module = importlib.import_module("pycns")
    import json

    assert module.__all__ == ["dumps"]
    assert module.dumps is json.dumps


def test_a_lazy_namespace_reads_only_the_type_checking_block_among_other_ifs(tmp_path, monkeypatch):
    """Other top-level ``if``s (a comparison, other attributes) are neither read nor refused."""
    source = (
        HEADER
        + "import os\nimport sys\n"
        + "if sys.version_info >= (3,):\n    FLAG = 1\n"  # not an attribute test at all
        + "if os.O_RDONLY:\n    ZERO = 1\n"  # an attribute sorting before TYPE_CHECKING
        + "if sys.flags.optimize:\n    OPTIMIZED = 1\n"  # and one sorting after it
        + "if typing.TYPE_CHECKING:\n    from json import dumps as dumps\n"
        + "if FLAG:\n    SEEN = 1\n"  # a name, not TYPE_CHECKING
        + HOOKS
    )
    module = _namespace_from_source(tmp_path, monkeypatch, source)
    assert module.__all__ == ["dumps"]
    assert pi_sdk._lazy.type_checking_imports("lazyns") == {"dumps": "json"}
