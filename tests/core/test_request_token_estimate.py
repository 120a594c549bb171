"""Each term of the request-size estimate (pi-ai 1.6 ``estimateContextTokens``).

With a successful reply that reported usage, the estimate is that reply's usage (its total,
else input + output + cache) *plus* the messages after it, estimated at 3.5 characters per
token; a reply that failed, was aborted or reported no usage is no anchor. Without one, the
system prompt, the tools and every message are estimated.
"""

from __future__ import annotations

import math

from pi_sdk import AssistantMessage, Context, TextContent, Usage, UserMessage
from pi_sdk._wire.output_cap import CHARS_PER_TOKEN, estimate_request_tokens


def tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def reply(usage: Usage, stop_reason: str = "stop", timestamp: int = 2) -> AssistantMessage:
    return AssistantMessage(
        api="openai-completions",
        provider="openai",
        model="m",
        content=[TextContent(text="Earlier answer.")],
        usage=usage,
        stop_reason=stop_reason,  # type: ignore[arg-type]
        timestamp=timestamp,
    )


ASK = "What is the weather like in Lisbon today?"  # 41 characters: 12 tokens
LATER = "And tomorrow?"


def test_the_anchor_reply_plus_every_message_after_it():
    messages = [UserMessage(content=ASK, timestamp=1), reply(Usage(total_tokens=1000))]
    messages += [UserMessage(content=LATER, timestamp=3), UserMessage(content=ASK, timestamp=4)]
    assert estimate_request_tokens(Context(messages=messages)) == 1000 + tokens(LATER) + tokens(ASK)


def test_usage_without_a_total_is_the_sum_of_its_parts():
    usage = Usage(input=700, output=200, cache_read=50, cache_write=25)
    messages = [reply(usage), UserMessage(content=LATER, timestamp=3)]
    assert estimate_request_tokens(Context(messages=messages)) == 975 + tokens(LATER)


def test_failed_aborted_and_usage_less_replies_are_no_anchor():
    for bad in (
        reply(Usage(total_tokens=1000), stop_reason="error"),
        reply(Usage(total_tokens=1000), stop_reason="aborted"),
        reply(Usage()),
    ):
        messages = [UserMessage(content=ASK, timestamp=1), bad, UserMessage(content=LATER)]
        assert estimate_request_tokens(Context(messages=messages)) == (
            tokens(ASK) + tokens("Earlier answer.") + tokens(LATER)
        )


def test_without_an_anchor_the_prompt_and_messages_are_estimated():
    context = Context(system_prompt="Be brief.", messages=[UserMessage(content=ASK)])
    assert estimate_request_tokens(context) == tokens("Be brief.") + tokens(ASK)
