"""Model fallback across vendors, over loopback servers speaking each vendor's wire (issue 28.2).

Anthropic answers 529 and OpenAI answers instead (history transformed: thinking, signatures,
tool-call ids; usage per model); a stream cut after 200 text deltas continues on another vendor
when the policy says so, and ends when it does not; a context overflow moves to a model with a
larger window only; an auth error never moves on. Bad policies are refused at construction.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.loopback import LoopbackServer, json_step, model_at, sse_step, text_reply
from _support.wire import Text, Thinking, Tokens, wire_for

import pi_sdk
from pi_sdk._models.fallback import FallbackEntry, FallbackPolicy

ANTHROPIC = "anthropic-messages"
CHAT = "openai-completions"
LONG_ID = "toolu_" + "A1b2C3d4E5" * 5  # 56 characters: over Chat Completions' 40
SIGNATURE = "EqQBCkYIARgCIkD-anthropic-signature"


def _error(api: str, status: int, message: str) -> Any:
    body, _ = (
        wire_for(api).http_error(status, message)
        if status in (400, 429, 500, 503)
        else (
            {"type": "error", "error": {"type": "overloaded_error", "message": message}},
            "",
        )
    )
    return json_step(status, body, {"x-should-retry": "false"})


def _history() -> list[pi_sdk.Message]:
    """A turn Claude answered with signed thinking and a tool call, and the call's result."""
    claude = pi_sdk.AssistantMessage(
        api=ANTHROPIC,
        provider="anthropic",
        model="claude-sonnet-4-5",
        content=[
            pi_sdk.ThinkingContent(
                thinking="The user wants the weather.", thinking_signature=SIGNATURE
            ),
            pi_sdk.ToolCall(id=LONG_ID, name="weather", arguments={"city": "Paris"}),
        ],
        stop_reason="toolUse",
    )
    result = pi_sdk.ToolResultMessage(
        tool_call_id=LONG_ID,
        tool_name="weather",
        content=[pi_sdk.TextContent(text="18 C, cloudy")],
    )
    return [pi_sdk.UserMessage(content="Weather in Paris?"), claude, result]


def _openai_entry(base: str, **changes: Any) -> FallbackEntry:
    model = model_at(CHAT, base)
    if changes:
        model = model.model_copy(update=changes)
    return FallbackEntry(model, {"api_key": "openai-key"})


async def _events(
    model: pi_sdk.Model, context: pi_sdk.Context, policy: FallbackPolicy
) -> tuple[list[Any], pi_sdk.AssistantMessage, Any]:
    # Foreign thinking carried as text, so the tests can see it cross vendors (1.6 drops it).
    options = pi_sdk.StreamOptions(
        api_key="anthropic-key", max_retries=0, fallback=policy, foreign_reasoning="text"
    )
    stream = pi_sdk.stream(model, context, options)
    events = [event async for event in stream]
    return events, await stream.result(), stream


def _body(server: LoopbackServer, number: int = 0) -> dict[str, Any]:
    return json.loads(server.requests[number][2])


async def test_anthropic_529_moves_to_openai_with_the_history_transformed() -> None:
    overloaded = _error(ANTHROPIC, 529, "Overloaded")
    async with (
        LoopbackServer([overloaded]) as claude,
        LoopbackServer([text_reply(CHAT, "Sunny later.")]) as openai,
    ):
        policy = FallbackPolicy([_openai_entry(openai.url)])
        context = pi_sdk.Context(messages=_history())
        events, message, stream = await _events(model_at(ANTHROPIC, claude.url), context, policy)

    # transparent: one start, no error event, OpenAI's text
    kinds = [event.type for event in events]
    assert kinds.count("start") == 1 and kinds[-1] == "done" and "error" not in kinds
    assert message.text == "Sunny later."
    assert (message.api, message.provider, message.model) == (CHAT, "openai", "gpt-4o-mini")
    # the history went to OpenAI transformed: no Anthropic signature, thinking as text,
    # the 56-character id rewritten the same way on the call and on its result
    sent = _body(openai)
    raw = json.dumps(sent)
    assert SIGNATURE not in raw and LONG_ID not in raw
    assistant = next(m for m in sent["messages"] if m["role"] == "assistant")
    tool = next(m for m in sent["messages"] if m["role"] == "tool")
    call_id = assistant["tool_calls"][0]["id"]
    assert call_id == tool["tool_call_id"] and 0 < len(call_id) <= 40
    assert "The user wants the weather." in json.dumps(assistant)
    # every attempt visible, usage per model
    assert [(a.provider, a.outcome, a.kind) for a in stream.attempts] == [
        ("anthropic", "failed", "overloaded"),
        ("openai", "answered", None),
    ]
    (diagnostic,) = [d for d in message.diagnostics or [] if d.type == "fallback"]
    assert diagnostic.type == "fallback"
    assert diagnostic.error == {"name": "overloaded", "message": stream.attempts[0].error}
    assert "529" in (stream.attempts[0].error or "")
    assert diagnostic.details is not None and diagnostic.details["provider"] == "anthropic"
    by_model = stream.usage_by_model()
    assert by_model["openai/gpt-4o-mini"].output == Tokens().output
    assert by_model["openai/gpt-4o-mini"].cost.total > 0
    assert by_model["anthropic/claude-sonnet-4-5"].total_tokens == 0
    assert message.usage == by_model["openai/gpt-4o-mini"]


def _cut_after(pieces: int) -> Any:
    """An Anthropic reply that streams ``pieces`` text deltas, then the server closes."""
    body, _ = wire_for(ANTHROPIC).events([Text(tuple(f"w{i} " for i in range(pieces)))], Tokens())
    return sse_step(body[: 2 + pieces], end="close")  # message_start, block start, the deltas


async def test_a_stream_cut_after_200_deltas_continues_on_another_vendor() -> None:
    async with (
        LoopbackServer([_cut_after(200)]) as claude,
        LoopbackServer([text_reply(CHAT, "and the rest.")]) as openai,
    ):
        policy = FallbackPolicy([_openai_entry(openai.url)], after_content="continue")
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="Count.")])
        events, message, stream = await _events(model_at(ANTHROPIC, claude.url), context, policy)

    partial_text = "".join(f"w{i} " for i in range(200))
    deltas = [e for e in events if e.type == "text_delta"]
    assert [e.content_index for e in deltas[:200]] == [0] * 200
    assert {e.content_index for e in deltas[200:]} == {1}
    ends = [e for e in events if e.type == "text_end"]
    assert [(e.content_index, e.content) for e in ends] == [(0, partial_text), (1, "and the rest.")]
    assert [e.type for e in events].count("start") == 1 and events[-1].type == "done"
    assert [block.text for block in message.content] == [partial_text, "and the rest."]
    assert message.provider == "openai" and message.stop_reason == "stop"
    # OpenAI was sent the partial reply and asked to continue it
    sent = _body(openai)["messages"]
    assert sent[-2] == {"role": "assistant", "content": partial_text} or (
        sent[-2]["role"] == "assistant" and partial_text in json.dumps(sent[-2])
    )
    assert sent[-1]["role"] == "user" and "cut off" in json.dumps(sent[-1])
    # the partial as Anthropic sent it is kept in the diagnostic
    (diagnostic,) = [d for d in message.diagnostics or [] if d.type == "fallback"]
    assert diagnostic.error is not None and diagnostic.error["name"] == "connection"
    assert diagnostic.details is not None
    partial = pi_sdk.AssistantMessage.model_validate(diagnostic.details["partial"])
    assert partial.provider == "anthropic" and partial.text == partial_text
    assert stream.attempts[0].content_streamed and stream.attempts[0].moved_on


async def test_a_cut_stream_ends_with_its_error_when_the_policy_says_so() -> None:
    async with (
        LoopbackServer([_cut_after(200)]) as claude,
        LoopbackServer([text_reply(CHAT)]) as openai,
    ):
        policy = FallbackPolicy([_openai_entry(openai.url)])  # after_content="error"
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="Count.")])
        events, message, stream = await _events(model_at(ANTHROPIC, claude.url), context, policy)
        assert openai.requests == []
    assert events[-1].type == "error" and message.stop_reason == "error"
    assert message.provider == "anthropic" and message.text.startswith("w0 w1 ")
    assert [(a.kind, a.moved_on) for a in stream.attempts] == [("connection", False)]


async def test_a_context_overflow_moves_to_a_larger_window_only() -> None:
    too_long = "prompt is too long: 213462 tokens > 200000 maximum"
    async with (
        LoopbackServer([_error(ANTHROPIC, 400, too_long)]) as claude,
        LoopbackServer([text_reply(CHAT, "Fits.")]) as openai,
    ):
        small = _openai_entry(openai.url, id="small-window", context_window=128_000)
        large = _openai_entry(openai.url, id="large-window", context_window=1_000_000)
        policy = FallbackPolicy([small, large])
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="A long story.")])
        _, message, stream = await _events(model_at(ANTHROPIC, claude.url), context, policy)
        assert [_body(openai, i)["model"] for i in range(len(openai.requests))] == ["large-window"]
    assert message.text == "Fits." and message.model == "large-window"
    assert stream.attempts[0].kind == "overflow"


async def test_an_overflow_with_no_larger_window_left_ends_the_call() -> None:
    too_long = "prompt is too long: 213462 tokens > 200000 maximum"
    async with (
        LoopbackServer([_error(ANTHROPIC, 400, too_long)]) as claude,
        LoopbackServer([text_reply(CHAT)]) as openai,
    ):
        policy = FallbackPolicy([_openai_entry(openai.url, context_window=128_000)])
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="A long story.")])
        _, message, _ = await _events(model_at(ANTHROPIC, claude.url), context, policy)
        assert openai.requests == []
    assert message.stop_reason == "error" and "prompt is too long" in (message.error_message or "")


@pytest.mark.parametrize("status", [401, 400])
async def test_an_auth_error_or_a_bad_request_does_not_move_on(status: int) -> None:
    kind, text = ("authentication_error", "invalid x-api-key")
    if status == 400:
        kind, text = ("invalid_request_error", "tools.0: bad tool")
    body = {"type": "error", "error": {"type": kind, "message": text}}
    async with (
        LoopbackServer([json_step(status, body)]) as claude,
        LoopbackServer([text_reply(CHAT)]) as openai,
    ):
        policy = FallbackPolicy([_openai_entry(openai.url)])
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
        events, message, stream = await _events(model_at(ANTHROPIC, claude.url), context, policy)
        assert openai.requests == []
    assert events[-1].type == "error" and message.provider == "anthropic"
    expected = "auth" if status == 401 else "bad_request"
    assert [(a.kind, a.moved_on) for a in stream.attempts] == [(expected, False)]
    (diagnostic,) = [d for d in message.diagnostics or [] if d.type == "fallback"]
    assert diagnostic.error is not None and diagnostic.error["name"] == expected


async def test_a_429_moves_on_after_the_calls_own_retries() -> None:
    limited = _error(ANTHROPIC, 429, "Number of requests exceeded")
    async with LoopbackServer([limited]) as claude, LoopbackServer([text_reply(CHAT)]) as openai:
        policy = FallbackPolicy([(model_at(CHAT, openai.url), {"api_key": "openai-key"})])
        options = pi_sdk.StreamOptions(
            api_key="anthropic-key", max_retries=1, max_retry_delay_ms=1, fallback=policy
        )
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
        message = await pi_sdk.complete(model_at(ANTHROPIC, claude.url), context, options)
        assert len(claude.requests) == 1  # x-should-retry: false
    assert message.provider == "openai" and message.stop_reason == "stop"


async def test_the_agent_falls_back_and_sticky_keeps_the_model_that_answered() -> None:
    overloaded = _error(ANTHROPIC, 529, "Overloaded")
    async with (
        LoopbackServer([overloaded]) as claude,
        LoopbackServer([text_reply(CHAT, "From OpenAI.")]) as openai,
    ):
        seen: list[str] = []
        policy = FallbackPolicy(
            [_openai_entry(openai.url)],
            sticky=True,
            on_attempt=lambda a: seen.append(f"{a.provider}/{a.model}: {a.kind}"),
        )
        agent = pi_sdk.Agent(
            model=model_at(ANTHROPIC, claude.url),
            stream_options=pi_sdk.StreamOptions(
                api_key="anthropic-key", max_retries=0, fallback=policy
            ),
        )
        await agent.prompt("first")
        await agent.prompt("second")
        assert len(claude.requests) == 1 and len(openai.requests) == 2
    replies = [m for m in agent.state.messages if isinstance(m, pi_sdk.AssistantMessage)]
    assert [(m.provider, m.text) for m in replies] == [("openai", "From OpenAI.")] * 2
    assert seen == ["anthropic/claude-sonnet-4-5: overloaded"]


def test_an_unknown_model_fails_at_construction_naming_it() -> None:
    models = pi_sdk.default_models()
    with pytest.raises(pi_sdk.ModelNotFoundError, match="openai/no-such-model"):
        FallbackPolicy(["openai/no-such-model"], collection=models)
    # without a collection, the first call that uses the policy raises, before sending
    claude = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")
    options = pi_sdk.StreamOptions(fallback=["openai/no-such-model"])
    with pytest.raises(pi_sdk.ModelNotFoundError, match="openai/no-such-model"):
        pi_sdk.stream(claude, pi_sdk.Context(messages=[]), options)
    with pytest.raises(ValueError, match="provider/model-id"):
        FallbackPolicy(["gpt-4o"])


def test_a_policy_that_would_repeat_a_call_is_refused() -> None:
    model = pi_sdk.get_model("openai", "gpt-4o-mini")
    with pytest.raises(ValueError, match="twice"):
        FallbackPolicy([model, "openai/gpt-4o-mini"], collection=pi_sdk.default_models())
    # the call's own model again, with nothing changed
    policy = FallbackPolicy([model])
    with pytest.raises(ValueError, match="twice"):
        pi_sdk.stream(model, pi_sdk.Context(messages=[]), pi_sdk.StreamOptions(fallback=policy))
    # the same model with a change (a lower reasoning level) is a different attempt
    FallbackPolicy([model, FallbackEntry(model, {"max_tokens": 100})])
    with pytest.raises(ValueError, match="never moves on"):
        FallbackPolicy([model], move_on={"auth"})
    with pytest.raises(ValueError, match="unknown option"):
        FallbackPolicy([FallbackEntry(model, {"no_such_option": 1})])
    with pytest.raises(TypeError, match="FallbackPolicy or a list"):
        pi_sdk.stream(model, pi_sdk.Context(messages=[]), pi_sdk.StreamOptions(fallback="x"))


async def test_a_continued_reply_carries_signed_thinking_without_its_signature() -> None:
    thinking = Thinking(("Let me ", "think."), signature=SIGNATURE)
    body, _ = wire_for(ANTHROPIC).events([thinking, Text(("The answer ", "is"))], Tokens())
    cut = sse_step(body[:-2], end="close")  # before the text block's end and message_delta
    async with (
        LoopbackServer([cut]) as claude,
        LoopbackServer([text_reply(CHAT, " 42.")]) as openai,
    ):
        policy = FallbackPolicy([_openai_entry(openai.url)], after_content="continue")
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="The answer?")])
        events, message, _ = await _events(model_at(ANTHROPIC, claude.url), context, policy)
        sent = json.dumps(_body(openai))
    assert SIGNATURE not in sent and "Let me think." in sent and "The answer is" in sent
    first, second, third = message.content
    assert isinstance(first, pi_sdk.ThinkingContent) and first.thinking == "Let me think."
    assert first.thinking_signature is None  # another model minted it
    assert isinstance(second, pi_sdk.TextContent) and second.text == "The answer is"
    assert isinstance(third, pi_sdk.TextContent) and third.text == " 42."
    assert [e.type for e in events if e.type.endswith("_end")] == [
        "thinking_end",
        "text_end",
        "text_end",
    ]
    (diagnostic,) = [d for d in message.diagnostics or [] if d.type == "fallback"]
    assert diagnostic.details is not None
    partial = pi_sdk.AssistantMessage.model_validate(diagnostic.details["partial"])
    kept = partial.content[0]
    assert isinstance(kept, pi_sdk.ThinkingContent) and kept.thinking_signature == SIGNATURE


async def test_a_consumer_that_leaves_early_closes_the_attempt() -> None:
    async with (
        LoopbackServer([_cut_after(50)]) as claude,
        LoopbackServer([text_reply(CHAT)]) as openai,
    ):
        policy = FallbackPolicy([_openai_entry(openai.url)], after_content="continue")
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="Count.")])
        options = pi_sdk.StreamOptions(
            api_key="anthropic-key", max_retries=0, fallback=policy, foreign_reasoning="text"
        )
        stream = pi_sdk.stream(model_at(ANTHROPIC, claude.url), context, options)
        async for event in stream:
            if event.type == "text_delta":
                break
        await stream.aclose()
        message = await stream.result()
        assert openai.requests == []
    assert message.stop_reason == "aborted" and message.provider == "anthropic"
