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
