"""The idle limit still fires after activity reset it (issue 34, a survivor of seed 20261205).

The watchdog first fires one limit after the reply starts; when bytes came in meanwhile it is
set again for the rest of the limit. The earlier tests had either one long silence (the first
firing ends the call) or keep-alives to the end (no firing ends it): here keep-alives come first,
so the watchdog must be set again, then the vendor falls silent and the call must end.
"""

from __future__ import annotations

import dataclasses

from _support.loopback import LoopbackServer, model_at, sse_step, text_events

import pi_sdk

API = "anthropic-messages"
IDLE_MS = 300


async def test_a_silence_after_keep_alives_still_ends_the_call() -> None:
    body, terminal = text_events(API, ["Hel", "lo"])
    head, tail = body[:-1], body[-1:]
    pings: list[bytes | dict[str, str]] = [b": keep-alive\n\n"] * 8
    step = sse_step([*head, *pings, *tail, *terminal])
    pauses = dict.fromkeys(range(len(head), len(head) + len(pings)), IDLE_MS / 1000 / 6)
    pauses[len(head) + len(pings)] = IDLE_MS / 1000 * 4  # then silence, before the last text
    step = dataclasses.replace(step, pauses=pauses)
    options = pi_sdk.StreamOptions(api_key="test-key", max_retries=0, idle_timeout_ms=IDLE_MS)
    async with LoopbackServer([step]) as server:
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
        message = await pi_sdk.complete(model_at(API, server.url), context, options)
    assert message.stop_reason == "error"
    assert message.error_message == f"timed out: the provider sent nothing for {IDLE_MS} ms"
    assert message.text.startswith("Hel")  # the partial text is kept
