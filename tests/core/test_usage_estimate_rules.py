"""The usage estimated for a reply cut before the vendor reported one
(``pi_sdk/_stream/usage_estimate.py``), count by count: what is estimated, what is kept as the
vendor reported it, and what the estimate records."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_sdk import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    ModelCost,
    SystemMessage,
    TextContent,
    Tool,
    ToolCall,
    UserMessage,
)
from pi_sdk._stream.usage_estimate import context_chars, estimate_missing_usage
from pi_sdk.types import Diagnostic

MODEL = Model(id="m", api="a", provider="p", cost=ModelCost(input=1.0, output=2.0))
IMAGE = ImageContent(data="AAAA", mime_type="image/png")
ASK = Context(messages=[UserMessage(content="x" * 40)])  # 10 tokens


def _reply(*content: Any, **usage: int) -> AssistantMessage:
    message = AssistantMessage(api="a", provider="p", model="m", content=list(content))
    for name, value in usage.items():
        setattr(message.usage, name, value)
    return message


def test_the_request_counts_every_part_it_sends() -> None:
    tool = Tool(name="look", description="d" * 5, parameters={"type": "object"})
    system = SystemMessage(content="rules", sections={"a": "one", "b": None}, tools_added=[tool])
    context = Context(
        system_prompt="p" * 3,
        messages=[
            UserMessage(content=[TextContent(text="t" * 7), IMAGE]),
            system,
            _reply(ToolCall(id="c", name="f", arguments={"k": "é"}), TextContent(text="ok")),
        ],
        tools=[tool],
    )
    tool_chars = 4 + 5 + len(json.dumps({"type": "object"}))
    call_chars = 1 + len('{"k": "é"}')
    expected = 3 + (7 + 4800) + (len("rules\n\none") + tool_chars) + call_chars + 2 + tool_chars
    assert context_chars(context) == expected


@pytest.mark.parametrize(
    ("reported", "context", "input_", "output"),
    [
        ({}, ASK, 10, 3),  # nothing reported: both estimated
        ({"input": 50}, ASK, 50, 3),  # a reported count is kept
        ({"cache_read": 7}, ASK, 0, 3),  # a cache count is input reported too
        ({"cache_write": 7}, ASK, 0, 3),
        ({}, None, 0, 3),  # no request to estimate from
        ({"output": 9}, ASK, 10, 9),
    ],
)
def test_only_the_counts_the_vendor_never_sent_are_estimated(
    reported: dict[str, int], context: Context | None, input_: int, output: int
) -> None:
    message = _reply(TextContent(text="abcdefghi"), **reported)  # 9 characters: 3 tokens
    estimate_missing_usage(message, MODEL, context, reason="cut")
    usage = message.usage
    assert (usage.input, usage.output) == (input_, output)
    assert usage.total_tokens == usage.input + usage.output + usage.cache_read + usage.cache_write
    assert usage.cost.input == pytest.approx(input_ / 1e6)
    assert usage.cost.output == pytest.approx(output * 2 / 1e6)
    details: dict[str, Any] = {"reason": "cut"}
    if "input" not in reported and "cache_read" not in reported and "cache_write" not in reported:
        if context is not None:
            details["input"] = 10
    if "output" not in reported:
        details["output"] = 3
    assert message.usage_estimated is True
    # (a diagnostic's timestamp is the time it was made: compared without it)
    found = [d.model_copy(update={"timestamp": 0}) for d in message.diagnostics or []]
    assert found == [Diagnostic(type="usage_estimated", details=details, timestamp=0)]


def test_an_image_in_the_reply_counts_1200_tokens() -> None:
    message = _reply(IMAGE)
    estimate_missing_usage(message, MODEL, None, reason="aborted")
    assert message.usage.output == 1200


@pytest.mark.parametrize(
    ("reply", "context"),
    [
        (_reply(input=5, output=5), ASK),  # complete usage
        (_reply(), None),  # nothing streamed and no request
        (_reply(output=4), Context()),  # an empty request: nothing to count
    ],
)
def test_nothing_to_estimate_changes_nothing(reply: AssistantMessage, context: Any) -> None:
    before = reply.model_dump()
    estimate_missing_usage(reply, MODEL, context, reason="cut")
    assert reply.model_dump() == before
    assert reply.usage_estimated is None and reply.diagnostics is None


def test_the_estimate_is_recorded_after_the_diagnostics_already_there() -> None:
    earlier = Diagnostic(type="provider_error", details={"retryable": True})
    message = _reply(TextContent(text="abcd"))
    message.diagnostics = [earlier]
    estimate_missing_usage(message, MODEL, None, reason="aborted")
    assert message.diagnostics is not None
    assert [d.type for d in message.diagnostics] == ["provider_error", "usage_estimated"]
    assert message.diagnostics[1].details == {"reason": "aborted", "output": 1}


def test_a_message_without_readable_content_counts_nothing() -> None:
    """A message built without validation (``model_construct``) whose content is neither text
    nor blocks adds no characters: the estimate never fails on it."""
    odd = UserMessage.model_construct(role="user", content=None, timestamp=0)
    context = Context(messages=[UserMessage(content="x" * 8)])
    context.messages.append(odd)
    assert context_chars(context) == 8
    reply = _reply(TextContent(text="y" * 8))
    estimate_missing_usage(reply, MODEL, context, reason="cut")
    assert (reply.usage.input, reply.usage.output) == (2, 2)
