"""The wait between retries when the call has an abort signal (issue 34).

With a signal the wait is a timed wait on the signal: its time running out means "retry now"
(the next attempt is made and may succeed); the signal firing means "stop": the call ends as
aborted at once, with no further attempt and without waiting out the delay.
"""

from __future__ import annotations

import asyncio

from _support.loopback import LoopbackServer, json_step, model_at, text_reply
from _support.wire import wire_for

import pi_sdk
from pi_sdk import AbortController, Context, StreamOptions, UserMessage
from pi_sdk.options import RetryNotice

API = "anthropic-messages"
CONTEXT = Context(messages=[UserMessage(content="hi")])


def _overloaded(**headers: str) -> object:
    body, _ = wire_for(API).http_error(503, "overloaded")
    return json_step(503, body, headers)


async def test_a_wait_that_runs_out_retries_when_the_call_has_a_signal() -> None:
    controller = AbortController()
    async with LoopbackServer([_overloaded(), text_reply(API, "Hello")]) as server:  # pyright: ignore[reportArgumentType]
        options = StreamOptions(
            api_key="sk-ant-unit", max_retries=2, max_retry_delay_ms=20, signal=controller.signal
        )
        message = await pi_sdk.complete(model_at(API, server.url), CONTEXT, options)
        assert len(server.requests) == 2
    assert message.stop_reason == "stop", message.error_message
    assert [getattr(block, "text", None) for block in message.content] == ["Hello"]


async def test_an_abort_during_the_wait_ends_the_call_at_once() -> None:
    controller = AbortController()

    def abort_soon(notice: RetryNotice) -> None:
        asyncio.get_running_loop().call_later(0.05, controller.abort)

    steps = [_overloaded(**{"retry-after": "30"}), text_reply(API, "Hello")]
    async with LoopbackServer(steps) as server:  # pyright: ignore[reportArgumentType]
        options = StreamOptions(
            api_key="sk-ant-unit",
            max_retries=2,
            max_retry_delay_ms=30_000,
            signal=controller.signal,
            on_retry=abort_soon,
        )
        message = await pi_sdk.complete(model_at(API, server.url), CONTEXT, options)
        assert len(server.requests) == 1  # no attempt after the abort (nor 30 s later)
    assert message.stop_reason == "aborted"
