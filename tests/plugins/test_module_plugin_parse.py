"""Registering a module plugin answers, name by name, what pluggy's own parsing answers.

:class:`pi_sdk.plugins.PluginManager` skips pluggy's :func:`inspect.getattr_static` for module
attributes that cannot be hook implementations (issue 32 item 2: most of registering a module
plugin); every other name still goes to pluggy. Each case compares both answers.
"""

from __future__ import annotations

import sys
import types

import pluggy

import pi_sdk
from pi_sdk._plugins import manager as manager_module
from pi_sdk.plugins import PluginManager


def _marked_register_providers() -> object:
    @pi_sdk.hookimpl
    def register_providers(register):
        pass

    return register_providers


def _module() -> types.ModuleType:
    module = types.ModuleType("pi_test_parse_plugin")

    @pi_sdk.hookimpl
    def register_models(register):
        pass

    @pi_sdk.hookimpl(specname="on_payload", optionalhook=True)
    def renamed(payload, model):
        return None

    def plain(x):
        return x

    class Holder:
        def method(self):
            return self

        @staticmethod
        @pi_sdk.hookimpl
        def register_api_providers(register):
            pass

    module.__dict__.update(
        register_models=register_models,
        renamed=renamed,
        plain=plain,
        Holder=Holder,
        register_providers=staticmethod(_marked_register_providers()),
        bound=Holder().method,
        number=3,
        text="register_models",
        builtin=len,
        sys=sys,
        __annotations__={"number": int},
    )
    module.__getattr__ = lambda name: register_models if name == "lazy" else None  # type: ignore[attr-defined]
    return module


def test_every_name_of_a_module_plugin_parses_as_pluggy_parses_it() -> None:
    module = _module()
    manager = PluginManager()
    names = [*dir(module), "lazy", "missing"]
    for name in names:
        ours = manager.parse_hookimpl_opts(module, name)
        theirs = pluggy.PluginManager.parse_hookimpl_opts(manager, module, name)
        assert ours == theirs, name
    assert manager.parse_hookimpl_opts(module, "register_models") is not None
    assert manager.parse_hookimpl_opts(module, "plain") is None


def test_only_unmarked_module_values_take_the_short_way() -> None:
    module = _module()
    short = {
        name
        for name in dir(module)
        if manager_module._plain_module_attribute(module, name, "pi_sdk_impl")  # pyright: ignore[reportPrivateUsage]
    }
    assert {"plain", "Holder", "number", "text", "builtin", "sys"} <= short
    assert not {"register_models", "renamed", "register_providers", "bound"} & short
    assert not manager_module._plain_module_attribute(object(), "x", "pi_sdk_impl")  # pyright: ignore[reportPrivateUsage]


def test_a_module_plugin_registers_its_marked_functions_only() -> None:
    manager = PluginManager()
    manager.register(_module(), name="parse-test")
    names = {impl.function.__name__ for impl in manager.hook.register_models.get_hookimpls()}
    assert names == {"register_models"}
    assert [i.plugin_name for i in manager.hook.on_payload.get_hookimpls()] == ["parse-test"]
