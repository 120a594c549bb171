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
