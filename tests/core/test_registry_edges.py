"""The edges of the model registries (``pi_sdk/_models/default.py``, ``collection.py``,
``pi_sdk/_stream/provider.py``): what a plugin's registration hook may hand over and the error
naming what it gave instead; a provider registered by hand over a plugin's (merged, or
replacing it for good); whose key wins; a collection's ``repr``, ``remove`` and ``add(...,
replace=True)``; ``refresh_sync`` inside a loop; a ``Provider``'s checks of its own fields.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.strings import built

import pi_sdk
from pi_sdk import ConfigurationError, Model, Models, Provider, ProviderAuth, ProviderNotFoundError
from pi_sdk._models import default
from pi_sdk.plugins import hookimpl
from pi_sdk.provider import ApiProvider


async def _stream(model: Any, context: Any, options: Any):  # noqa: ANN202
    yield None  # never read


async def _other(model: Any, context: Any, options: Any):  # noqa: ANN202
    yield None


def _model(provider: str, model_id: str) -> Model:
    return Model(id=model_id, api="edge-api", provider=provider)


class _Registers:
    def __init__(self, **items: list[Any]) -> None:
        self.items = items

    @hookimpl
    def register_providers(self, register: Any) -> None:
        for item in self.items.get("providers", []):
            register(item)

    @hookimpl
    def register_models(self, register: Any) -> None:
        for item, replace in self.items.get("models", []):
            register(item, replace=replace)


def test_a_plugin_registering_something_else_than_a_provider_is_named(plugin_manager: Any):
    plugin_manager.register(_Registers(providers=[{"id": "acme"}]), name="bad-provider")
    with pytest.raises(TypeError) as caught:
        default.default_models().providers()
    assert str(caught.value) == "register() takes a Provider, got dict"


def test_a_plugin_registering_something_else_than_a_model_is_named(plugin_manager: Any):
    plugin_manager.register(_Registers(models=[("acme/m", True)]), name="bad-model")
    with pytest.raises(TypeError) as caught:
        default.default_models().providers()
    assert str(caught.value) == "register_model() takes a Model, got str"


def test_a_model_registered_twice_without_replace_is_refused(plugin_manager: Any):
    first, again = _model("acme", "m-1"), _model("acme", "m-1")
    plugin_manager.register(_Registers(models=[(first, True), (again, False)]), name="twice")
    with pytest.raises(ConfigurationError) as caught:
        default.default_models().providers()
    assert str(caught.value) == "model acme/m-1 is already registered"


def test_a_model_registered_again_with_replace_is_kept_and_makes_its_provider(
    plugin_manager: Any,
):
    one, two = _model("acme", "m-1"), _model("acme", "m-2")
    plugin_manager.register(_Registers(models=[(one, False), (two, False)]), name="models")
    models = default.default_models()
    assert "acme" in [p.id for p in models.providers()]
    assert [m.id for m in models.models("acme")] == ["m-1", "m-2"]


def test_a_provider_by_hand_merges_with_the_plugins_or_replaces_it(plugin_manager: Any):
    plugin = Provider(id="acme", models=[_model("acme", "from-plugin")])
    plugin_manager.register(_Registers(providers=[plugin]), name="acme-plugin")
    models = default.default_models()
    default.register_provider(Provider(id="acme", models=[_model("acme", "by-hand")]))
    assert sorted(m.id for m in models.models("acme")) == ["by-hand", "from-plugin"]
    default.register_provider(Provider(id="acme", models=[_model("acme", "only")]), replace=True)
    assert [m.id for m in models.models("acme")] == ["only"]
    plugin_manager.unregister(name="acme-plugin")  # the manager changed: hooks asked again
    plugin_manager.register(_Registers(providers=[plugin]), name="acme-plugin-again")
    assert [m.id for m in default.default_models().models("acme")] == ["only"]  # still replaced


def test_an_explicit_key_wins_over_a_plugins_key(plugin_manager: Any):
    class Keys:
        @hookimpl
        def get_api_key(self, provider: str) -> str | None:
            return "plugin-key" if provider == "acme" else None

    plugin_manager.register(Keys(), name="keys")
    models = default.default_models()
    default.register_provider(Provider(id="acme", models=[_model("acme", "m")]))
    assert (models.get_api_key("acme"), models.check_auth("acme").source) == (
        "plugin-key",
        "plugin",
    )
    explicit = Provider(id="acme", auth=ProviderAuth(api_key="explicit-key"))
    default.register_provider(explicit, replace=True)
    check = models.check_auth("acme")
    assert (models.get_api_key("acme"), check.source, check.available) == (
        "explicit-key",
        "explicit",
        True,
    )


def test_a_collections_repr_remove_and_replace():
    models = Models(
        [Provider(id="b", models=[_model("b", "m")]), Provider(id="a", models=[_model("a", "x")])],
        plugins=None,
    )
    assert repr(models) == "Models(providers=['a', 'b'])"
    models.add(Provider(id="a", models=[_model("a", "y")]))
    assert sorted(m.id for m in models.models("a")) == ["x", "y"]
    models.add(Provider(id="a", models=[_model("a", "z")]), replace=True)
    assert [m.id for m in models.models("a")] == ["z"]
    models.remove("b")
    models.remove("never-there")
    assert repr(models) == "Models(providers=['a'])"
    assert [m.provider for m in models.models()] == ["a"]
    with pytest.raises(TypeError) as caught:
        models.add("a")  # pyright: ignore[reportArgumentType]
    assert str(caught.value) == "Models.add() takes a Provider, got str"


async def test_refresh_sync_inside_a_running_loop_says_to_await():
    with pytest.raises(RuntimeError) as caught:
        Models([], plugins=None).refresh_sync()
    assert str(caught.value) == "refresh_sync() cannot run inside a running event loop"


def test_a_clash_of_two_hand_registered_apis_names_the_first():
    models = Models([], plugins=None)
    first = ApiProvider(api="edge-api", stream=_stream)
    models.register_api_provider(first, source_id="pkg-one")
    models.register_api_provider(first, source_id="pkg-one")  # the same one again: no clash
    with pytest.raises(ConfigurationError) as caught:
        models.register_api_provider(ApiProvider(api="edge-api", stream=_other))
    assert str(caught.value) == (
        "an API provider for 'edge-api' is already registered (by pkg-one);"
        " pass replace=True to override it"
    )
    models.register_api_provider(ApiProvider(api="edge-api", stream=_other), replace=True)
    assert [p.implementation for p in models.api_providers()] == [_other]


def test_a_providers_own_checks():
    with pytest.raises(ValueError) as caught:
        Provider(id="")
    assert str(caught.value) == "Provider.id must be a non-empty string"
    one = ApiProvider(api="edge-api", stream=_stream)
    assert Provider(id="p", apis=one).apis == (one,)  # type: ignore[arg-type]
    assert Provider(id="p", apis=[one]).apis == (one,)  # type: ignore[arg-type]
    with pytest.raises(TypeError) as caught_type:
        Provider(id="p", apis=[one, "edge-api"])  # type: ignore[list-item]
    assert str(caught_type.value) == "Provider('p').apis takes ApiProvider objects, got str"
    assert Provider(id="p").display_name == "p"
    assert Provider(id="p", name="The P").display_name == "The P"
    with pytest.raises(TypeError) as caught_model:
        Provider(id="p", models=["m"]).catalog()  # type: ignore[list-item]
    assert str(caught_model.value) == "Provider('p').models holds str, not a Model"
    with pytest.raises(ValueError) as caught_owner:
        Provider(id="p", models=[_model("q", "m")]).catalog()
    assert str(caught_owner.value) == ("Provider('p').models holds q/m, whose provider is not 'p'")
    assert pi_sdk.Provider is Provider


def test_an_unknown_provider_is_refused_naming_the_ones_there_are():
    models = Models([Provider(id="zeta"), Provider(id="acme")], plugins=None)
    with pytest.raises(ProviderNotFoundError) as caught:
        models.provider("acme-2")
    assert str(caught.value) == "no provider 'acme-2' (providers: acme, zeta)"
    with pytest.raises(ProviderNotFoundError) as caught:
        Models([], plugins=None).provider("acme")
    assert str(caught.value) == "no provider 'acme' (providers: none)"


def test_an_unknown_provider_is_named_with_those_the_collection_has():
    with pytest.raises(ProviderNotFoundError) as caught:
        Models([], plugins=None).provider("x")
    assert str(caught.value) == "no provider 'x' (providers: none)"
    models = Models([Provider(id="b"), Provider(id="a")], plugins=None)
    with pytest.raises(ProviderNotFoundError) as caught:
        models.provider("x")
    assert str(caught.value) == "no provider 'x' (providers: a, b)"
    assert [p.id for p in models.providers()] == ["a", "b"]
    assert models.check_auth("x") == pi_sdk.AuthCheck("x", False, None)


def test_a_hand_registered_api_wins_over_the_model_s_own_provider_s():
    own = ApiProvider(api="edge-api", stream=_stream)
    other = ApiProvider(api="edge-api", stream=_other)
    models = Models([Provider(id="a", apis=(own,)), Provider(id="b", apis=(other,))], plugins=None)
    assert models.api_provider("edge-api", "a") is own
    assert models.api_provider("edge-api", "b") is other
    hand = ApiProvider(api="edge-api", stream=_stream)
    models.register_api_provider(hand, source_id="mine")
    assert models.api_provider("edge-api", "a").source_id == "mine"
    assert models.api_provider("edge-api", "b").source_id == "mine"
    models.unregister_api_providers("someone-else")
    assert models.api_provider("edge-api", "b").source_id == "mine"
    models.unregister_api_providers(built("mine"))  # the id as a plugin's metadata gives it
    assert models.api_provider("edge-api", "a") is own


@pytest.mark.parametrize("how", ["remove", "replace"])
def test_removing_or_replacing_a_provider_drops_its_fetched_list(how: str):
    async def fetch(context: Any) -> Any:
        return pi_sdk.provider.FetchedModels(models=[_model("srv", "fetched")])

    models = Models([Provider(id="srv", fetch_models=fetch)], plugins=None)
    models.refresh_sync()
    assert [m.id for m in models.models("srv")] == ["fetched"]
    if how == "remove":
        models.remove("srv")
        models.add(Provider(id="srv", models=[_model("srv", "static")]))
    else:
        models.add(Provider(id="srv", models=[_model("srv", "static")]), replace=True)
    assert [m.id for m in models.models("srv")] == ["static"]
