"""Every adapter ends the reply at its vendor's terminal event.

Anthropic ``message_stop``, Chat Completions ``[DONE]``, Responses ``response.completed`` /
``response.incomplete``, Gemini the chunk with ``finishReason``. QA trials t18 and t08: a server
(or proxy) that keeps the connection open after it made Responses and Gemini calls hang, and
content sent after it was merged into the reply (duplicated text and tool calls).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _support.loopback import APIS, LoopbackServer, model_at, sse_step, text_events

import pi_sdk
from pi_sdk import AssistantMessage, Context, StreamOptions, UserMessage

CONTEXT = Context(messages=[UserMessage(content="hi")])


async def _call(api: str, events: list[Any], end: Any) -> tuple[list[str], AssistantMessage]:
    async with LoopbackServer([sse_step(events, end=end)]) as server:
        stream = pi_sdk.stream(
            model_at(api, server.url), CONTEXT, StreamOptions(api_key="test-key-123", max_retries=0)
        )

        async def consume() -> list[str]:
            return [event.type async for event in stream]

        # The guard only turns a hang (the bug) into a failure instead of a stuck test run.
        types = await asyncio.wait_for(consume(), 60)
        return types, await stream.result()


@pytest.mark.parametrize("api", APIS)
async def test_the_reply_ends_at_the_terminal_event_when_the_server_keeps_the_connection(
    api: str,
) -> None:
    body, terminal = text_events(api, ["Hel", "lo"])
    types, message = await _call(api, body + terminal, "hang")
    assert types[-1] == "done", message.error_message
    assert message.stop_reason == "stop"
    assert message.content[0].model_dump()["text"] == "Hello"
    assert message.usage.output == 3  # usage of the terminal event (Gemini: its chunk) is kept


@pytest.mark.parametrize("api", APIS)
async def test_content_after_the_terminal_event_is_not_merged(api: str) -> None:
    body, terminal = text_events(api, ["Hel", "lo"])
    again, again_terminal = text_events(api, ["Hel", "lo"])
    types, message = await _call(api, body + terminal + again + again_terminal, "keep")
    assert types.count("text_start") == 1 and types[-1] == "done"
    assert [block.model_dump()["text"] for block in message.content] == ["Hello"]
