"""Every form of error body Mistral may send gives one whole text, on both paths it can come by.

An HTTP error reaches the adapter two ways: as a response the adapter reads itself (the usual
path), or as a ``MistralError`` the SDK raises when one of its ``after_error`` hooks turns the
response into an exception (a hook the application registered on the client: a gateway policy,
typed errors). Either way the error's text is built from the body the same way (``status_error``),
so each body form (Mistral's JSON error, FastAPI's validation ``detail``, non-ASCII JSON, a
proxy's HTML page, plain text, an empty body, JSON that is not an object) must give the same,
whole text on both paths, and the status's retry rule must hold on both.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.conformance import CLIENT_FACTORIES, ChunkedTransport, Reply

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, TextContent, UserMessage

BASE = "https://api.mistral.test"
MODEL = Model(id="mistral-test", api="mistral-conversations", provider="mistral", base_url=BASE)
CTX = Context(messages=[UserMessage(content="hi")])
JSON = {"content-type": "application/json"}

_MISTRAL = json.dumps(
    {"object": "error", "message": "Clé API invalide", "type": "invalid_api_key", "code": "1"},
    ensure_ascii=False,
)
_DETAIL = json.dumps(
    {"detail": [{"loc": ["body", "model"], "msg": "Champ requis é", "type": "missing"}]},
    ensure_ascii=False,
)
_DETAIL_TEXT = '[{"loc": ["body", "model"], "msg": "Champ requis é", "type": "missing"}]'

BODIES = [
    pytest.param(
        401, _MISTRAL, "401 Unauthorized: invalid_api_key: Clé API invalide", id="mistral-json"
    ),
    pytest.param(422, _DETAIL, f"422 Unprocessable Content: {_DETAIL_TEXT}", id="detail-list"),
    pytest.param(
        422,
        json.dumps(json.loads(_DETAIL)),  # the same body with \\u escapes: the same text
        f"422 Unprocessable Content: {_DETAIL_TEXT}",
        id="detail-list-escaped",
    ),
    pytest.param(
        502,
        "<html><body>passerelle indisponible</body></html>",
        "502 Bad Gateway: passerelle indisponible",
        id="html-page",
    ),
    pytest.param(
        503, "surchargé, réessayez", "503 Service Unavailable: surchargé, réessayez", id="text"
    ),
    pytest.param(500, "", "500 Internal Server Error", id="empty"),
    pytest.param(400, "[1, 2]", "400 Bad Request: [1, 2]", id="json-not-an-object"),
]


class _RaisingHook:
    """An ``after_error`` hook that turns every error response into a ``MistralError``."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.calls = 0

    def after_error(self, hook_ctx: Any, response: Any, error: Any) -> Any:
        from mistralai.client import errors

        self.calls += 1
        if response is None:
            return response, error
        return errors.MistralError("refused by the application's hook", response, self.body)


async def _complete(
    replies: list[Reply], *, hook: _RaisingHook | None = None, max_retries: int = 0
) -> tuple[pi_sdk.AssistantMessage, ChunkedTransport]:
    transport = ChunkedTransport(replies, chunk_size=7)
    client = CLIENT_FACTORIES["mistral-conversations"](transport, BASE)
    if hook is not None:
        client.sdk_configuration.__dict__["_hooks"].register_after_error_hook(hook)
    try:
        options = StreamOptions(client=client, max_retries=max_retries, max_retry_delay_ms=1)
        message = await pi_sdk.complete(MODEL, CTX, options)
    finally:
        await client.close()
    return message, transport


def _reply(status: int, body: str, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status=status, body=body.encode("utf-8"), headers=headers or JSON)


@pytest.mark.parametrize(("status", "body", "text"), BODIES)
async def test_an_error_body_read_from_the_response(status: int, body: str, text: str) -> None:
    message, transport = await _complete([_reply(status, body)])
    assert (message.stop_reason, message.error_message) == ("error", text)
    assert message.content == []
    assert transport.closed == 1


@pytest.mark.parametrize(("status", "body", "text"), BODIES)
async def test_an_error_body_the_sdk_raised(status: int, body: str, text: str) -> None:
    # The response the hook saw had another body: the text is built from the error's own body.
    hook = _RaisingHook(body)
    message, _ = await _complete([_reply(status, "not this body")], hook=hook)
    assert (message.stop_reason, message.error_message) == ("error", text)
    assert hook.calls == 1


async def test_a_body_that_is_not_utf8_is_read_with_replacement_characters() -> None:
    message, _ = await _complete([Reply(status=500, body=b"d\xe9faillance", headers={})])
    assert message.error_message == "500 Internal Server Error: d\ufffdfaillance"


@pytest.mark.parametrize("hooked", [False, True], ids=["read", "raised"])
async def test_a_retryable_status_is_retried_on_both_paths(hooked: bool) -> None:
    limited = _reply(429, '{"message": "trop de requêtes"}', {**JSON, "retry-after": "0"})
    ok = Reply(
        status=200,
        body=b'{"id": "c", "object": "chat.completion", "model": "m", "choices": [{"index": 0,'
        b' "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}',
        headers=JSON,
    )
    hook = _RaisingHook('{"message": "trop de requêtes"}') if hooked else None
    message, transport = await _complete([limited, ok], hook=hook, max_retries=1)
    assert (message.stop_reason, message.content) == ("stop", [TextContent(text="ok")])
    assert len(transport.requests) == 2


@pytest.mark.parametrize("hooked", [False, True], ids=["read", "raised"])
async def test_a_client_error_is_not_retried_on_either_path(hooked: bool) -> None:
    hook = _RaisingHook(_MISTRAL) if hooked else None
    message, transport = await _complete([_reply(401, _MISTRAL)], hook=hook, max_retries=2)
    assert message.error_message == "401 Unauthorized: invalid_api_key: Clé API invalide"
    assert len(transport.requests) == 1


async def test_a_399_reply_is_no_error_for_the_sdk_hooks_either() -> None:
    hook = _RaisingHook(_MISTRAL)
    ok = Reply(
        status=399,
        body=b'{"id": "c", "object": "chat.completion", "model": "m", "choices": [{"index": 0,'
        b' "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}',
        headers=JSON,
    )
    message, transport = await _complete([ok], hook=hook)
    assert (message.stop_reason, message.content) == ("stop", [TextContent(text="ok")])
    assert (hook.calls, transport.closed) == (0, 1)
