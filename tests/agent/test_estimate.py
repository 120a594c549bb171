"""The context token estimate: its counting rules, the usage anchor, and its documented bound
measured on the conformance recordings (reported input tokens vs the estimate of the request)."""

from __future__ import annotations

import pytest
from _support.conformance import ConformanceDirMissing, conformance_dir, load_cases
from _support.recorded_context import context_of_request

from pi_sdk import (
    AssistantMessage,
    Context,
    ImageContent,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_sdk._testing.replay import load_cassette
from pi_sdk.agent import ContextEstimate, estimate_context_tokens, estimate_tokens, usage_tokens


def _assistant(*blocks, stop_reason="stop", **usage) -> AssistantMessage:
    return AssistantMessage(
        api="x", provider="x", model="m", content=list(blocks), stop_reason=stop_reason,
        usage=Usage(**usage),
    )  # fmt: skip


def test_four_characters_per_token_plus_message_overhead():
    assert estimate_tokens(UserMessage(content="x" * 400)) == 100 + 4
    assert estimate_tokens(UserMessage(content="x" * 401)) == 101 + 4
    reply = _assistant(
        TextContent(text="a" * 40),
        ThinkingContent(thinking="b" * 40, thinking_signature="s" * 1000),
        ToolCall(id="call_1", name="read", arguments={"path": "/x"}),
    )
    # 40 + 40 + len("read") + len('{"path": "/x"}') = 98 chars; the signature is not counted
    assert estimate_tokens(reply) == 25 + 4
    result = ToolResultMessage(
        tool_call_id="call_1",
        tool_name="read",
        content=[TextContent(text="y" * 80), ImageContent(data="AAAA", mime_type="image/png")],
    )
    assert estimate_tokens(result) == 20 + 1200 + 4


def test_system_prompt_and_tools_count_without_usage():
    tool = Tool(name="read", description="d" * 20, parameters={"type": "object"})
    messages = [UserMessage(content="x" * 40)]
    bare = estimate_context_tokens(messages)
    full = estimate_context_tokens(
        Context(system_prompt="s" * 400, messages=messages, tools=[tool])
    )
    assert bare == ContextEstimate(
        tokens=14, usage_tokens=0, trailing_tokens=14, last_usage_index=None
    )
    assert full.tokens == 14 + 100 + 11  # 4 + 20 + len('{"type": "object"}') = 42 chars


def test_the_last_reported_usage_anchors_the_estimate():
    messages = [
        UserMessage(content="x" * 4000),
        _assistant(TextContent(text="ok"), input=1500, output=20),
        UserMessage(content="y" * 40),
        _assistant(stop_reason="error"),  # errored replies carry no valid usage
    ]
    estimate = estimate_context_tokens(Context(system_prompt="s" * 4000, messages=messages))
    assert estimate.last_usage_index == 1
    assert estimate.usage_tokens == 1520
    assert estimate.trailing_tokens == estimate_tokens(messages[2]) + estimate_tokens(messages[3])
    assert estimate.tokens == 1520 + estimate.trailing_tokens
    # usage_from: replies before it were sent in another (longer) request
    fresh = estimate_context_tokens(messages, usage_from=2)
    assert fresh.last_usage_index is None
    assert fresh.tokens == sum(estimate_tokens(m) for m in messages)


def test_a_reply_without_reported_usage_is_not_an_anchor():
    messages = [UserMessage(content="x" * 400), _assistant(TextContent(text="ok"))]
    assert estimate_context_tokens(messages).last_usage_index is None
    assert usage_tokens(Usage(input=10, output=5, cache_read=3, cache_write=2)) == 20
    assert usage_tokens(Usage(input=10, output=5, total_tokens=99)) == 99


# --- the documented bound, on real requests ---------------------------------------------------

try:
    ROOT = conformance_dir()
except ConformanceDirMissing:
    ROOT = None


def _measured() -> list[tuple[str, int, int]]:
    rows: list[tuple[str, int, int]] = []
    for case in load_cases(ROOT) if ROOT is not None else []:
        usage = case.expect.get("usage")
        if case.status != 200 or not usage:
            continue
        reported = usage["input"] + usage.get("cache_read", 0) + usage.get("cache_write", 0)
        body = load_cassette(case.cassette)[case.index].body
        if not reported or not isinstance(body, dict) or "cachedContent" in body:
            continue  # a Gemini cachedContent request does not carry the cached text
        rows.append((case.id, reported, estimate_context_tokens(context_of_request(body)).tokens))
    return rows


def test_the_estimate_bound_holds_on_every_recorded_request():
    rows = _measured()
    if ROOT is None:
        pytest.skip("conformance folder absent (set PI_SDK_CONFORMANCE_DIR to require it)")
    assert len(rows) >= 90
    outside = [r for r in rows if not 0.45 * r[2] <= r[1] <= 1.5 * r[2] + 650]
    assert not outside, outside
    large = [r[1] / r[2] for r in rows if r[2] >= 500]
    assert large and 0.8 <= min(large) and max(large) <= 1.9
