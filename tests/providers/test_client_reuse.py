"""Providers reuse their vendor client (and its connections) across calls.

QA trial t17: every Anthropic and OpenAI call built a new SDK client (30-75 ms of TLS setup on
the event loop) and opened a new TCP connection. These tests run real calls against a loopback
server through the normal client path (no ``StreamOptions.client``).
"""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

import pytest
from _support.loopback import APIS, LoopbackServer, model_at, text_reply

import pi_sdk
from pi_sdk import Context, StreamOptions, UserMessage

CONTEXT = Context(messages=[UserMessage(content="hi")])


_CLIENT_MODULES = {
    "anthropic-messages": "pi_sdk_anthropic._client",
    "openai-completions": "pi_sdk_openai._client",
    "openai-responses": "pi_sdk_openai._client",
    "google-generative-ai": "pi_sdk_google._client",
    "google-vertex": "pi_sdk_google._client",
    "azure-openai-responses": "pi_sdk_azure._client",
    "mistral-conversations": "pi_sdk_mistral._client",
    "bedrock-converse-stream": "pi_sdk_bedrock._client",
}
"""The module holding each API's client cache (``_CLIENTS``)."""


def _cache(api: str) -> pi_sdk.provider.ClientCache[Any]:
    return importlib.import_module(_CLIENT_MODULES[api])._CLIENTS
    if api.startswith("openai"):
        from pi_sdk_openai import _client as openai_client

        return openai_client._CLIENTS  # pyright: ignore[reportPrivateUsage]
    from pi_sdk_google import _client

    return _client._CLIENTS  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize("api", APIS)
async def test_sequential_calls_share_one_client_and_connection(api: str) -> None:
    async with LoopbackServer([text_reply(api)]) as server:
        model = model_at(api, server.url)
        options = StreamOptions(api_key="reuse-key-1", max_retries=0)
        for _ in range(5):
            message = await pi_sdk.complete(model, CONTEXT, options)
            assert message.stop_reason == "stop", message.error_message
            assert message.content[0].model_dump()["text"] == "Hello"
        assert len(server.requests) == 5
        assert server.connections == 1
        assert "reuse-key-1" not in repr(_cache(api))


@pytest.mark.parametrize("api", APIS)
async def test_another_key_gets_another_client(api: str) -> None:
    async with LoopbackServer([text_reply(api)]) as server:
        model = model_at(api, server.url)
        before = len(_cache(api))
        for key in ("key-a", "key-b", "key-a"):
            message = await pi_sdk.complete(model, CONTEXT, StreamOptions(api_key=key))
            assert message.stop_reason == "stop", message.error_message
        assert len(_cache(api)) == before + 2
        assert server.connections == 2


@pytest.mark.parametrize("api", APIS)
def test_clients_are_closed_when_their_loop_shuts_down(api: str) -> None:
    cache = _cache(api)

    async def call() -> int:
        async with LoopbackServer([text_reply(api)]) as server:
            message = await pi_sdk.complete(
                model_at(api, server.url), CONTEXT, StreamOptions(api_key="shutdown-key")
            )
            assert message.stop_reason == "stop", message.error_message
            return len(cache)

    assert asyncio.run(call()) >= 1
    # asyncio.run closed the loop's clients and dropped the loop: nothing keeps it alive.
    assert cache._loops == {}  # pyright: ignore[reportPrivateUsage]
