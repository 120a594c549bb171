"""A connection dropped before the reply began is retried on every wire API.

QA trial t04 (``rst_before_headers_then_ok``): the server reset the connection after the request
(before or right after the response headers, before any byte of the body); no adapter retried
it, while a refused connection was retried. The vendor SDKs retry both. Each adapter now reads
the body's first bytes before ``start`` (:meth:`pi_sdk.ResponseBody.start`), so such a failure
happens before the call started and the core retries it.
"""

from __future__ import annotations

import pytest
from _support.loopback import APIS, LoopbackServer, Step, model_at, text_reply

import pi_sdk
from pi_sdk import AssistantMessage, Context, StreamOptions, UserMessage

DROPS = {
    "reset-after-headers": Step(end="rst"),
    "reset-before-headers": Step(rst_before_headers=True),
    "closed-after-headers": Step(end="close"),
}


async def _call(api: str, steps: list[Step], retries: int) -> tuple[AssistantMessage, int]:
    async with LoopbackServer(steps) as server:
        message = await pi_sdk.complete(
            model_at(api, server.url),
            Context(messages=[UserMessage(content="hi")]),
            StreamOptions(api_key="test-key-123", max_retries=retries, max_retry_delay_ms=1),
        )
        return message, len(server.requests)


@pytest.mark.parametrize("drop", sorted(DROPS))
@pytest.mark.parametrize("api", APIS)
async def test_a_connection_dropped_before_the_reply_is_retried(api: str, drop: str) -> None:
    message, attempts = await _call(api, [DROPS[drop], text_reply(api)], retries=2)
    assert message.stop_reason == "stop", message.error_message
    assert message.text == "Hello" and attempts == 2


@pytest.mark.parametrize("api", APIS)
async def test_the_error_says_the_server_closed_the_connection(api: str) -> None:
    message, attempts = await _call(api, [DROPS["reset-after-headers"]], retries=0)
    text = message.error_message or ""
    assert message.stop_reason == "error" and attempts == 1
    assert text.startswith("connection closed by the server before the response: "), text
    assert "reset" in text.lower() or "closed" in text.lower()
