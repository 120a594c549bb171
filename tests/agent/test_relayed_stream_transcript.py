"""A stream whose events each carry a new ``partial`` object keeps the transcript whole.

A ``stream_fn`` that relays another process's stream (events decoded from the wire, pi-mono's
proxy) gives every event its own copy of the message so far, where pi-ai's own streams mutate
one object. The loop keeps the message being streamed as the transcript's LAST entry and swaps
in each new copy there (pi-agent-core 1.6 ``streamAssistantResponse``: ``context.messages[
context.messages.length - 1] = partialMessage``), so that the earlier messages stay as they
were. What the transcript holds is checked at every point a caller can see it, in a run over
a history of several messages with two model calls: the history each request sends, what
``transform_context``, ``before_tool_call`` and ``finish_turn`` receive, each
``message_update`` (the event's own copy), and the run's messages; for a stream that ends
``done`` and one that ends in an ``error`` event.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

from _support.agent import config, isolated_plugins, user  # noqa: F401

import pi_sdk
from pi_sdk import AgentContext
from pi_sdk._agent.loop import run_agent_loop
from pi_sdk._wire.agent_types import AgentEvent
from pi_sdk.testing import ScriptedProvider, ScriptedReply


@pi_sdk.tool
async def lookup(city: str) -> str:
    """Look up the weather.

    Args:
        city: Where.
    """
    return f"sunny in {city}"


def _history(model: pi_sdk.Model) -> list[Any]:
    earlier = pi_sdk.AssistantMessage(
        api=model.api,
        provider=model.provider,
        model=model.id,
        content=[pi_sdk.TextContent(text="Hello, how can I help?")],
        stop_reason="stop",
    )
    return [user("hi"), earlier, user("thanks"), earlier.model_copy(deep=True)]


class Recorder:
    """Everything the run shows of its transcript, as ``role: text`` lines per point."""

    def __init__(self, provider: ScriptedProvider) -> None:
        self.provider = provider
        self.points: list[tuple[str, list[str]]] = []
        self.updates = 0

    def stream_fn(self, model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
        self.points.append(("request", _lines(context.messages)))
        return _relayed(self.provider.stream_fn(model, context, options))

    async def transform_context(self, messages: list[Any], signal: Any = None) -> list[Any]:
        self.points.append(("transform_context", _lines(messages)))
        return messages

    def before_tool_call(self, context: Any, signal: Any) -> None:
        self.points.append(("before_tool_call", _lines(context.context.messages)))

    def finish_turn(self, turn: Any, signal: Any) -> None:
        self.points.append(("finish_turn", _lines(turn.context.messages)))

    async def sink(self, event: AgentEvent) -> None:
        if event.type == "message_update":
            assert event.message is event.assistant_message_event.partial
            self.updates += 1


async def _relayed(inner: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """Each event with its own copy of the partial message, as a relay decodes them."""
    async for event in inner:
        if event.type in ("done", "error"):
            yield event
        else:
            yield dataclasses.replace(event, partial=event.partial.model_copy(deep=True))


def _lines(messages: list[Any]) -> list[str]:
    lines: list[str] = []
    for message in messages:
        content = message.content
        if isinstance(content, str):
            text = content
        else:
            text = " ".join(
                getattr(block, "text", None) or f"call {getattr(block, 'name', '?')}"
                for block in content
            )
        lines.append(f"{message.role}: {text}")
    return lines


HISTORY = [
    "user: hi",
    "assistant: Hello, how can I help?",
    "user: thanks",
    "assistant: Hello, how can I help?",
    "user: weather in Paris?",
]


async def _run(final: ScriptedReply | str) -> tuple[Recorder, list[Any]]:
    provider = ScriptedProvider(
        [ScriptedReply.tool_call("lookup", {"city": "Paris"}, text="Let me look."), final]
    )
    recorder = Recorder(provider)
    context = AgentContext(tools=[lookup], messages=_history(provider.model))
    new = await run_agent_loop(
        [user("weather in Paris?")],
        context,
        config(
            provider,
            transform_context=recorder.transform_context,
            before_tool_call=recorder.before_tool_call,
            finish_turn=recorder.finish_turn,
        ),
        recorder.sink,
        stream_fn=recorder.stream_fn,
    )
    return recorder, new


async def test_every_point_of_a_relayed_run_sees_the_whole_transcript_in_order():
    recorder, new = await _run("It is sunny in Paris.")
    after_call = [*HISTORY, "assistant: Let me look. call lookup"]
    after_result = [*after_call, "toolResult: sunny in Paris"]
    done = [*after_result, "assistant: It is sunny in Paris."]
    assert recorder.points == [
        ("transform_context", HISTORY),
        ("request", HISTORY),
        ("before_tool_call", after_call),
        ("finish_turn", after_result),
        ("transform_context", after_result),
        ("request", after_result),
        ("finish_turn", done),
    ]
    assert recorder.updates > 4  # both replies streamed in several updates
    assert _lines(new) == done[4:]


async def test_a_relayed_stream_that_ends_in_an_error_leaves_the_history_as_it_was():
    recorder, new = await _run(
        ScriptedReply.failure("overloaded", [pi_sdk.TextContent(text="It is")])
    )
    after_result = [
        *HISTORY,
        "assistant: Let me look. call lookup",
        "toolResult: sunny in Paris",
    ]
    assert recorder.points[-1] == ("finish_turn", [*after_result, "assistant: It is"])
    assert [m.role for m in new] == ["user", "assistant", "toolResult", "assistant"]
    assert new[-1].stop_reason == "error" and new[-1].error_message == "overloaded"
