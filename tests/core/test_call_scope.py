"""A call's scope: the key lookup and the payload hooks reach the provider from who starts it.

``pi_sdk.stream`` starts a call in the default registry's scope (its ``get_api_key`` and
``on_payload`` hooks); ``start_call`` starts one in a scope of the caller's (what a collection of
models with keys and hooks of its own passes). Both kinds of provider see it: a call function
(its plan's payload goes through the scope's hooks in the core's read loop) and a stream function
(through ``resolve_api_key`` / ``apply_payload_hooks``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, UserMessage, hookimpl
from pi_sdk._models.start import start_call
from pi_sdk._stream.call_scope import CallScope
from pi_sdk.events import AssistantMessageEvent
from pi_sdk.provider import (
    ApiProvider,
    HttpCall,
    MessageBuilder,
    ProviderError,
    apply_payload_hooks,
    resolve_api_key,
)

API = "test-scope"
MODEL = Model(id="m", api=API, provider="scoped", base_url="https://x.test")
CONTEXT = Context(messages=[UserMessage(content="hi")])


class Plugin:
    """The default registry's hooks: a key for provider ``scoped``, a payload tag."""

    @hookimpl
    def get_api_key(self, provider: str) -> str | None:
        return "registry-key" if provider == "scoped" else None

    @hookimpl
    def on_payload(self, payload: dict[str, Any]) -> None:
        payload["by"] = "registry"


@pytest.fixture
def registry(plugin_manager: Any) -> Any:
    plugin_manager.register(Plugin(), name="registry-hooks")
    return plugin_manager


async def scoped_hooks(
    payload: dict[str, Any], model: Model, options: StreamOptions
) -> dict[str, Any]:
    return {**payload, "by": "scope"}


SCOPE = {"api_key": lambda provider: f"{provider}-scope-key", "payload_hooks": scoped_hooks}


class Refusing:
    """A wire API on the kit that records its key and payload, then is refused (HTTP 401)."""

    def __init__(self) -> None:
        self.keys: list[str | None] = []
        self.payloads: list[dict[str, Any]] = []

    async def call(self, model: Model, context: Context, options: StreamOptions) -> HttpCall[Any]:
        key = resolve_api_key(model, options)
        self.keys.append(key)

        async def send(client: None, payload: dict[str, Any]) -> Any:
            self.payloads.append(payload)
            raise ProviderError(f"401 Unauthorized: bad key {key}", status=401)

        return HttpCall(
            lease=_nothing(),
            build_payload=lambda origin: {"model": model.id},
            send=send,
            decoder=_no_decoder,
        )


def _no_decoder(builder: MessageBuilder) -> Any:
    return None  # never fed: the call is refused before its body


class _nothing:  # noqa: N801 - a context manager used like a function
    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc_info: object) -> None:
        return None


async def test_a_call_in_the_default_registry_gets_its_key_and_hooks(registry):
    wire = Refusing()
    pi_sdk.register_api_provider(ApiProvider(api=API, call=wire.call))
    message = await pi_sdk.complete(MODEL, CONTEXT)
    assert wire.keys == ["registry-key"]
    assert wire.payloads == [{"model": "m", "by": "registry"}]
    assert message.error_message == "401 Unauthorized: bad key [REDACTED]"


async def test_a_call_in_a_scope_of_its_own_gets_that_key_and_those_hooks(registry):
    wire = Refusing()
    provider = ApiProvider(api=API, call=wire.call)
    stream = start_call(provider, MODEL, CONTEXT, StreamOptions(), CallScope(**SCOPE), None)
    message = await stream.result()
    assert wire.keys == ["scoped-scope-key"]
    assert wire.payloads == [{"model": "m", "by": "scope"}]  # the registry's hook did not run
    assert message.error_message == "401 Unauthorized: bad key [REDACTED]"  # its key redacted


async def test_a_stream_function_reads_the_scope_of_its_call(registry):
    seen: list[Any] = []

    async def stream(
        model: Model, context: Context, options: StreamOptions
    ) -> AsyncIterator[AssistantMessageEvent]:
        seen.append(resolve_api_key(model, options))
        seen.append(await apply_payload_hooks({"model": model.id}, model, options))
        raise ProviderError("stop here")
        yield  # pragma: no cover

    provider = ApiProvider(api=API, stream=stream)
    await start_call(provider, MODEL, CONTEXT, StreamOptions(), CallScope(**SCOPE), None).result()
    pi_sdk.register_api_provider(provider)
    await pi_sdk.complete(MODEL, CONTEXT)
    assert seen == [
        "scoped-scope-key",
        {"model": "m", "by": "scope"},
        "registry-key",
        {"model": "m", "by": "registry"},
    ]


async def test_outside_a_call_the_kit_reads_the_default_registry(registry):
    assert resolve_api_key(MODEL, StreamOptions()) == "registry-key"
    assert resolve_api_key(MODEL, StreamOptions(api_key="explicit")) == "explicit"
    assert await apply_payload_hooks({}, MODEL, StreamOptions()) == {"by": "registry"}


async def test_a_scope_without_payload_hooks_sends_the_payload_untouched(registry):
    from pi_sdk._stream.call_scope import current_scope

    payload = {"model": "m"}
    token = current_scope.set(CallScope())
    try:
        assert await apply_payload_hooks(payload, MODEL, StreamOptions()) is payload
        assert resolve_api_key(MODEL, StreamOptions()) == "registry-key"  # the registry's
    finally:
        current_scope.reset(token)
    assert payload == {"model": "m"}
