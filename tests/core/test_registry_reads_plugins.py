"""The registries read the plugin manager's hooks; the manager pushes nothing (issue 10, item 2).

Each registry asks the ``register_*`` hooks on first access and again only when the active
manager's ``generation`` changed (a plugin registered or left). Hand registrations belong to the
manager active at the time, win over a plugin's entry with the same key, and survive the
manager's changes.
"""

from __future__ import annotations

from typing import Literal

import pytest
from _support.streams import idle_stream, other_idle_stream
from pydantic import BaseModel

import pi_sdk
from pi_sdk import (
    ConfigurationError,
    Model,
    UserMessage,
    get_api_provider,
    get_api_providers,
    get_message_types,
    get_model,
    get_models,
    hookimpl,
    register_api_provider,
    register_message_type,
    register_model,
    unregister_api_providers,
    unregister_message_type,
)
from pi_sdk.plugins import PluginManager, use_plugin_manager
from pi_sdk.provider import ApiProvider


class _Models:
    """A plugin that counts how often its hooks are asked."""

    def __init__(self, *ids: str, provider: str = "counted") -> None:
        self.ids = ids
        self.provider = provider
        self.asked = 0

    @hookimpl
    def register_models(self, register):
        self.asked += 1
        for model_id in self.ids:
            register(Model(id=model_id, api="counted-api", provider=self.provider))


class _Api:
    def __init__(self, api: str, stream=idle_stream) -> None:
        self.api = api
        self.stream = stream

    @hookimpl
    def register_api_providers(self, register):
        register(ApiProvider(api=self.api, stream=self.stream))


def test_the_hooks_are_asked_once_until_the_manager_changes(plugin_manager):
    plugin = _Models("a")
    plugin_manager.register(plugin, name="counted")
    assert [m.id for m in get_models("counted")] == ["a"]
    get_model("counted", "a")
    get_models()
    assert plugin.asked == 1
    generation = plugin_manager.generation
    plugin_manager.register(_Models("b"), name="more")
    assert plugin_manager.generation > generation
    assert [m.id for m in get_models("counted")] == ["a", "b"]
    assert plugin.asked == 2


def test_a_plugin_that_leaves_takes_its_registrations_with_it(plugin_manager):
    plugin_manager.register(_Api("leaving-api"), name="leaving")
    plugin_manager.register(_Models("m"), name="models")
    assert get_api_provider("leaving-api").api == "leaving-api"
    plugin_manager.unregister(name="leaving")
    plugin_manager.unregister(name="models")
    assert get_api_providers() == []
    assert get_models() == []


def test_hand_registrations_survive_plugins_coming_and_going_and_win(plugin_manager):
    plugin_manager.register(_Models("shared"), name="first")
    mine = Model(id="shared", api="mine-api", provider="counted", name="mine")
    register_model(mine)
    register_api_provider(ApiProvider(api="hand-api", stream=idle_stream))
    plugin_manager.register(_Models("later"), name="second")
    plugin_manager.register(_Api("hand-api", stream=other_idle_stream), name="clash")
    assert get_model("counted", "shared") is mine  # the hand registration wins
    assert get_model("counted", "later").id == "later"
    assert get_api_provider("hand-api").stream is idle_stream
    plugin_manager.unregister(name="first")
    assert get_model("counted", "shared") is mine


def test_removing_a_hand_provider_brings_back_the_plugin_one(plugin_manager):
    plugin_manager.register(_Api("both-api", stream=other_idle_stream), name="plugin")
    register_api_provider(
        ApiProvider(api="both-api", stream=idle_stream), replace=True, source_id="me"
    )
    assert get_api_provider("both-api").stream is idle_stream
    unregister_api_providers("me")
    assert get_api_provider("both-api").stream is other_idle_stream


def test_hand_registrations_belong_to_their_manager():
    with use_plugin_manager() as outer:
        register_model(Model(id="outer-only", api="x", provider="owned"))
        with use_plugin_manager():
            assert get_models("owned") == []  # a fresh manager starts empty
        assert [m.id for m in get_models("owned")] == ["outer-only"]
        assert outer.generation == 0


def test_two_plugins_claiming_one_api_is_a_clear_error_on_every_read(plugin_manager):
    plugin_manager.register(_Api("claimed-api"), name="one")
    plugin_manager.register(_Api("claimed-api", stream=other_idle_stream), name="two")
    for _ in range(2):
        with pytest.raises(ConfigurationError, match="'claimed-api' is already registered"):
            get_api_providers()
    plugin_manager.unregister(name="two")
    assert [p.api for p in get_api_providers()] == ["claimed-api"]


class _Note(BaseModel):
    role: Literal["registryNote"] = "registryNote"
    text: str = ""


class _OtherNote(BaseModel):
    role: Literal["registryNote"] = "registryNote"


class _NotePlugin:
    @hookimpl
    def register_message_types(self, register):
        register(_OtherNote, lambda note: [])


def test_hand_message_types_survive_manager_changes_and_win_over_plugins(plugin_manager):
    register_message_type(_Note, lambda note: [UserMessage(content=note.text)])
    plugin_manager.register(_NotePlugin(), name="notes")
    assert get_message_types()["registryNote"] is _Note
    with pytest.raises(ConfigurationError, match="already registered"):
        register_message_type(_Note, lambda note: [])  # by hand, the same rule as before
    unregister_message_type(_Note)
    assert get_message_types()["registryNote"] is _OtherNote  # the plugin's type is back
    plugin_manager.unregister(name="notes")
    assert "registryNote" not in get_message_types()


def test_a_manager_counts_its_changes():
    pm = PluginManager()
    assert pm.generation == 0
    plugin = _Models()
    pm.register(plugin, name="p")
    pm.unregister(plugin)
    assert pm.generation == 2


async def _hand_stream(model, context, options):  # pragma: no cover - never iterated
    yield None


@pytest.mark.parametrize("plugins", [0, 1, 2])
def test_a_removed_hand_registration_leaves_at_once_whatever_the_manager_counted(
    plugin_manager, plugins: int
):
    """Removing a hand registration is seen on the next read, however many plugins came before.

    The manager's ``generation`` starts at 0 and each plugin bumps it: the removal must be
    noticed whatever value the count has reached.
    """
    for n in range(plugins):
        plugin_manager.register(object(), name=f"empty-{n}")
    assert plugin_manager.generation == plugins
    register_api_provider(ApiProvider(api="hand-only-api", stream=_hand_stream), source_id="hand")
    register_message_type(_Note, lambda note: [])
    assert get_api_provider("hand-only-api").stream is _hand_stream
    assert get_message_types()["registryNote"] is _Note
    unregister_api_providers("hand")
    unregister_message_type(_Note)
    with pytest.raises(LookupError, match="hand-only-api"):
        get_api_provider("hand-only-api")
    assert "registryNote" not in get_message_types()


class _Twice:
    """A plugin that registers two providers of one id, and one model id twice."""

    def __init__(self, **options: bool) -> None:
        self.options = options

    @hookimpl
    def register_providers(self, register):
        for model_id in ("one", "two"):
            model = Model(id=model_id, api="twice-api", provider="twice")
            register(pi_sdk.Provider(id="twice", models=[model]), **self.options)

    @hookimpl
    def register_models(self, register):
        for name in ("first", "second"):
            model = Model(id="same", name=name, api="twice-api", provider="twice")
            register(model, **self.options)


def test_a_plugin_s_registrations_of_one_id_merge_and_a_model_replaces_by_default(
    plugin_manager,
):
    plugin_manager.register(_Twice(), name="twice")
    models = pi_sdk.default_models()
    assert [m.id for m in models.models("twice")] == ["one", "same", "two"]
    assert models.get_model("twice", "same").name == "second"


def test_a_plugin_may_replace_a_provider_and_refuse_a_second_model(plugin_manager):
    plugin_manager.register(_Twice(replace=True), name="replacing")
    assert [m.id for m in pi_sdk.default_models().models("twice")] == ["same", "two"]
    plugin_manager.unregister(name="replacing")
    plugin_manager.register(_Twice(replace=False), name="refusing")
    with pytest.raises(ConfigurationError, match="model twice/same is already registered"):
        pi_sdk.default_models().models("twice")


def test_a_provider_added_to_the_default_collection_by_hand_merges_with_the_plugin_s(
    plugin_manager,
):
    plugin_manager.register(_Twice(), name="twice")
    extra = Model(id="three", api="twice-api", provider="twice")
    pi_sdk.default_models().register_provider(pi_sdk.Provider(id="twice", models=[extra]))
    assert [m.id for m in pi_sdk.default_models().models("twice")] == [
        "one", "same", "three", "two"
    ]  # fmt: skip


def test_a_provider_known_only_by_its_registered_models_is_a_provider_of_the_collection(
    plugin_manager,
):
    """The older hooks register models alone: their provider ids still name providers."""
    plugin_manager.register(_Models("m-1", provider="only-models"), name="models-only")
    models = pi_sdk.default_models()
    assert "only-models" in [p.id for p in models.providers()]
    assert models.provider("only-models").id == "only-models"
    assert models.check_auth("only-models") == pi_sdk.AuthCheck("only-models", False, None)
