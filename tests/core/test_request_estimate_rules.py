"""The request-size estimate behind the output cap (``pi_sdk/_wire/output_cap.py``, pi-ai 1.6
``estimateContextTokens``) rule by rule: JavaScript string lengths, and which reply's usage
anchors the estimate (timestamps in order, the system prompt's own timestamp 0)."""

from __future__ import annotations

import math

import pytest
from _support.messages import reply

from pi_sdk import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    ServerToolCall,
    TextContent,
    Usage,
    UserMessage,
)
from pi_sdk._wire.output_cap import CHARS_PER_TOKEN, estimate_request_tokens, js_length

MODEL = Model(id="m", api="a", provider="p")


@pytest.mark.parametrize(
    ("text", "length"),
    [
        ("", 0),
        ("abc", 3),
        ("é", 1),
        ("\uffff", 1),  # the last BMP character: one UTF-16 unit
        ("\U00010000", 2),  # the first beyond it: a surrogate pair
        ("a😀b", 4),
    ],
)
def test_js_length_counts_utf16_code_units(text: str, length: int) -> None:
    assert js_length(text) == length


def _tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _reply(timestamp: int, total: int = 1000) -> AssistantMessage:
    usage = Usage(total_tokens=total)
    answer = TextContent(text="Earlier answer.")
    return reply(MODEL, answer, stop_reason="stop", usage=usage, timestamp=timestamp)


ASK = "What is the weather like?"
ESTIMATED = _tokens(ASK) + _tokens("Earlier answer.")


@pytest.mark.parametrize(
    ("user_ts", "reply_ts", "system", "expected"),
    [
        (5, 6, None, 1000),  # a reply after the question: its usage stands for both
        (5, 5, None, 1000),  # the same millisecond: still in order
        (5, 4, None, ESTIMATED),  # older than a message before it: no anchor
        (None, -1, None, 1000),  # no system prompt: nothing before the reply
        (None, -1, "Be brief.", _tokens("Be brief.") + _tokens("Earlier answer.")),
        (None, 0, "Be brief.", 1000),  # the system prompt's own timestamp is 0
    ],
)
def test_a_reply_anchors_only_when_no_earlier_message_is_newer(
    user_ts: int | None, reply_ts: int, system: str | None, expected: int
) -> None:
    messages: list[object] = (
        [] if user_ts is None else [UserMessage(content=ASK, timestamp=user_ts)]
    )
    messages.append(_reply(reply_ts))
    context = Context(system_prompt=system, messages=messages)  # type: ignore[arg-type]
    assert estimate_request_tokens(context) == expected


def test_a_newer_message_before_an_older_reply_keeps_every_later_reply_out() -> None:
    messages = [
        UserMessage(content=ASK, timestamp=10),
        _reply(3),  # older than the question
        _reply(7),  # still older than the question: the latest time so far is 10
    ]
    expected = _tokens(ASK) + 2 * _tokens("Earlier answer.")
    assert estimate_request_tokens(Context(messages=messages)) == expected  # type: ignore[arg-type]


BIG = Context(messages=[UserMessage(content="x" * 350_000)])  # 100,000 tokens: margin 15,000


@pytest.mark.parametrize(
    ("window", "wanted", "cap"),
    [
        (200_000, 64_000, 64_000),  # room enough: the cap asked for
        (200_000, 100_000, 85_000),  # window - input - 15% margin
        (140_000, 100_000, 32_768),  # under 32,768 left: the fixed margin, capped at 32,768
        (120_000, 100_000, 15_904),  # window - input - 4,096
        (100_000, 100_000, 1),  # no room at all: at least 1
        (0, 500, 500),  # unknown window: as asked
        (0, 0, 1),
        (-1, 500, 500),
    ],
)
def test_the_cap_fits_the_window_beside_the_input(window: int, wanted: int, cap: int) -> None:
    from pi_sdk._wire.output_cap import clamp_max_tokens_to_context

    assert estimate_request_tokens(BIG) == 100_000
    assert clamp_max_tokens_to_context(window, BIG, wanted) == cap


def test_a_reply_counts_its_text_thinking_and_calls_only() -> None:
    """Server-tool blocks and images in a reply count nothing (pi-ai 1.6 has none in a reply)."""
    seven = TextContent(text="abcdefg")  # 7 characters: exactly 2 tokens, one more is 3
    plain = reply(MODEL, seven, stop_reason="stop", timestamp=1)
    extra = reply(
        MODEL,
        seven,
        ServerToolCall(id="s1", name="web_search", arguments={"q": "x"}),
        ImageContent(data="AAAA", mime_type="image/png"),
        stop_reason="stop",
        timestamp=1,
    )
    assert estimate_request_tokens(Context(messages=[plain])) == 2
    assert estimate_request_tokens(Context(messages=[extra])) == 2


def test_a_reply_that_reported_a_single_token_anchors() -> None:
    answer = TextContent(text="a longer answer")  # 5 tokens were it estimated
    one = reply(MODEL, answer, stop_reason="stop", usage=Usage(total_tokens=1))
    after = UserMessage(content="abcdefg", timestamp=one.timestamp + 1)
    assert estimate_request_tokens(Context(messages=[one, after])) == 1 + 2


@pytest.mark.parametrize(("images", "tokens"), [(1, 1372), (7, 9600)])
def test_an_image_in_a_prompt_counts_as_4800_characters(images: int, tokens: int) -> None:
    """Seven images are 33,600 characters, exactly 9,600 tokens: one character more or less per
    image would make 9,602 or 9,598."""
    image = ImageContent(data="AAAA", mime_type="image/png")
    prompt = UserMessage(content=[image] * images, timestamp=1)
    assert estimate_request_tokens(Context(messages=[prompt])) == tokens


@pytest.mark.parametrize(
    ("model_max_tokens", "cap", "budget"),
    [
        (6_025, 6_025, 5_000),
        (6_024, 6_024, 5_000),  # exactly 1,024 left for the answer
        (6_023, 6_023, 4_999),  # the budget gives way, not the answer
        (1_024, 1_024, 0),
        (1_000, 1_000, 0),  # no room for the answer: no budget, never a negative one
    ],
)
def test_a_thinking_budget_leaves_1024_tokens_of_the_cap_for_the_answer(
    model_max_tokens: int, cap: int, budget: int
) -> None:
    from pi_sdk._wire.output_cap import fit_thinking_budget

    fitted = fit_thinking_budget(0, Context(), 2_000, model_max_tokens, "low", {"low": 5_000})
    assert fitted == (cap, budget)
