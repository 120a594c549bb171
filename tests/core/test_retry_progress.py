"""Retries are not silent (issue 31, item 5): ``on_retry``, the ``pi_sdk.retry`` log, the error.

A call against a loopback vendor answering 429 and 503 before it succeeds reports each retry,
before its wait, with the attempt, the attempts allowed, the wait, the reason and the status; a
call that fails after retrying says how many attempts it made. A call that succeeds at once
reports nothing.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from _support.loopback import LoopbackServer, json_step, model_at, text_reply
from _support.wire import wire_for

import pi_sdk
from pi_sdk import Context, StreamOptions, UserMessage
from pi_sdk.options import RetryNotice

API = "anthropic-messages"
KEY = "sk-ant-retry-secret-0123456789"
CONTEXT = Context(messages=[UserMessage(content="hi")])


def _error(status: int, text: str, **headers: str) -> object:
    body, _ = wire_for(API).http_error(status, text)
    return json_step(status, body, headers)


async def _complete(steps: list[object], **options: object) -> pi_sdk.AssistantMessage:
    async with LoopbackServer(steps) as server:  # pyright: ignore[reportArgumentType]
        settings = {"api_key": KEY, "max_retries": 2, "max_retry_delay_ms": 20, **options}
        return await pi_sdk.complete(model_at(API, server.url), CONTEXT, StreamOptions(**settings))  # pyright: ignore[reportArgumentType]


async def test_each_retry_is_reported_before_its_wait() -> None:
    notices: list[RetryNotice] = []
    steps = [
        _error(429, f"slow down, key {KEY}", **{"retry-after-ms": "5"}),
        _error(503, "overloaded"),
        text_reply(API, "Hello"),
    ]
    message = await _complete(steps, on_retry=notices.append)
    assert message.stop_reason == "stop", message.error_message
    assert [(n.attempt, n.max_attempts, n.status) for n in notices] == [(1, 3, 429), (2, 3, 503)]
    assert all(0 < n.delay_ms <= 20 for n in notices)  # the cap applies to the reported wait
    assert notices[0].delay_ms >= 5  # the server's retry-after-ms
    assert "429" in notices[0].error_message and "slow down" in notices[0].error_message
    assert KEY not in notices[0].error_message  # redacted like the final error
    assert "overloaded" in notices[1].error_message


async def test_the_final_error_says_how_many_attempts_were_made() -> None:
    message = await _complete([_error(503, "overloaded")])
    assert message.stop_reason == "error"
    assert message.error_message is not None
    assert message.error_message.endswith("(after 3 attempts)")
    assert "overloaded" in message.error_message

    once = await _complete([_error(503, "overloaded")], max_retries=0)
    assert once.error_message is not None and "attempts" not in once.error_message


async def test_a_success_at_once_reports_nothing_and_an_async_hook_is_awaited() -> None:
    seen: list[RetryNotice] = []

    async def hook(notice: RetryNotice) -> None:
        await asyncio.sleep(0)
        seen.append(notice)

    assert (await _complete([text_reply(API)], on_retry=hook)).stop_reason == "stop"
    assert seen == []
    steps = [_error(503, "overloaded"), text_reply(API)]
    assert (await _complete(steps, on_retry=hook)).stop_reason == "stop"
    assert [n.status for n in seen] == [503]


async def test_a_hook_that_raises_changes_nothing(caplog: pytest.LogCaptureFixture) -> None:
    def hook(notice: RetryNotice) -> None:
        raise RuntimeError("progress bar broke")

    with caplog.at_level(logging.WARNING, logger="pi_sdk.retry"):
        message = await _complete([_error(500, "oops"), text_reply(API)], on_retry=hook)
    assert message.stop_reason == "stop", message.error_message
    assert "on_retry raised" in caplog.text


async def test_retries_are_logged_on_pi_sdk_retry(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="pi_sdk.retry"):
        await _complete([_error(429, "busy"), text_reply(API)])
    [record] = [r for r in caplog.records if r.name == "pi_sdk.retry"]
    notice = record.__dict__["retry"]
    assert isinstance(notice, RetryNotice) and notice.attempt == 1
    text = record.getMessage()
    assert text.startswith("anthropic/claude-") and "attempt 1 of 3 failed (429" in text
    assert "retrying in 0.0" in text


async def test_a_first_byte_timeout_is_reported_with_no_wait() -> None:
    notices: list[RetryNotice] = []
    # A server that accepts and never answers: the first-byte limit ends each attempt.
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        options = StreamOptions(api_key=KEY, max_retries=1, timeout_ms=100, on_retry=notices.append)
        message = await pi_sdk.complete(model_at(API, f"http://127.0.0.1:{port}"), CONTEXT, options)
    finally:
        server.close()
    assert message.stop_reason == "error"
    assert message.error_message is not None
    assert message.error_message.endswith("(after 2 attempts)")
    [notice] = notices
    assert (notice.attempt, notice.max_attempts, notice.delay_ms, notice.status) == (1, 2, 0, None)
    assert notice.error_message.startswith("timed out: no response")
