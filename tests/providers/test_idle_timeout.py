"""The idle limit counts bytes on the wire, keep-alives included, on every API (issue 15.5).

A reply that pauses longer than ``idle_timeout_ms`` between events is cut with "timed out: the
provider sent nothing for ..." (partial text kept, the connection closed); the same pause filled
with keep-alives (an SSE comment from a proxy, Anthropic's ``ping`` events) is no silence, and
the reply completes.
"""

from __future__ import annotations

import dataclasses

import pytest
from _support.loopback import APIS, LoopbackServer, model_at, sse_step, text_events

import pi_sdk

SSE_APIS = [api for api in APIS if not api.startswith("bedrock")]
IDLE_MS = 300
OPTIONS = pi_sdk.StreamOptions(api_key="test-key", max_retries=0, idle_timeout_ms=IDLE_MS)


async def _call(
    api: str, filler: list[bytes | dict[str, str]], pause_s: float
) -> pi_sdk.AssistantMessage:
    body, terminal = text_events(api, ["Hel", "lo"])
    head, tail = body[:-1], body[-1:]
    step = sse_step([*head, *filler, *tail, *terminal])
    # The pause goes before each filler item, or before the rest of the reply without one.
    gaps = range(len(head), len(head) + max(len(filler), 1))
    step = dataclasses.replace(step, pauses=dict.fromkeys(gaps, pause_s))
    async with LoopbackServer([step]) as server:
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
        return await pi_sdk.complete(model_at(api, server.url), context, OPTIONS)


@pytest.mark.parametrize("api", APIS)
async def test_a_silence_longer_than_the_idle_limit_ends_the_call(api: str) -> None:
    message = await _call(api, [], pause_s=IDLE_MS / 1000 * 3)
    assert message.stop_reason == "error"
    assert message.error_message == f"timed out: the provider sent nothing for {IDLE_MS} ms"
    assert message.text.startswith("Hel")


@pytest.mark.parametrize("api", SSE_APIS)
async def test_keep_alive_comments_are_activity(api: str) -> None:
    # 12 pauses of a sixth of the limit: 2 limits of no event in all, never one of no byte.
    pings: list[bytes | dict[str, str]] = [b": keep-alive\n\n"] * 12
    message = await _call(api, pings, pause_s=IDLE_MS / 1000 / 6)
    assert message.stop_reason == "stop", message.error_message
    assert message.text == "Hello"


async def test_anthropic_ping_events_are_activity() -> None:
    pings: list[bytes | dict[str, str]] = [b'event: ping\ndata: {"type": "ping"}\n\n'] * 12
    message = await _call("anthropic-messages", pings, pause_s=IDLE_MS / 1000 / 6)
    assert message.stop_reason == "stop", message.error_message
    assert message.text == "Hello"
