"""Plugin listing and observers, and the client cache: a blocked
plugin is not listed (``_plugins/listing.py``); an ``on_model_call`` finisher that raises is
logged and the others still run (``_plugins/observers.py``); a client cache needs room for one
client (``_kit/clients.py``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

import pi_sdk
from pi_sdk._kit.clients import ClientCache
from pi_sdk._plugins.listing import describe_plugins
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk.plugins import hookimpl
from pi_sdk.provider import ApiProvider


class _Plugin:
    @hookimpl
    def get_api_key(self, provider: str) -> str | None:
        return None


def test_a_blocked_plugin_is_not_listed(plugin_manager: Any):
    plugin_manager.register(_Plugin(), name="kept")
    plugin_manager.register(_Plugin(), name="blocked")
    plugin_manager.set_blocked("blocked")
    assert [(p.name, p.hooks) for p in describe_plugins()] == [("kept", ("get_api_key",))]


async def test_a_finisher_that_raises_is_logged_and_the_others_run(
    plugin_manager: Any, caplog: pytest.LogCaptureFixture
):
    seen: list[str] = []

    class Broken:
        @hookimpl
        def on_model_call(self, model: Any, context: Any, options: Any, run_id: Any) -> Any:
            def finish(message: Any) -> None:
                raise RuntimeError("finisher broke")

            return finish

    class Fine:
        @hookimpl
        def on_model_call(self, model: Any, context: Any, options: Any, run_id: Any) -> Any:
            return lambda message: seen.append(message.stop_reason)

    plugin_manager.register(Fine(), name="fine")
    plugin_manager.register(Broken(), name="broken")

    async def reply(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
        out = new_assistant_message(model)
        yield pi_sdk.StartEvent(partial=out)
        yield pi_sdk.DoneEvent(reason="stop", message=out)

    pi_sdk.register_api_provider(ApiProvider(api="observed-api", stream=reply))
    model = pi_sdk.Model(id="m", api="observed-api", provider="p")
    with caplog.at_level(logging.ERROR):
        message = await pi_sdk.complete(model, pi_sdk.Context(messages=[]))
    assert message.stop_reason == "stop" and seen == ["stop"]
    failed = [r for r in caplog.records if "failed; ignored" in r.getMessage()]
    assert [r.getMessage() for r in failed] == [
        "observer hook 'on_model_call' of plugin 'broken' failed; ignored"
    ]
    assert failed[0].exc_info is not None and str(failed[0].exc_info[1]) == "finisher broke"


def test_a_client_cache_needs_room_for_one_client():
    async def close(client: object) -> None:
        return None

    with pytest.raises(ValueError) as caught:
        ClientCache(close, max_per_loop=0)
    assert str(caught.value) == "max_per_loop must be at least 1"
    ClientCache(close, max_per_loop=1)


async def test_each_agent_event_observer_gets_the_arguments_it_names(
    plugin_manager: Any, caplog: pytest.LogCaptureFixture
):
    from pi_sdk._plugins.observers import agent_event_observers, notify_agent_event

    seen: list[tuple[str, tuple[Any, ...]]] = []

    class All:
        @hookimpl
        def on_agent_event(self, event: Any, run_id: Any, model: Any) -> None:
            seen.append(("all", (event, run_id, model)))

    class Reordered:
        @hookimpl
        def on_agent_event(self, model: Any, event: Any) -> int:
            seen.append(("reordered", (model, event)))
            return 3  # not awaitable: ignored

    class Awaited:
        @hookimpl
        async def on_agent_event(self, run_id: Any) -> None:
            seen.append(("awaited", (run_id,)))

    class Broken:
        @hookimpl
        def on_agent_event(self, event: Any) -> None:
            raise RuntimeError("observer bug")

    for name, plugin in (("all", All()), ("reordered", Reordered()), ("awaited", Awaited())):
        plugin_manager.register(plugin, name=name)
    plugin_manager.register(Broken(), name="broken")  # called first: the others still run
    model = pi_sdk.Model(id="m", api="a", provider="p")
    event = pi_sdk.agent.AgentStartEvent()
    with caplog.at_level(logging.ERROR):
        await notify_agent_event(agent_event_observers(), event, "run-1", model)
    assert sorted(seen, key=lambda s: s[0]) == [
        ("all", (event, "run-1", model)),
        ("awaited", ("run-1",)),
        ("reordered", (model, event)),
    ]
    assert [r.getMessage() for r in caplog.records] == [
        "observer hook 'on_agent_event' of plugin 'broken' failed; ignored"
    ]


def test_only_callable_answers_of_on_model_call_are_finished(
    plugin_manager: Any, caplog: pytest.LogCaptureFixture
):
    from pi_sdk._plugins.observers import start_model_call

    finished: list[str] = []

    class Quiet:
        @hookimpl
        def on_model_call(self, run_id: Any) -> Any:
            return "not a finisher"

    class Raising:
        @hookimpl
        def on_model_call(self, model: Any) -> Any:
            raise RuntimeError("start broke")

    class Finishing:
        @hookimpl
        def on_model_call(self, options: Any, model: Any) -> Any:
            return lambda message: finished.append(f"{model.id}:{message.stop_reason}")

    model = pi_sdk.Model(id="m", api="a", provider="p")
    context, options = pi_sdk.Context(messages=[]), pi_sdk.StreamOptions()
    plugin_manager.register(Quiet(), name="quiet")
    assert start_model_call(model, context, options, "run-1") is None  # nothing to finish
    plugin_manager.register(Raising(), name="raising")
    with caplog.at_level(logging.ERROR):
        assert start_model_call(model, context, options, None) is None
    assert [r.getMessage() for r in caplog.records] == [
        "observer hook 'on_model_call' of plugin 'raising' failed; ignored"
    ]
    plugin_manager.register(Finishing(), name="finishing")
    finish = start_model_call(model, context, options, None)
    assert finish is not None
    finish(new_assistant_message(model))
    assert finished == ["m:stop"]
