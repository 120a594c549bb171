"""``estimate_context_tokens`` (``pi_sdk/_wire/estimate.py``): which reply's usage anchors the
estimate (the last one that reported usage and did not fail, at ``usage_from`` or later)."""

from __future__ import annotations

import math

import pytest
from _support.messages import reply

from pi_sdk import (
    AssistantMessage,
    Context,
    Model,
    SystemMessage,
    TextContent,
    Tool,
    ToolCall,
    Usage,
    UserMessage,
)
from pi_sdk._wire.estimate import block_chars, estimate_context_tokens, estimate_tokens

MODEL = Model(id="m", api="a", provider="p")


def _reply(total: int, stop: str = "stop") -> AssistantMessage:
    usage = Usage(total_tokens=total)
    return reply(MODEL, TextContent(text="ok"), stop_reason=stop, usage=usage)


ASK = UserMessage(content="x" * 40)
# 0: ask, 1: reply 100, 2: ask, 3: reply 300, 4: failed reply 900, 5: aborted reply 700, 6: ask
HISTORY = [
    ASK,
    _reply(100),
    ASK,
    _reply(300),
    _reply(900, "error"),
    _reply(700, "aborted"),
    ASK,
]


@pytest.mark.parametrize(
    ("usage_from", "anchor"),
    [
        (0, 3),  # the last reply that reported usage and did not fail
        (-5, 3),  # a negative start is the first message
        (3, 3),  # a reply at usage_from itself counts
        (4, None),  # later replies failed: no anchor
        (1, 3),
    ],
)
def test_the_anchor_is_the_last_good_reply_from_usage_from_on(
    usage_from: int, anchor: int | None
) -> None:
    estimate = estimate_context_tokens(HISTORY, usage_from=usage_from)
    assert estimate.last_usage_index == anchor
    if anchor is None:
        assert estimate.usage_tokens == 0
        assert estimate.tokens == sum(estimate_tokens(m) for m in HISTORY)
    else:
        after = sum(estimate_tokens(m) for m in HISTORY[anchor + 1 :])
        assert (estimate.usage_tokens, estimate.trailing_tokens) == (300, after)
        assert estimate.tokens == 300 + after


def test_only_the_first_reply_anchors_when_usage_from_is_its_index() -> None:
    history = [ASK, _reply(100), ASK]
    assert estimate_context_tokens(history, usage_from=1).last_usage_index == 1
    assert estimate_context_tokens(history, usage_from=2).last_usage_index is None


def test_a_reply_at_either_end_of_the_history_anchors() -> None:
    last = [ASK, _reply(100), ASK, _reply(250)]
    estimate = estimate_context_tokens(last)
    assert (estimate.last_usage_index, estimate.tokens, estimate.trailing_tokens) == (3, 250, 0)
    first = [_reply(80), ASK]  # a history that starts with a reply (after a compaction)
    assert estimate_context_tokens(first).last_usage_index == 0
    assert estimate_context_tokens(first).tokens == 80 + estimate_tokens(ASK)


def test_non_ascii_arguments_and_schemas_count_characters_not_json_escapes() -> None:
    """Four characters per token over the text the model reads: ``東`` is one, not ``\\u6771``."""
    call = ToolCall(id="c", name="f", arguments={"q": "東京東京"})
    assert block_chars([call]) == (len("f") + len('{"q": "東京東京"}'), 0)  # 14, not 34
    tool = Tool(name="t", description="ü", parameters={"description": "日本"})
    chars = len("t") + len("ü") + len('{"description": "日本"}')  # 23, not 33
    assert estimate_tokens(SystemMessage(tools_added=[tool])) == math.ceil(chars / 4) + 4
    context = Context(messages=[], tools=[tool])
    assert estimate_context_tokens(context).tokens == math.ceil(chars / 4)
