"""Two distributions publishing one entry-point name, and a provider entry point's wrapper
(``pi_sdk/_plugins/manager.py``, ``provider_plugin.py``, ``pi_sdk/errors.py``): the first (by
name order of the scan) loads, every later one is a :class:`PluginLoadError` naming the
distribution that has the name and the one not loaded, with a warning; a provider registered
through an entry point is wrapped, shows its providers in its repr, and unregistering the
provider object itself removes the wrapper.
"""

from __future__ import annotations

import sys
import types
import warnings
from typing import Any

import pytest

import pi_sdk
from pi_sdk._plugins import manager as manager_module
from pi_sdk._plugins.entry_points import FoundEntryPoint
from pi_sdk.errors import PluginLoadError
from pi_sdk.plugins import PluginManager, use_plugin_manager

MODULE = "pi_sdk_test_clash_plugin"


@pytest.fixture
def published(monkeypatch: pytest.MonkeyPatch) -> pi_sdk.Provider:
    module = types.ModuleType(MODULE)
    provider = pi_sdk.Provider(
        id="acme", models=[pi_sdk.Model(id="a-1", api="acme-api", provider="acme")]
    )
    module.PROVIDER = provider  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, MODULE, module)
    monkeypatch.delenv(manager_module.LOAD_PLUGINS_ENV, raising=False)
    found = [
        FoundEntryPoint("acme", f"{MODULE}:PROVIDER", "pi_sdk", "pi-sdk-acme", "1.0"),
        FoundEntryPoint("acme", f"{MODULE}:PROVIDER", "pi_sdk", "pi-sdk-acme-fork", "2.0"),
        FoundEntryPoint("acme", f"{MODULE}:PROVIDER", "pi_sdk", "", None),
    ]
    monkeypatch.setattr(manager_module, "_entry_points", lambda group: list(found))
    return provider


def test_a_name_published_twice_loads_once_and_names_both_distributions(
    published: pi_sdk.Provider,
):
    pm = PluginManager()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pm.load_entry_points()
    texts = [
        "plugin 'acme' failed to load: ValueError: entry-point name also used by pi-sdk-acme;"
        " pi-sdk-acme-fork not loaded",
        "plugin 'acme' failed to load: ValueError: entry-point name also used by pi-sdk-acme;"
        " this one not loaded",
    ]
    assert [str(e) for e in pm.load_errors] == texts
    assert [str(w.message) for w in caught if w.category is RuntimeWarning] == texts
    error = pm.load_errors[0]
    assert isinstance(error, PluginLoadError) and error.plugin == "acme"
    assert isinstance(error.cause, ValueError)
    assert pm.distributions == {"acme": ("pi-sdk-acme", "1.0")}
    wrapper = pm.get_plugin("acme")
    assert repr(wrapper) == "<providers of 'acme': acme>"
    with use_plugin_manager(pm):
        assert [m.id for m in pi_sdk.default_models().models("acme")] == ["a-1"]


def test_unregistering_the_provider_object_removes_its_wrapper(published: pi_sdk.Provider):
    pm = PluginManager()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pm.load_entry_points()
    assert pm.has_plugin("acme")
    removed: Any = pm.unregister(published)
    assert repr(removed) == "<providers of 'acme': acme>"
    assert not pm.has_plugin("acme")
    with use_plugin_manager(pm):
        assert "acme" not in [p.id for p in pi_sdk.default_models().providers()]


def test_a_list_of_providers_is_one_wrapper_naming_each():
    from pi_sdk._plugins.provider_plugin import as_plugin

    one, two = pi_sdk.Provider(id="one"), pi_sdk.Provider(id="two")
    assert repr(as_plugin([one, two], "pair")) == "<providers of 'pair': one, two>"
    with pytest.raises(TypeError) as caught:
        as_plugin([one, "two"], "mixed")
    assert str(caught.value) == (
        "entry point 'mixed' names a sequence; it may hold only pi_sdk.Provider objects"
    )


@pytest.mark.parametrize("activate", ["set", "use"])
def test_a_manager_made_active_by_hand_loads_no_entry_points_unless_asked(
    published: pi_sdk.Provider, activate: str
):
    from pi_sdk.plugins import get_plugin_manager, restore_plugin_manager, set_plugin_manager

    pm = PluginManager()
    if activate == "set":
        previous = set_plugin_manager(pm)
        try:
            assert get_plugin_manager() is pm and not pm.has_plugin("acme")
        finally:
            restore_plugin_manager(previous)
    else:
        with use_plugin_manager(pm):
            assert get_plugin_manager() is pm and not pm.has_plugin("acme")
    assert pm.load_errors == [] and pm.distributions == {}


def test_load_warnings_point_at_the_code_that_first_used_the_plugins(
    published: pi_sdk.Provider, monkeypatch: pytest.MonkeyPatch
):
    """A plugin that fails, a name the setting asks for that none has: warned at the user."""
    from pi_sdk.plugins import get_plugin_manager

    monkeypatch.setenv(manager_module.LOAD_PLUGINS_ENV, "acme,nowhere")
    with (
        use_plugin_manager(load_entry_points=True),
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1  # noqa: SLF001
        get_plugin_manager()
    where = [(w.filename, w.lineno) for w in caught if w.category is RuntimeWarning]
    assert len(where) == 3  # two clashing names, one missing
    assert set(where) == {(__file__, line)}


def test_a_listed_plugin_without_distribution_metadata_says_none(
    published: pi_sdk.Provider, monkeypatch: pytest.MonkeyPatch
):
    from pi_sdk._plugins.listing import describe_plugins

    found = [
        FoundEntryPoint("acme", f"{MODULE}:PROVIDER", "pi_sdk", "pi-sdk-acme", "1.0"),
        FoundEntryPoint("bare", f"{MODULE}:PROVIDER", "pi_sdk", "", ""),
        FoundEntryPoint("gone", f"{MODULE}:MISSING", "pi_sdk", "", ""),
    ]
    monkeypatch.setattr(manager_module, "_entry_points", lambda group: list(found))
    with (
        use_plugin_manager(load_entry_points=True),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        listed = {info.name: info for info in describe_plugins()}
    assert (listed["acme"].distribution, listed["acme"].version) == ("pi-sdk-acme", "1.0")
    assert (listed["bare"].distribution, listed["bare"].version) == (None, None)
    assert (listed["gone"].distribution, listed["gone"].version) == (None, None)
    assert listed["gone"].error is not None and listed["gone"].error.startswith("AttributeError")
