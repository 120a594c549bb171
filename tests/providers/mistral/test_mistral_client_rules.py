"""The Mistral client edge (``pi_sdk_mistral._client``): server URL, SDK hooks, error bodies.

* ``client_base_url``: a ``Mistral`` client's server URL (the SDK's default when it has none),
  without a trailing ``/``; ``""`` for an object that is not a ``Mistral`` client.
* The request goes through the SDK's hook chain like ``Chat.stream_async``'s: a hook the
  caller registered on their client sees the server URL, operation ``stream_chat`` and tag
  ``chat``.
* An HTTP error whose body breaks off while it is read is still that status's error, with
  what came of the body.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from pi_sdk_mistral._client import client_base_url, client_lease

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, UserMessage

BASE = "https://api.mistral.test"
MODEL = Model(id="mistral-test", api="mistral-conversations", provider="mistral", base_url=BASE)
CTX = Context(messages=[UserMessage(content="hi")])
OK = (
    b'data: {"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"ok"},'
    b'"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
)


def mistral(server_url: str | None, transport: httpx2.AsyncBaseTransport | None = None) -> Any:
    from mistralai.client import Mistral

    client = httpx2.AsyncClient(transport=transport) if transport else None
    return Mistral(api_key="test-key", server_url=server_url, async_client=client)


@pytest.mark.parametrize(
    ("server_url", "base"),
    [
        (BASE, BASE),
        (BASE + "/", BASE),
        ("http://127.0.0.1:8080//", "http://127.0.0.1:8080"),
        (None, "https://api.mistral.ai"),
    ],
)
def test_a_clients_base_url_is_its_server_url(server_url: str | None, base: str) -> None:
    assert client_base_url(mistral(server_url)) == base


@pytest.mark.parametrize("other", [object(), None, "https://api.mistral.test"])
def test_an_object_that_is_not_a_mistral_client_has_no_base_url(other: object) -> None:
    assert client_base_url(other) == ""


@pytest.mark.parametrize(("base_url", "server"), [(BASE, BASE), ("", "https://api.mistral.ai")])
async def test_a_leased_client_sends_to_the_models_server(base_url: str, server: str) -> None:
    model = MODEL.model_copy(update={"base_url": base_url})
    async with await client_lease(model, "lease-key") as client:
        assert client_base_url(client) == server
        assert client.sdk_configuration.security.api_key == "lease-key"
        # as the SDK's own clients do (Mistral() without clients builds them so)
        assert client.sdk_configuration.async_client.follow_redirects is True
        assert client.sdk_configuration.client.follow_redirects is True


class _Handler(httpx2.AsyncBaseTransport):
    def __init__(self, response: httpx2.Response) -> None:
        self.response = response

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        return self.response


async def test_the_callers_sdk_hooks_see_the_server_operation_and_tag() -> None:
    from mistralai.client._hooks.types import AfterSuccessHook, BeforeRequestHook

    seen: list[tuple[str, str, str, Any, Any]] = []

    class Spy(BeforeRequestHook, AfterSuccessHook):
        def before_request(self, hook_ctx: Any, request: httpx2.Request) -> httpx2.Request:
            seen.append(("before", hook_ctx.base_url, hook_ctx.operation_id, hook_ctx.tags, None))
            return request

        def after_success(self, hook_ctx: Any, response: httpx2.Response) -> httpx2.Response:
            seen.append(("after", hook_ctx.base_url, hook_ctx.operation_id, hook_ctx.tags, None))
            return response

    headers = {"content-type": "text/event-stream"}
    client = mistral(BASE, _Handler(httpx2.Response(200, headers=headers, content=OK)))
    hooks = client.sdk_configuration.__dict__["_hooks"]
    hooks.register_before_request_hook(Spy())
    hooks.register_after_success_hook(Spy())
    message = await pi_sdk.complete(MODEL, CTX, StreamOptions(client=client, max_retries=0))
    assert message.stop_reason == "stop" and message.text == "ok"
    assert seen == [
        ("before", BASE, "stream_chat", ["chat"], None),
        ("after", BASE, "stream_chat", ["chat"], None),
    ]


class _BreakingBody(httpx2.AsyncByteStream):
    def __init__(self, *pieces: bytes) -> None:
        self.pieces = pieces
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece
        raise httpx2.ReadError("connection reset")

    async def aclose(self) -> None:
        self.closed = True


@pytest.mark.parametrize(
    ("pieces", "text"),
    [
        ((b"upstream ", b"exploded"), "502 Bad Gateway: upstream exploded"),
        ((), "502 Bad Gateway"),
    ],
)
async def test_an_error_body_that_breaks_off_is_still_the_status_error(
    pieces: tuple[bytes, ...], text: str
) -> None:
    body = _BreakingBody(*pieces)
    response = httpx2.Response(502, headers={"content-type": "text/plain"}, stream=body)
    client = mistral(BASE, _Handler(response))
    message = await pi_sdk.complete(MODEL, CTX, StreamOptions(client=client, max_retries=0))
    assert message.stop_reason == "error"
    assert message.error_message == text
    assert body.closed


class _EndlessBody(httpx2.AsyncByteStream):
    """An error page that never ends, in 64 KiB pieces; counts what was read."""

    def __init__(self) -> None:
        self.served = 0
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            self.served += 1 << 16
            yield b"x" * (1 << 16)

    async def aclose(self) -> None:
        self.closed = True


async def test_an_error_body_is_read_up_to_1_mib_then_closed() -> None:
    body = _EndlessBody()
    response = httpx2.Response(503, headers={"content-type": "text/plain"}, stream=body)
    client = mistral(BASE, _Handler(response))
    message = await pi_sdk.complete(MODEL, CTX, StreamOptions(client=client, max_retries=0))
    assert (message.error_message or "").startswith("503 Service Unavailable: xxx")
    assert body.served == 1 << 20  # the limit reached exactly: not one piece more
    assert body.closed


class _Recorder(httpx2.AsyncBaseTransport):
    def __init__(self) -> None:
        self.requests: list[httpx2.Request] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        self.requests.append(request)
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, headers=headers, content=OK)


async def test_the_body_sent_is_the_payload_as_utf8_json_with_non_ascii_kept() -> None:
    """The bytes on the wire (and in a cassette) are the payload's JSON, not ``\\u`` escapes."""
    from pi_sdk_mistral.conversations import build_request

    context = Context(messages=[UserMessage(content="Grüße, 東京 🗼")])
    options = StreamOptions(max_retries=0)
    recorder = _Recorder()
    client = mistral(BASE, recorder)
    message = await pi_sdk.complete(MODEL, context, StreamOptions(client=client, max_retries=0))
    assert message.text == "ok"
    (request,) = recorder.requests
    payload = build_request(MODEL, context, options, origin=BASE)
    assert request.content == json.dumps(payload, ensure_ascii=False).encode("utf-8")
    assert "Grüße, 東京 🗼".encode() in request.content


@pytest.mark.parametrize(("timeout_ms", "seconds"), [(None, 300.0), (1234, 1.234)])
async def test_a_request_has_the_clients_timeout_else_300_s(
    timeout_ms: int | None, seconds: float
) -> None:
    """The SDK's own default (``Chat.stream_async``) when the client's configuration has none."""
    from mistralai.client import Mistral

    recorder = _Recorder()
    client = Mistral(
        api_key="k",
        server_url=BASE,
        async_client=httpx2.AsyncClient(transport=recorder),
        timeout_ms=timeout_ms,
    )
    await pi_sdk.complete(MODEL, CTX, StreamOptions(client=client, max_retries=0))
    (request,) = recorder.requests
    assert request.extensions["timeout"] == dict.fromkeys(
        ("connect", "read", "write", "pool"), seconds
    )
