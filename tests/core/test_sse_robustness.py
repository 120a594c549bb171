"""Harmless SSE noise between events never breaks a reply, on every wire API.

QA trial t03: a single ``data:`` line with an empty value (a proxy's keep-alive) ended the
stream with a JSON error on all four adapters. An event whose data is empty or only whitespace
carries nothing and is skipped; comments, unknown fields and blank lines are ignored by
:func:`pi_sdk.provider.iter_sse`.
"""

from __future__ import annotations

import pytest
from _support.loopback import APIS, LoopbackServer, model_at, sse_step, text_events

import pi_sdk
from pi_sdk import Context, StreamOptions, UserMessage

NOISE = [b"data:\n\n", b"data: \n\n", b"data:\r\n\r\n", b"data:  \t\n\n", b": ping\n\n", b"\n\n"]


@pytest.mark.parametrize("api", APIS)
async def test_empty_data_events_are_skipped(api: str) -> None:
    body, terminal = text_events(api, ["Hel", "lo"])
    events = [*NOISE, body[0], *NOISE, *body[1:], *NOISE, *terminal]
    async with LoopbackServer([sse_step(events)]) as server:
        message = await pi_sdk.complete(
            model_at(api, server.url),
            Context(messages=[UserMessage(content="hi")]),
            StreamOptions(api_key="test-key-123", max_retries=0),
        )
    assert message.stop_reason == "stop", message.error_message
    assert [block.model_dump()["text"] for block in message.content] == ["Hello"]
