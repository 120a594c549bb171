"""Stop reasons a provider reads at run time are judged as pi's literals are.

A provider that decodes a reply (``json.loads``, a relay, a queue) and assigns the stop reason
it read, or passes it to ``MessageBuilder.done`` as ``stream_proxy`` does, hands the core a
string equal to the literal but not the same object (``built``). Each row runs with the literal
and with such a string, and must end the same.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from _support.strings import built
from pydantic import BaseModel

import pi_sdk
from pi_sdk import (
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    StartEvent,
    StreamOptions,
    TextContent,
    ToolCall,
    UserMessage,
    register_api_provider,
)
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk.events import AssistantMessageEvent
from pi_sdk.provider import ApiProvider, MessageBuilder

API = "test-run-time-reasons"
MODEL = Model(id="m1", api=API, provider="testco")
CTX = Context(messages=[UserMessage(content="hi")])
MADE = pytest.mark.parametrize("make", [str, built], ids=["literal", "built"])


class City(BaseModel):
    name: str


Ending = Callable[[pi_sdk.AssistantMessage], AssistantMessageEvent]


def _provider(ending: Ending, content: list[Any] | None = None) -> None:
    async def stream(model: Model, context: Any, options: Any) -> AsyncIterator[Any]:
        out = new_assistant_message(model)
        yield StartEvent(partial=out)
        out.content.extend(content or [])
        yield ending(out)

    register_api_provider(ApiProvider(api=API, stream=stream), replace=True)


def _failed(reason: str, text: str) -> Ending:
    """A ``done`` whose message says the reply failed (the core turns it into ``error``)."""

    def ending(out: pi_sdk.AssistantMessage) -> AssistantMessageEvent:
        out.stop_reason, out.error_message = reason, text  # pyright: ignore[reportAttributeAccessIssue]
        return DoneEvent(reason="stop", message=out)

    return ending


def _error(event_reason: Any, message_reason: str) -> Ending:
    def ending(out: pi_sdk.AssistantMessage) -> AssistantMessageEvent:
        out.stop_reason, out.error_message = message_reason, "gone"  # pyright: ignore[reportAttributeAccessIssue]
        return ErrorEvent(reason=event_reason, error=out)

    return ending


@MADE
@pytest.mark.parametrize(
    ("ending", "expected"),
    [
        # a done carrying a failure ends as that failure, its text kept
        (lambda make: _failed(make("error"), "refused"), ("error", "error", "error", "refused")),
        (
            lambda make: _failed(make("aborted"), "cancelled upstream"),
            ("error", "aborted", "aborted", "cancelled upstream"),
        ),
        # an error event: the message's own failure reason wins over the event's
        (lambda make: _error("error", make("aborted")), ("error", "error", "aborted", "gone")),
        (lambda make: _error("aborted", make("error")), ("error", "aborted", "error", "gone")),
    ],
    ids=["done-error", "done-aborted", "error-keeps-aborted", "aborted-keeps-error"],
)
async def test_a_failure_a_provider_reports_ends_the_call_as_that_failure(
    make: Any, ending: Any, expected: tuple[str, str, str, str]
) -> None:
    _provider(ending(make))
    events = [event async for event in pi_sdk.stream(MODEL, CTX)]
    assert [e.type for e in events[:-1]] == ["start"]
    last = events[-1]
    assert isinstance(last, ErrorEvent)
    got = (last.type, last.reason, last.error.stop_reason, last.error.error_message)
    assert got == expected


@MADE
async def test_a_forced_answer_call_ends_as_stop_whatever_made_its_name_and_reason(
    make: Any,
) -> None:
    # The name decoded from a later chunk, as the Completions decoder sets it when the first
    # chunk had none: equal to the answer tool's name, not the same object.
    call = ToolCall(id="c1", name="", arguments={"name": "Delhi"})
    call.name = make("final_answer")

    def ending(out: pi_sdk.AssistantMessage) -> AssistantMessageEvent:
        out.stop_reason = make("toolUse")  # pyright: ignore[reportAttributeAccessIssue]
        return DoneEvent(reason=make("toolUse"), message=out)

    _provider(ending, [call])
    events = [event async for event in pi_sdk.stream(MODEL, CTX, StreamOptions(output=City))]
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.reason == "stop"
    message = done.message
    assert (message.stop_reason, message.tool_calls) == ("stop", [])
    assert message.content == [TextContent(text='{"name": "Delhi"}')]
    assert message.output is not None and message.output.value == City(name="Delhi")


@MADE
@pytest.mark.parametrize(
    ("reason", "exact", "stop_reason", "invalid"),
    [
        ("stop", False, "toolUse", None),  # a reply with a call is a tool use
        ("stop", True, "stop", None),  # unless the vendor's reason is exact (stream_proxy)
        ("length", False, "length", ""),  # the last call, cut before its text: never run
        ("length", True, "length", ""),
        ("toolUse", True, "toolUse", None),
    ],
)
def test_the_builder_ends_on_a_reason_read_at_run_time_as_on_its_literal(
    make: Any, reason: str, exact: bool, stop_reason: str, invalid: str | None
) -> None:
    b = MessageBuilder(MODEL)
    b.open_tool_call("c", id="c1", name="f")
    b.end_tool_call("c")
    (done,) = b.done(make(reason), exact=exact)
    assert isinstance(done, DoneEvent)
    assert (done.reason, b.message.stop_reason) == (stop_reason, stop_reason)
    call = b.message.content[0]
    assert isinstance(call, ToolCall) and call.invalid_arguments == invalid
