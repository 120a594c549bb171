"""Every rule the stream enforces on a provider's own events (``pi_sdk/_stream/run.py``).

A stream function (not the core's read loop) yields whatever it likes; the stream turns each
breach of pi-mono's event contract into one ``start`` (when none came) and one ``error`` whose
text names the breach, and settles terminal events that disagree with their message. Each
rule is tested alone here, with its whole text, through the public stream.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

import pi_sdk
from pi_sdk import (
    AssistantMessageEventStream,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    StartEvent,
    TextContent,
    TextEndEvent,
    TextStartEvent,
    ThinkingContent,
    ToolCall,
    UserMessage,
)
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk._wire.output import Output
from pi_sdk.events import ToolCallStartEvent
from pi_sdk.provider import ProviderError

MODEL = Model(id="m1", api="test-rules", provider="testco")
CTX = Context(messages=[UserMessage(content="hi")])

Behaviour = Callable[[pi_sdk.AssistantMessage], AsyncIterator[Any]]


async def _run(behaviour: Behaviour, **options: Any) -> tuple[list[Any], pi_sdk.AssistantMessage]:
    async def start() -> AsyncIterator[Any]:
        async for event in behaviour(new_assistant_message(MODEL)):
            yield event

    stream = AssistantMessageEventStream(start, model=MODEL, **options)
    events = [event async for event in stream]
    return events, await stream.result()


def _failed(events: list[Any], text: str) -> None:
    assert isinstance(events[-1], ErrorEvent) and events[-1].reason == "error"
    assert events[-1].error.stop_reason == "error"
    assert events[-1].error.error_message == text
    assert [e.type for e in events].count("start") == 1 and events[0].type == "start"


async def test_a_stream_with_no_event_at_all_gets_a_start_and_an_error() -> None:
    async def behaviour(out: Any) -> AsyncIterator[Any]:
        return
        yield  # pragma: no cover

    events, final = await _run(behaviour)
    assert [e.type for e in events] == ["start", "error"]
    _failed(events, "stream ended without a terminal event")
    assert final.content == [] and final.model == "m1"


async def test_something_that_is_not_an_event_first_is_named() -> None:
    async def behaviour(out: Any) -> AsyncIterator[Any]:
        yield {"type": "start"}

    events, _ = await _run(behaviour)
    assert [e.type for e in events] == ["start", "error"]
    _failed(events, "protocol violation: the provider yielded dict, not an event")


async def test_a_start_for_a_block_already_open_is_refused() -> None:
    async def behaviour(out: Any) -> AsyncIterator[Any]:
        yield StartEvent(partial=out)
        out.content.append(TextContent(text=""))
        yield TextStartEvent(content_index=0, partial=out)
        yield TextStartEvent(content_index=0, partial=out)
        yield DoneEvent(reason="stop", message=out)

    events, _ = await _run(behaviour)
    assert [e.type for e in events] == ["start", "text_start", "error"]
    _failed(events, "protocol violation: text_start for open block 0")


async def test_an_end_without_its_start_is_refused() -> None:
    async def behaviour(out: Any) -> AsyncIterator[Any]:
        yield StartEvent(partial=out)
        yield TextEndEvent(content_index=2, content="x", partial=out)
        yield DoneEvent(reason="stop", message=out)

    events, _ = await _run(behaviour)
    assert [e.type for e in events] == ["start", "error"]
    _failed(events, "protocol violation: text_end without text start at 2")


async def test_a_tool_call_left_open_at_done_is_closed_first() -> None:
    call = ToolCall(id="c1", name="look", arguments={"q": "x"})

    async def behaviour(out: Any) -> AsyncIterator[Any]:
        yield StartEvent(partial=out)
        out.content.append(call)
        yield ToolCallStartEvent(content_index=0, partial=out)
        out.stop_reason = "toolUse"
        yield DoneEvent(reason="toolUse", message=out)

    events, final = await _run(behaviour)
    assert [e.type for e in events] == ["start", "toolcall_start", "toolcall_end", "done"]
    assert events[2].content_index == 0 and events[2].tool_call == call
    assert final.stop_reason == "toolUse" and final.content == [call]


@pytest.mark.parametrize("content", [[ThinkingContent(thinking="t")], []], ids=["other", "none"])
async def test_an_open_block_done_cannot_close_is_a_violation(content: list[Any]) -> None:
    """The message at ``done`` holds another kind of block there, or none."""

    async def behaviour(out: Any) -> AsyncIterator[Any]:
        yield StartEvent(partial=out)
        yield TextStartEvent(content_index=0, partial=out)
        out.content[:] = content
        yield DoneEvent(reason="stop", message=out)

    events, _ = await _run(behaviour)
    assert [e.type for e in events] == ["start", "text_start", "error"]
    _failed(events, "protocol violation: open block at done")


async def test_a_done_whose_reason_is_not_the_messages_is_an_error() -> None:
    async def behaviour(out: Any) -> AsyncIterator[Any]:
        yield StartEvent(partial=out)
        out.stop_reason = "stop"
        yield DoneEvent(reason="length", message=out)

    events, _ = await _run(behaviour)
    assert [e.type for e in events] == ["start", "error"]
    _failed(events, "done reason 'length' != 'stop'")


@pytest.mark.parametrize("reason", ["error", "aborted"])
async def test_an_error_event_sets_its_reason_and_a_text_on_the_message(reason: str) -> None:
    async def behaviour(out: Any) -> AsyncIterator[Any]:
        yield StartEvent(partial=out)
        yield ErrorEvent(reason=reason, error=out)  # the message still says "stop", no text

    events, final = await _run(behaviour)
    assert [e.type for e in events] == ["start", "error"]
    assert final.stop_reason == reason and final.error_message == "unknown error"


async def test_an_error_event_with_an_output_asked_for_says_why_there_is_none() -> None:
    async def behaviour(out: Any) -> AsyncIterator[Any]:
        yield StartEvent(partial=out)
        out.stop_reason, out.error_message = "error", "overloaded"
        yield ErrorEvent(reason="error", error=out)

    output = Output.of({"type": "object", "properties": {}})
    _, final = await _run(behaviour, output=output)
    assert final.output is not None and final.output.value is None
    assert final.output.error == "the reply ended with error: overloaded"
    assert final.error_message == "overloaded"


async def test_a_secrets_lookup_that_raises_leaves_the_default_redaction() -> None:
    key = "sk-ant-api03-" + "Q" * 40

    def secrets() -> list[str]:
        raise RuntimeError("the key store is down")

    async def behaviour(out: Any) -> AsyncIterator[Any]:
        raise ProviderError(f"401 invalid key {key} (custom-secret-0042)")
        yield  # pragma: no cover

    events, final = await _run(behaviour, secrets=secrets)
    assert final.error_message == "401 invalid key [REDACTED] (custom-secret-0042)"

    events, final = await _run(behaviour, secrets=lambda: ["custom-secret-0042", None])
    assert final.error_message == "401 invalid key [REDACTED] ([REDACTED])"


async def test_whole_block_events_pass_through_without_opening_a_block() -> None:
    """A server tool's call and result and an image are whole blocks: no start, no end, and
    the blocks around them nest as usual."""
    from pi_sdk import ImageContent, ServerToolCall, ServerToolResult
    from pi_sdk.events import (
        ImageEvent,
        ServerToolCallEvent,
        ServerToolResultEvent,
        TextDeltaEvent,
    )

    call = ServerToolCall(id="s1", name="web_search", arguments={"q": "x"})
    result = ServerToolResult(tool_call_id="s1", kind="web_search_tool_result", content=[])
    image = ImageContent(data="AAAA", mime_type="image/png")

    async def behaviour(out: Any) -> AsyncIterator[Any]:
        yield StartEvent(partial=out)
        out.content.append(call)
        yield ServerToolCallEvent(content_index=0, server_tool_call=call, partial=out)
        out.content.append(TextContent(text=""))
        yield TextStartEvent(content_index=1, partial=out)
        out.content.append(result)
        yield ServerToolResultEvent(content_index=2, server_tool_result=result, partial=out)
        out.content[1].text = "ok"
        yield TextDeltaEvent(content_index=1, delta="ok", partial=out)
        yield TextEndEvent(content_index=1, content="ok", partial=out)
        out.content.append(image)
        yield ImageEvent(content_index=3, image=image, partial=out)
        yield DoneEvent(reason="stop", message=out)

    events, final = await _run(behaviour)
    assert [e.type for e in events] == [
        "start",
        "servertool_call",
        "text_start",
        "servertool_result",
        "text_delta",
        "text_end",
        "image",
        "done",
    ]
    assert final.stop_reason == "stop" and final.content == [
        call,
        TextContent(text="ok"),
        result,
        image,
    ]


class _CloseFails:
    """A provider's event source whose ``aclose`` raises (a broken cleanup)."""

    def __init__(
        self, events: list[Any], *, hang: bool = False, error: Exception | None = None
    ) -> None:
        self._events = iter(events)
        self._hang = hang
        self._error = error
        self.closed = 0

    def __aiter__(self) -> _CloseFails:
        return self

    async def __anext__(self) -> Any:
        for event in self._events:
            return event
        if self._error is not None:
            raise self._error
        if self._hang:
            import asyncio

            await asyncio.Event().wait()
        raise StopAsyncIteration

    async def aclose(self) -> None:
        self.closed += 1
        raise RuntimeError("cleanup broke")


@pytest.mark.parametrize("ending", ["done", "left", "retried"])
async def test_a_source_whose_close_raises_never_changes_the_outcome(ending: str) -> None:
    out = new_assistant_message(MODEL)
    out.content.append(TextContent(text="hi"))
    started = [
        StartEvent(partial=out),
        TextStartEvent(content_index=0, partial=out),
    ]
    sources: list[_CloseFails] = []

    def start() -> _CloseFails:
        if ending == "retried" and not sources:  # the first attempt fails, is closed, retried
            sources.append(_CloseFails([], error=ProviderError("503", status=503, retryable=True)))
            return sources[-1]
        tail = [DoneEvent(reason="stop", message=out)] if ending != "left" else []
        source = _CloseFails([*started, *tail], hang=ending == "left")
        sources.append(source)
        return source

    stream = AssistantMessageEventStream(start, model=MODEL, max_retries=1, max_retry_delay_ms=1)
    events = []
    async for event in stream:
        events.append(event)
        if ending == "left" and event.type == "text_start":
            break
    if ending == "left":
        await stream.aclose()
    final = await stream.result()
    assert all(source.closed == 1 for source in sources) and sources
    if ending == "left":
        assert (final.stop_reason, final.error_message) == (
            "aborted",
            "stream closed by the consumer",
        )
    else:
        assert [e.type for e in events] == ["start", "text_start", "text_end", "done"]
        assert final.stop_reason == "stop" and final.error_message is None
    assert len(sources) == (2 if ending == "retried" else 1)


@pytest.mark.parametrize(
    ("said", "text", "kept", "kept_text"),
    [
        ("stop", None, "aborted", "stream closed by the consumer"),
        ("stop", "vendor note", "aborted", "vendor note"),  # a text already there is kept
        ("error", "boom", "error", "boom"),  # a failure already recorded stays one
        ("aborted", None, "aborted", None),
    ],
)
async def test_a_consumer_leaving_early_records_the_partial_as_aborted(
    said: str, text: str | None, kept: str, kept_text: str | None
) -> None:
    async def start() -> AsyncIterator[Any]:
        out = new_assistant_message(MODEL)
        out.stop_reason, out.error_message = said, text  # type: ignore[assignment]
        yield StartEvent(partial=out)
        yield TextStartEvent(content_index=0, partial=out)

    stream = AssistantMessageEventStream(start, model=MODEL, context=CTX)
    async for event in stream:
        if event.type == "start":
            break
    await stream.aclose()
    final = await stream.result()
    assert (final.stop_reason, final.error_message) == (kept, kept_text)
    # Aborted by the consumer after the reply started: the input it cost is estimated.
    estimated = said == "stop"
    assert bool(final.usage_estimated) is estimated
    assert final.usage.input == (1 if estimated else 0)


@pytest.mark.parametrize("source", ["ended", "not-an-event"])
async def test_a_consumer_leaving_at_the_start_the_core_gave_a_broken_source_is_estimated_too(
    source: str,
) -> None:
    # The provider ended without any event, or yielded something that is no event: the core
    # gives the start itself, then the error. A consumer that leaves at that start records
    # the partial as aborted by it, the input the call cost estimated as after any start.
    async def start() -> AsyncIterator[Any]:
        if source == "not-an-event":
            yield object()

    stream = AssistantMessageEventStream(start, model=MODEL, context=CTX)
    async for event in stream:
        assert event.type == "start"
        break
    await stream.aclose()
    final = await stream.result()
    assert (final.stop_reason, final.error_message) == ("aborted", "stream closed by the consumer")
    assert final.usage_estimated and final.usage.input == 1
