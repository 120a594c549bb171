"""One table of per-server reasoning-replay requirements drives the conversion (issue 12, defect 5).

DeepSeek's thinking mode rejects an assistant message without ``reasoning_content`` ("Missing
reasoning_content field in the assistant message at message index 2"); pi-ai 0.73 detects it
from the provider or the base URL (``api.deepseek.com``). Kimi's thinking models want it on
tool-call turns. Checked on request bodies built from a history another model wrote.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.models import model_maker
from pi_sdk_openai.completions import build_payload, resolve_compat
from pi_sdk_openai.completions._reasoning_replay import REASONING_REPLAY, reasoning_replay

import pi_sdk
from pi_sdk import Context, Model, TextContent, ThinkingContent, ToolCall, UserMessage

CLAUDE = Model(id="claude-sonnet-4-5", api="anthropic-messages", provider="anthropic")


target = model_maker(
    {
        "id": "deepseek-v4-pro",
        "api": "openai-completions",
        "provider": "my-gateway",
        "base_url": "https://api.deepseek.com",
        "reasoning": True,
    }
)


def claude_history() -> Context:
    """Claude thought, called a tool, got its result, answered; then a new question."""
    loop = pi_sdk.AssistantMessage(
        api=CLAUDE.api,
        provider=CLAUDE.provider,
        model=CLAUDE.id,
        content=[
            ThinkingContent(thinking="I need the weather.", thinking_signature="EqQBsig"),
            ToolCall(id="toolu_01", name="get_weather", arguments={"city": "Paris"}),
        ],
        stop_reason="toolUse",
    )
    answer = pi_sdk.AssistantMessage(
        api=CLAUDE.api,
        provider=CLAUDE.provider,
        model=CLAUDE.id,
        content=[TextContent(text="It is sunny.")],
        stop_reason="stop",
    )
    done = pi_sdk.ToolResultMessage(
        tool_call_id="toolu_01", tool_name="get_weather", content=[TextContent(text="sunny")]
    )
    return Context(
        messages=[UserMessage(content="weather?"), loop, done, answer, UserMessage(content="and?")],
        tools=[pi_sdk.Tool(name="get_weather")],
    )


def assistant_messages(m: Model, policy: pi_sdk.ForeignReasoning = "text") -> list[dict[str, Any]]:
    """The assistant messages sent; another model's thinking kept per ``policy`` (0.73: text)."""
    body = build_payload(m, claude_history(), pi_sdk.StreamOptions(foreign_reasoning=policy))
    return [entry for entry in body["messages"] if entry["role"] == "assistant"]


def test_by_default_another_models_thinking_is_dropped_as_pi_ai_16_does():
    loop, answer = assistant_messages(target(), "drop")
    assert loop["reasoning_content"] == "" and loop["content"] is None  # the field, empty
    assert answer["reasoning_content"] == ""
    other = target(base_url="https://example.test/v1", provider="my-gateway")
    loop, _ = assistant_messages(other, "drop")
    assert loop["content"] is None and "reasoning_content" not in loop


def test_deepseek_is_found_by_its_base_url_as_pi_ai_073_does():
    compat = resolve_compat(target())
    assert compat.requires_reasoning_content_on_assistant_messages
    assert compat.thinking_format == "deepseek"
    assert reasoning_replay(target(base_url="https://example.test/v1", provider="deepseek"))
    assert reasoning_replay(target(base_url="https://example.test/v1")) is None


def test_another_models_thinking_reaches_deepseek_as_reasoning_content():
    loop, answer = assistant_messages(target())
    assert loop["reasoning_content"] == "I need the weather."
    assert loop["content"] is None  # the thinking did not become text
    assert loop["tool_calls"][0]["function"]["name"] == "get_weather"
    # DeepSeek wants the field on every assistant message, "" where there was no reasoning.
    assert answer == {"role": "assistant", "content": "It is sunny.", "reasoning_content": ""}


def test_kimi_wants_it_on_tool_call_turns_only():
    kimi = target(
        id="kimi-k2-thinking", provider="moonshotai", base_url="https://api.moonshot.ai/v1"
    )
    compat = resolve_compat(kimi)
    assert compat.requires_reasoning_content
    assert not compat.requires_reasoning_content_on_assistant_messages
    loop, answer = assistant_messages(kimi)
    assert loop["reasoning_content"] == "I need the weather."
    assert "reasoning_content" not in answer


def test_a_model_that_does_not_think_gets_plain_text():
    loop, answer = assistant_messages(target(id="deepseek-chat", reasoning=False))
    assert loop["content"] == "I need the weather."
    assert "reasoning_content" not in loop and "reasoning_content" not in answer


def test_other_servers_get_another_models_thinking_as_text():
    loop, _ = assistant_messages(target(base_url="https://api.example.test/v1"))
    assert loop["content"] == "I need the weather." and "reasoning_content" not in loop


@pytest.mark.parametrize(
    ("compat", "on_answer"),
    [
        ({"requiresReasoningContentOnAssistantMessages": True}, True),  # pi-ai 0.73's key
        ({"requiresReasoningContent": True}, False),
    ],
)
def test_model_compat_sets_the_requirement_by_hand(compat: dict[str, bool], on_answer: bool):
    m = target(base_url="https://llm.internal.test/v1", compat=compat)
    loop, answer = assistant_messages(m)
    assert loop["reasoning_content"] == "I need the weather."
    assert ("reasoning_content" in answer) is on_answer


def test_model_compat_turns_the_table_off():
    m = target(compat={"requiresReasoningContentOnAssistantMessages": False})
    loop, answer = assistant_messages(m)
    assert loop["content"] == "I need the weather." and "reasoning_content" not in answer


def test_every_table_entry_names_its_source():
    assert {rule.name for rule in REASONING_REPLAY} == {"DeepSeek", "Moonshot Kimi"}
    assert all(rule.source and (rule.providers or rule.hosts) for rule in REASONING_REPLAY)
