"""The hook factories of ``pi_sdk/_kit/plugin_hooks.py`` (deprecated in the kit), called directly.

Each factory builds a plain function a provider package binds to a hook name; what a package
relies on is what that function does when pluggy calls it: ``lazy_stream`` imports the wire
module at the first call (not before) and hands back the wire function's own stream, the
registering hooks register every item in order, and ``env_api_key_hook`` reads the variables
in order at each call, skipping empty ones.
"""

from __future__ import annotations

import json
import sys
import types
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from pi_sdk._kit import plugin_hooks as kit
from pi_sdk._kit.plugin_hooks import lazy_stream
from pi_sdk._stream.contract import ApiProvider
from pi_sdk.types import Model

MODULE = "pi_sdk_test_lazy_wire"


def _fake_stream(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
    raise AssertionError("replaced per test")


@pytest.fixture
def wire_module(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = types.ModuleType(MODULE)
    monkeypatch.setitem(sys.modules, MODULE, module)
    return module


def test_lazy_stream_resolves_the_function_at_each_call_and_returns_its_stream(
    wire_module: types.ModuleType,
):
    stream = lazy_stream(MODULE, "stream_acme")
    # named after what it stands for, before the module has the function at all
    assert (stream.__module__, stream.__name__, stream.__qualname__) == (
        MODULE,
        "stream_acme",
        "stream_acme",
    )
    assert stream.__doc__ == (
        f"The stream function: :func:`{MODULE}.stream_acme` (imported on first call)."
    )
    calls: list[tuple[object, object, object]] = []
    sentinel = object()

    def stream_acme(model: object, context: object, options: object) -> object:
        calls.append((model, context, options))
        return sentinel

    wire_module.stream_acme = stream_acme  # type: ignore[attr-defined]
    model, context, options = object(), object(), object()
    assert stream(model, context, options) is sentinel  # type: ignore[arg-type]
    assert calls == [(model, context, options)]

    def replaced(model: object, context: object, options: object) -> object:
        return "second"

    wire_module.stream_acme = replaced  # type: ignore[attr-defined]
    assert stream(model, context, options) == "second"  # type: ignore[arg-type]


def test_lazy_stream_raises_at_the_call_when_the_name_is_missing(wire_module: types.ModuleType):
    stream = lazy_stream(MODULE, "absent")  # registration does not look
    with pytest.raises(AttributeError, match="absent"):
        stream(object(), object(), object())  # type: ignore[arg-type]
    with pytest.raises(ModuleNotFoundError, match="pi_sdk_no_such_wire_module"):
        lazy_stream("pi_sdk_no_such_wire_module", "f")(object(), object(), object())  # type: ignore[arg-type]


def test_lazy_api_with_a_stream_by_position_builds_a_stream_provider(
    wire_module: types.ModuleType,
):
    provider = kit.lazy_api("acme-api", MODULE, "stream_acme", None)
    assert provider.api == "acme-api"
    assert provider.call is None and provider.recognize is None
    assert provider.stream is not None and provider.stream.__name__ == "stream_acme"
    wire_module.stream_acme = lambda m, c, o: ("streamed", m)  # type: ignore[attr-defined]
    assert provider.stream("M", None, None) == ("streamed", "M")  # type: ignore[arg-type]


def test_api_providers_hook_registers_every_provider_in_order_and_names_them():
    first = kit.lazy_api("one-api", MODULE, call="call_one", recognize=None)
    second = kit.lazy_api("two-api", MODULE, call="call_two", recognize=None)
    hook = kit.api_providers_hook(first, second)
    registered: list[ApiProvider] = []
    assert hook(registered.append) is None
    assert registered == [first, second]
    assert registered[0] is first and registered[1] is second
    assert hook.__name__ == "register_api_providers"
    assert hook.__doc__ == "Register ``one-api``, ``two-api``."
    empty: list[ApiProvider] = []
    kit.api_providers_hook()(empty.append)
    assert empty == []


def test_models_hook_registers_every_model_of_the_package_catalog_at_each_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    package = tmp_path / "pi_sdk_test_catalog"
    package.mkdir()
    (package / "__init__.py").write_text("")
    catalog = package / "models.json"
    rows = [
        {"id": "acme-1", "api": "acme-api", "provider": "acme", "contextWindow": 1000},
        {"id": "acme-2", "api": "acme-api", "provider": "acme", "maxTokens": 77},
    ]
    catalog.write_text(json.dumps({"models": rows}))
    monkeypatch.syspath_prepend(str(tmp_path))
    hook = kit.models_hook("pi_sdk_test_catalog")
    registered: list[Model] = []
    hook(registered.append)
    assert [(m.provider, m.id, m.api) for m in registered] == [
        ("acme", "acme-1", "acme-api"),
        ("acme", "acme-2", "acme-api"),
    ]
    assert registered[0].context_window == 1000 and registered[1].max_tokens == 77
    # read at the call, not at the factory: a changed file is seen by the next call
    catalog.write_text(json.dumps({"models": rows[1:]}))
    again: list[Model] = []
    hook(again.append)
    assert [m.id for m in again] == ["acme-2"]
    monkeypatch.delitem(sys.modules, "pi_sdk_test_catalog", raising=False)


def test_env_api_key_hook_tries_the_variables_in_order_at_each_call(
    monkeypatch: pytest.MonkeyPatch,
):
    hook = kit.env_api_key_hook({"acme": ("ACME_TOKEN", "ACME_KEY"), "zeta": ("ZETA_KEY",)})
    assert hook.__name__ == "get_api_key"
    assert hook.__doc__ == (
        "Return the key from the environment "
        "(``acme``: ``ACME_TOKEN``, ``ACME_KEY``; ``zeta``: ``ZETA_KEY``)."
    )
    for name in ("ACME_TOKEN", "ACME_KEY", "ZETA_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert hook("acme") is None  # none set
    assert hook("unknown") is None  # not listed
    monkeypatch.setenv("ACME_KEY", "key-2")
    assert hook("acme") == "key-2"
    monkeypatch.setenv("ACME_TOKEN", "")
    assert hook("acme") == "key-2"  # an empty variable is not a key
    monkeypatch.setenv("ACME_TOKEN", "token-1")
    assert hook("acme") == "token-1"  # the first set one wins
    assert hook("zeta") is None
    monkeypatch.setenv("ZETA_KEY", "z")
    assert hook("zeta") == "z"


def test_a_module_binding_the_factories_registers_as_a_plugin_answering_each_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """What a provider package's ``__init__`` does: bind the three factories, be registered."""
    from pi_sdk._plugins.manager import PluginManager

    (tmp_path / "pi_sdk_test_bound").mkdir()
    (tmp_path / "pi_sdk_test_bound" / "__init__.py").write_text("")
    row = {"id": "bound-1", "api": "bound-api", "provider": "bound"}
    (tmp_path / "pi_sdk_test_bound" / "models.json").write_text(json.dumps({"models": [row]}))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("BOUND_KEY", "bound-secret")
    provider = kit.lazy_api("bound-api", MODULE, call="call_bound", recognize=None)
    package = types.ModuleType("pi_sdk_test_bound_plugin")
    package.register_api_providers = kit.api_providers_hook(provider)  # type: ignore[attr-defined]
    package.register_models = kit.models_hook("pi_sdk_test_bound")  # type: ignore[attr-defined]
    package.get_api_key = kit.env_api_key_hook({"bound": ("BOUND_KEY",)})  # type: ignore[attr-defined]
    pm = PluginManager()
    pm.register(package, name="bound")
    hooks = sorted(caller.name for caller in pm.get_hookcallers(package) or [])
    assert hooks == ["get_api_key", "register_api_providers", "register_models"]
    providers: list[ApiProvider] = []
    models: list[Model] = []
    pm.hook.register_api_providers(register=providers.append)
    pm.hook.register_models(register=models.append)
    assert providers == [provider]
    assert [(m.provider, m.id, m.api) for m in models] == [("bound", "bound-1", "bound-api")]
    assert pm.hook.get_api_key(provider="bound") == "bound-secret"
    assert pm.hook.get_api_key(provider="other") is None
    monkeypatch.delitem(sys.modules, "pi_sdk_test_bound", raising=False)
