"""The stream object enforces pi-mono's event contract whatever a provider does."""

import asyncio

import pytest
from _support.events import block_types, reply_types

from pi_sdk import (
    AbortController,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    ProviderNotFoundError,
    StartEvent,
    StreamOptions,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    UserMessage,
    complete,
    complete_sync,
    register_api_provider,
    stream,
)
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk.provider import ApiProvider, ProviderError

MODEL = Model(id="m1", api="test-contract", provider="testco")
CTX = Context(messages=[UserMessage(content="hi")])


class Script:
    """A provider whose behaviour each test sets; counts starts and closes."""

    def __init__(self):
        self.behaviour = None
        self.starts = 0
        self.closed = 0

    async def stream(self, model, context, options):
        self.starts += 1
        try:
            async for event in self.behaviour(model):
                yield event
        finally:
            self.closed += 1


@pytest.fixture
def script():
    s = Script()
    register_api_provider(ApiProvider(api="test-contract", stream=s.stream), replace=True)
    return s


def text_events(out, words):
    out.content.append(TextContent(text=""))
    yield TextStartEvent(content_index=0, partial=out)
    for w in words:
        out.content[0].text += w
        yield TextDeltaEvent(content_index=0, delta=w, partial=out)


def started_text(out, words):
    """The ``start`` event, then a text block streaming ``words``."""
    yield StartEvent(partial=out)
    yield from text_events(out, words)


async def collect(s):
    return [e async for e in s]


async def test_normal_stream_passes_through(script):
    async def behaviour(model):
        out = new_assistant_message(model)
        for e in started_text(out, ["a", "b"]):
            yield e
        yield TextEndEvent(content_index=0, content="ab", partial=out)
        yield DoneEvent(reason="stop", message=out)

    script.behaviour = behaviour
    s = stream(MODEL, CTX)
    events = await collect(s)
    assert [e.type for e in events] == reply_types(block_types("text", deltas=2))
    result = await s.result()
    assert result.text == "ab" and result.stop_reason == "stop"
    assert script.closed == 1


async def test_exception_mid_stream_becomes_one_error_event_with_partial_kept(script):
    async def behaviour(model):
        out = new_assistant_message(model)
        out.usage.input = 7
        for e in started_text(out, ["par", "tial"]):
            yield e
        raise ValueError("connection reset by peer")

    script.behaviour = behaviour
    events = await collect(stream(MODEL, CTX))
    assert [e.type for e in events][-1] == "error"
    assert sum(e.type in ("done", "error") for e in events) == 1
    final = events[-1]
    assert isinstance(final, ErrorEvent) and final.reason == "error"
    assert final.error.text == "partial"
    assert final.error.usage.input == 7
    assert final.error.error_message == "connection reset by peer"


async def test_missing_start_is_synthesized_and_missing_terminal_becomes_error(script):
    async def behaviour(model):
        out = new_assistant_message(model)
        for e in text_events(out, ["x"]):
            yield e

    script.behaviour = behaviour
    events = await collect(stream(MODEL, CTX))
    assert [e.type for e in events] == ["start", "text_start", "text_delta", "error"]
    assert "without a terminal event" in events[-1].error.error_message
    assert events[-1].error.text == "x"


async def test_failure_before_any_event_still_gives_start_then_error(script):
    async def behaviour(model):
        raise ProviderError("401 invalid x-api-key", status=401)
        yield  # pragma: no cover

    script.behaviour = behaviour
    message = await complete(MODEL, CTX)
    assert message.stop_reason == "error"
    assert message.error_message == "401 invalid x-api-key"
    assert (message.api, message.provider, message.model) == ("test-contract", "testco", "m1")


async def test_done_with_error_stop_reason_is_turned_into_error_event(script):
    async def behaviour(model):
        out = new_assistant_message(model)
        yield StartEvent(partial=out)
        out.stop_reason = "error"
        out.error_message = "refused"
        yield DoneEvent(reason="stop", message=out)

    script.behaviour = behaviour
    events = await collect(stream(MODEL, CTX))
    assert events[-1].type == "error" and events[-1].error.error_message == "refused"


async def test_events_after_terminal_are_dropped_and_source_closed(script):
    async def behaviour(model):
        out = new_assistant_message(model)
        yield StartEvent(partial=out)
        yield DoneEvent(reason="stop", message=out)
        yield TextStartEvent(content_index=0, partial=out)

    script.behaviour = behaviour
    events = await collect(stream(MODEL, CTX))
    assert [e.type for e in events] == ["start", "done"]
    assert script.closed == 1


@pytest.mark.parametrize("terminal", ["done", "error"])
@pytest.mark.parametrize("after", ["done", "error", "text"])
async def test_nothing_follows_a_terminal_event_of_either_kind(script, terminal, after):
    """pi-spec §2: exactly one terminal event, whichever kind comes first."""

    async def behaviour(model):
        out = new_assistant_message(model)
        yield StartEvent(partial=out)
        if terminal == "done":
            yield DoneEvent(reason="stop", message=out)
        else:
            out.stop_reason, out.error_message = "error", "boom"
            yield ErrorEvent(reason="error", error=out)
        if after == "done":
            yield DoneEvent(reason="stop", message=out)
        elif after == "error":
            yield ErrorEvent(reason="error", error=out)
        else:
            yield TextStartEvent(content_index=0, partial=out)

    script.behaviour = behaviour
    events = await collect(stream(MODEL, CTX))
    assert [e.type for e in events] == ["start", terminal]
    assert script.closed == 1
    result = await complete(MODEL, CTX)
    assert result.stop_reason == ("stop" if terminal == "done" else "error")


async def test_protocol_violation_ends_in_error(script):
    async def behaviour(model):
        out = new_assistant_message(model)
        yield StartEvent(partial=out)
        yield TextDeltaEvent(content_index=3, delta="x", partial=out)

    script.behaviour = behaviour
    events = await collect(stream(MODEL, CTX))
    assert events[-1].type == "error"
    assert "protocol violation" in events[-1].error.error_message


async def test_abort_while_provider_waits_ends_aborted_and_closes_source(script):
    reached = asyncio.Event()

    async def behaviour(model):
        out = new_assistant_message(model)
        for e in started_text(out, ["so far"]):
            yield e
        reached.set()
        await asyncio.sleep(3600)
        yield DoneEvent(reason="stop", message=out)  # pragma: no cover

    script.behaviour = behaviour
    controller = AbortController()
    s = stream(MODEL, CTX, StreamOptions(signal=controller.signal))

    async def abort_soon():
        await reached.wait()
        controller.abort()

    task = asyncio.create_task(abort_soon())
    events = await asyncio.wait_for(collect(s), timeout=5)
    await task
    assert events[-1].type == "error" and events[-1].reason == "aborted"
    assert events[-1].error.stop_reason == "aborted"
    assert events[-1].error.text == "so far"
    assert script.closed == 1


async def test_already_aborted_signal_never_starts_the_provider(script):
    async def behaviour(model):  # pragma: no cover
        yield StartEvent(partial=new_assistant_message(model))

    script.behaviour = behaviour
    controller = AbortController()
    controller.abort()
    message = await complete(MODEL, CTX, StreamOptions(signal=controller.signal))
    assert message.stop_reason == "aborted"
    assert script.starts == 0


async def test_outer_cancellation_is_not_swallowed(script):
    async def behaviour(model):
        yield StartEvent(partial=new_assistant_message(model))
        await asyncio.sleep(3600)

    script.behaviour = behaviour
    task = asyncio.create_task(complete(MODEL, CTX))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert script.closed == 1


async def test_breaking_out_early_closes_the_provider(script):
    async def behaviour(model):
        out = new_assistant_message(model)
        for e in started_text(out, ["a"] * 100):
            yield e

    script.behaviour = behaviour
    async with stream(MODEL, CTX) as s:
        async for event in s:
            if event.type == "text_delta":
                break
    assert script.closed == 1
    assert (await s.result()).stop_reason == "aborted"


async def test_retryable_error_before_start_is_retried(script):
    attempts = []

    async def behaviour(model):
        attempts.append(1)
        if len(attempts) < 3:
            raise ProviderError("429 rate limited", status=429, retryable=True, retry_after_ms=1)
        out = new_assistant_message(model)
        yield StartEvent(partial=out)
        yield DoneEvent(reason="stop", message=out)

    script.behaviour = behaviour
    opts = StreamOptions(max_retries=2, max_retry_delay_ms=1)
    message = await complete(MODEL, CTX, opts)
    assert message.stop_reason == "stop" and len(attempts) == 3

    attempts.clear()
    message = await complete(MODEL, CTX, StreamOptions(max_retries=1, max_retry_delay_ms=1))
    assert message.stop_reason == "error" and "429" in message.error_message
    assert len(attempts) == 2


async def test_non_retryable_error_is_not_retried(script):
    attempts = []

    async def behaviour(model):
        attempts.append(1)
        raise ProviderError("400 bad request", status=400)
        yield  # pragma: no cover

    script.behaviour = behaviour
    message = await complete(MODEL, CTX, StreamOptions(max_retries=3, max_retry_delay_ms=1))
    assert message.stop_reason == "error" and len(attempts) == 1


def test_unknown_api_raises_synchronously():
    with pytest.raises(ProviderNotFoundError, match="no-such-api"):
        stream(Model(id="x", api="no-such-api", provider="p"), CTX)


async def test_one_consumer_at_a_time(script):
    async def behaviour(model):
        out = new_assistant_message(model)
        yield StartEvent(partial=out)
        yield DoneEvent(reason="stop", message=out)

    script.behaviour = behaviour
    s = stream(MODEL, CTX)
    aiter(s)
    with pytest.raises(RuntimeError, match="one consumer"):
        aiter(s)


async def test_complete_sync_refuses_inside_a_running_loop(script):
    with pytest.raises(RuntimeError, match="await pi_sdk.complete"):
        complete_sync(MODEL, CTX)


def test_complete_sync_runs_from_plain_code(script):
    async def behaviour(model):
        out = new_assistant_message(model)
        for e in started_text(out, ["sync"]):
            yield e
        yield TextEndEvent(content_index=0, content="sync", partial=out)
        yield DoneEvent(reason="stop", message=out)

    script.behaviour = behaviour
    assert complete_sync(MODEL, CTX).text == "sync"


async def test_a_provider_that_stops_sending_times_out_with_partial_kept(script):
    async def behaviour(model):
        out = new_assistant_message(model)
        for e in started_text(out, ["half"]):
            yield e
        await asyncio.sleep(3600)
        yield DoneEvent(reason="stop", message=out)  # pragma: no cover

    script.behaviour = behaviour
    opts = StreamOptions(idle_timeout_ms=50)
    message = await asyncio.wait_for(complete(MODEL, CTX, opts), timeout=5)
    assert message.stop_reason == "error"
    assert "sent nothing for 50 ms" in message.error_message
    assert message.text == "half"
    assert script.closed == 1


async def test_a_timeout_before_the_response_starts_is_retried(script):
    attempts = []

    async def behaviour(model):
        attempts.append(1)
        if len(attempts) == 1:
            await asyncio.sleep(3600)
        out = new_assistant_message(model)
        yield StartEvent(partial=out)
        yield DoneEvent(reason="stop", message=out)

    script.behaviour = behaviour
    opts = StreamOptions(timeout_ms=50, max_retries=1, max_retry_delay_ms=1)
    message = await asyncio.wait_for(complete(MODEL, CTX, opts), timeout=5)
    assert message.stop_reason == "stop" and len(attempts) == 2

    attempts.clear()
    opts = StreamOptions(timeout_ms=50, max_retries=0)

    async def never(model):
        attempts.append(1)
        await asyncio.sleep(3600)
        yield  # pragma: no cover

    script.behaviour = never
    message = await asyncio.wait_for(complete(MODEL, CTX, opts), timeout=5)
    assert message.stop_reason == "error" and "no response" in message.error_message


async def test_steady_events_never_time_out(script):
    async def behaviour(model):
        out = new_assistant_message(model)
        yield StartEvent(partial=out)
        out.content.append(TextContent(text=""))
        yield TextStartEvent(content_index=0, partial=out)
        for _ in range(8):  # 8 x 60 ms > the 300 ms timeout, but each gap is far shorter
            await asyncio.sleep(0.06)
            out.content[0].text += "."
            yield TextDeltaEvent(content_index=0, delta=".", partial=out)
        yield TextEndEvent(content_index=0, content=out.content[0].text, partial=out)
        yield DoneEvent(reason="stop", message=out)

    script.behaviour = behaviour
    message = await complete(MODEL, CTX, StreamOptions(idle_timeout_ms=300))
    assert message.stop_reason == "stop" and message.text == "........"


def _pausing(before_start: float, mid_stream: float):
    async def behaviour(model):
        await asyncio.sleep(before_start)
        out = new_assistant_message(model)
        yield StartEvent(partial=out)
        for e in text_events(out, ["a"]):
            yield e
        await asyncio.sleep(mid_stream)
        out.content[0].text += "b"
        yield TextDeltaEvent(content_index=0, delta="b", partial=out)
        yield TextEndEvent(content_index=0, content="ab", partial=out)
        yield DoneEvent(reason="stop", message=out)

    return behaviour


async def test_the_first_byte_wait_and_the_idle_limit_are_separate(script):
    """``timeout_ms`` bounds the wait for the response to start, ``idle_timeout_ms`` the
    silences after it; neither applies in the other's phase."""
    long_wait = StreamOptions(timeout_ms=5_000, idle_timeout_ms=50, max_retries=0)
    short_wait = StreamOptions(timeout_ms=50, idle_timeout_ms=5_000, max_retries=0)
    idle = "timed out: the provider sent nothing for 50 ms"
    late = "timed out: no response from the provider within 50 ms"
    cases = [
        (long_wait, 0.2, 0, "ab", None),
        (long_wait, 0, 0.3, "a", idle),
        (short_wait, 0, 0.2, "ab", None),
        (short_wait, 0.3, 0, "", late),
    ]
    for options, before_start, mid_stream, text, error in cases:
        script.behaviour = _pausing(before_start=before_start, mid_stream=mid_stream)
        message = await asyncio.wait_for(complete(MODEL, CTX, options), timeout=5)
        assert message.stop_reason == ("stop" if error is None else "error")
        assert (message.text, message.error_message) == (text, error)


def test_the_default_limits():
    options = StreamOptions()
    assert (options.timeout_ms, options.idle_timeout_ms) == (600_000, 300_000)


async def test_a_provider_yielding_a_non_event_ends_in_error(script):
    async def behaviour(model):
        yield StartEvent(partial=new_assistant_message(model))
        yield {"type": "text_delta"}

    script.behaviour = behaviour
    events = await collect(stream(MODEL, CTX))
    assert [e.type for e in events] == ["start", "error"]
    assert "yielded dict, not an event" in events[-1].error.error_message


async def test_a_provider_raising_cancelled_error_by_itself_is_an_error_not_a_cancel(script):
    async def behaviour(model):
        yield StartEvent(partial=new_assistant_message(model))
        raise asyncio.CancelledError

    script.behaviour = behaviour
    message = await complete(MODEL, CTX)
    assert message.stop_reason == "error"
    assert "CancelledError" in message.error_message


async def test_blocks_left_open_at_done_are_closed_first(script):
    from pi_sdk import ToolCall, ToolCallStartEvent

    async def behaviour(model):
        out = new_assistant_message(model)
        for e in started_text(out, ["hi"]):
            yield e
        out.content.append(ToolCall(id="t1", name="f", arguments={"a": 1}))
        yield ToolCallStartEvent(content_index=1, partial=out)
        out.stop_reason = "toolUse"
        yield DoneEvent(reason="toolUse", message=out)

    script.behaviour = behaviour
    events = await collect(stream(MODEL, CTX))
    assert [e.type for e in events] == [
        "start",
        "text_start",
        "text_delta",
        "toolcall_start",
        "text_end",
        "toolcall_end",
        "done",
    ]
    assert events[4].content == "hi"
    assert events[5].tool_call.arguments == {"a": 1}


async def test_a_thinking_block_left_open_at_done_is_closed_with_its_whole_text(script):
    from pi_sdk import ThinkingContent, ThinkingDeltaEvent, ThinkingStartEvent

    async def behaviour(model):
        out = new_assistant_message(model)
        yield StartEvent(partial=out)
        out.content.append(ThinkingContent(thinking=""))
        yield ThinkingStartEvent(content_index=0, partial=out)
        for piece in ("plan ", "it"):
            out.content[0].thinking += piece
            yield ThinkingDeltaEvent(content_index=0, delta=piece, partial=out)
        out.stop_reason = "stop"
        yield DoneEvent(reason="stop", message=out)

    script.behaviour = behaviour
    events = await collect(stream(MODEL, CTX))
    assert [e.type for e in events] == [
        "start", "thinking_start", "thinking_delta", "thinking_delta", "thinking_end", "done"
    ]  # fmt: skip
    assert (events[4].content_index, events[4].content) == (0, "plan it")


async def test_api_keys_never_reach_error_messages(script, monkeypatch):
    monkeypatch.setenv("TESTCO_API_KEY", "tc-live-0123456789abcdef")

    async def behaviour(model):
        raise ProviderError(
            "401: invalid key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA and "
            "tc-live-0123456789abcdef and my-explicit-key-123"
        )
        yield  # pragma: no cover

    script.behaviour = behaviour
    message = await complete(MODEL, CTX, StreamOptions(api_key="my-explicit-key-123"))
    assert message.stop_reason == "error" and message.error_message.startswith("401")
    for secret in ("sk-ant-api03-AAAA", "tc-live-0123456789abcdef", "my-explicit-key-123"):
        assert secret not in message.error_message
    assert "[REDACTED]" in message.error_message


def test_stream_options_repr_masks_credentials():
    opts = StreamOptions(api_key="sk-secret-value-123", headers={"Authorization": "Bearer x"})
    text = repr(opts)
    assert "sk-secret-value-123" not in text and "Bearer x" not in text
    assert "api_key='***'" in text and "'Authorization': '***'" in text


@pytest.mark.parametrize("timed_out_first", [False, True])
async def test_an_outer_cancel_racing_an_abort_still_cancels_the_task(script, timed_out_first):
    # With ``timed_out_first`` the first attempt times out (our cancellation, taken back) and is
    # retried: the count of our own cancellations starts again from zero, or the caller's
    # later one would be taken for ours and swallowed.
    attempts = []
    reached = asyncio.Event()

    async def behaviour(model):
        attempts.append(1)
        if timed_out_first and len(attempts) == 1:
            await asyncio.sleep(3600)
        yield StartEvent(partial=new_assistant_message(model))
        reached.set()
        await asyncio.sleep(3600)
        yield  # pragma: no cover

    script.behaviour = behaviour
    controller = AbortController()
    retry = {"timeout_ms": 50, "max_retries": 1, "max_retry_delay_ms": 1}
    opts = StreamOptions(signal=controller.signal, **(retry if timed_out_first else {}))
    task = asyncio.create_task(complete(MODEL, CTX, opts))
    await asyncio.wait_for(reached.wait(), timeout=5)
    assert len(attempts) == (2 if timed_out_first else 1)
    controller.abort()  # our cancellation of the pending read ...
    task.cancel()  # ... and the caller's, in the same tick
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_an_outer_asyncio_timeout_is_not_swallowed_by_the_stream_timeout(script):
    async def behaviour(model):
        yield StartEvent(partial=new_assistant_message(model))
        await asyncio.sleep(3600)
        yield  # pragma: no cover

    script.behaviour = behaviour
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.1):
            await complete(MODEL, CTX, StreamOptions(timeout_ms=100))


async def test_a_failing_usage_estimate_never_replaces_the_real_outcome(script, monkeypatch):
    from pi_sdk import AbortController
    from pi_sdk._stream import usage_estimate

    calls: list[str] = []

    def broken(message, model, context, *, reason):
        calls.append(reason)
        raise RuntimeError("estimate broke")

    monkeypatch.setattr(usage_estimate, "estimate_missing_usage", broken)

    async def behaviour(model):
        out = new_assistant_message(model)
        for e in started_text(out, ["partial ", "answer"]):
            yield e
        await asyncio.sleep(3600)  # the vendor goes quiet: the caller aborts

    script.behaviour = behaviour
    controller = AbortController()
    events = []
    async for event in stream(MODEL, CTX, StreamOptions(signal=controller.signal)):
        events.append(event)
        if event.type == "text_delta" and event.delta == "answer":
            controller.abort("user stopped it")
    assert calls == ["aborted"]  # the reply was cut: its usage was to be estimated
    message = events[-1].error
    assert (events[-1].type, message.stop_reason) == ("error", "aborted")
    assert message.error_message == "user stopped it"
    assert message.text == "partial answer"
