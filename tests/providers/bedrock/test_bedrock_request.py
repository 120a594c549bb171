"""The Converse request body built from pi types (pure functions, no I/O)."""

from __future__ import annotations

import pytest
from pi_sdk_bedrock.converse import build_request, convert_messages

import pi_sdk
from pi_sdk import Context, StreamOptions, TextContent, ThinkingContent, UserMessage

CLAUDE = pi_sdk.Model(
    id="us.anthropic.claude-sonnet-4-20250514-v1:0",
    name="Claude Sonnet 4",
    api="bedrock-converse-stream",
    provider="amazon-bedrock",
    base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
    reasoning=True,
    input=["text", "image"],
    max_tokens=64_000,
)
NOVA = CLAUDE.model_copy(update={"id": "us.amazon.nova-micro-v1:0", "name": "Nova Micro"})
KIMI = CLAUDE.model_copy(update={"id": "moonshot.kimi-k2-thinking", "name": "Kimi K2 Thinking"})
TOOL = pi_sdk.Tool(
    name="weather",
    description="Weather in a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)


def _assistant(model: pi_sdk.Model, *content: object, **fields: object) -> pi_sdk.AssistantMessage:
    values: dict[str, object] = {"stop_reason": "toolUse", **fields}
    return pi_sdk.AssistantMessage(
        content=list(content),  # type: ignore[arg-type]
        api=model.api,
        provider=model.provider,
        model=model.id,
        **values,  # type: ignore[arg-type]
    )


def test_system_tools_and_cache_points_for_claude():
    context = Context(system_prompt="Be brief.", messages=[UserMessage(content="hi")], tools=[TOOL])
    body = build_request(CLAUDE, context, StreamOptions(max_tokens=100, temperature=0.2))
    assert body["system"] == [{"text": "Be brief."}, {"cachePoint": {"type": "default"}}]
    assert body["messages"] == [
        {"role": "user", "content": [{"text": "hi"}, {"cachePoint": {"type": "default"}}]}
    ]
    assert body["inferenceConfig"] == {"maxTokens": 100, "temperature": 0.2}
    spec = body["toolConfig"]["tools"][0]["toolSpec"]
    assert spec == {
        "name": "weather",
        "description": "Weather in a city",
        "inputSchema": {"json": TOOL.parameters},
    }
    assert "modelId" not in body and "additionalModelRequestFields" not in body
    long = build_request(CLAUDE, context, StreamOptions(cache_retention="long"))
    assert long["system"][1] == {"cachePoint": {"type": "default", "ttl": "1h"}}
    none = build_request(CLAUDE, context, StreamOptions(cache_retention="none"))
    assert none["system"] == [{"text": "Be brief."}]


def test_nova_gets_no_cache_points_unless_forced():
    context = Context(system_prompt="S", messages=[UserMessage(content="hi")])
    assert build_request(NOVA, context, StreamOptions())["system"] == [{"text": "S"}]
    forced = NOVA.model_copy(update={"compat": {"cache_points": True}})
    assert len(build_request(forced, context, StreamOptions())["system"]) == 2


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", {"auto": {}}),
        ("any", {"any": {}}),
        ({"type": "tool", "name": "weather"}, {"tool": {"name": "weather"}}),
    ],
)
def test_tool_choice(choice: object, wire: dict[str, object]):
    context = Context(messages=[UserMessage(content="hi")], tools=[TOOL])
    body = build_request(NOVA, context, StreamOptions(provider_options={"tool_choice": choice}))
    assert body["toolConfig"]["toolChoice"] == wire
    off = build_request(NOVA, context, StreamOptions(provider_options={"tool_choice": "none"}))
    assert "toolConfig" not in off


def test_claude_thinking_budget_raises_max_tokens():
    context = Context(messages=[UserMessage(content="hi")])
    body = build_request(CLAUDE, context, StreamOptions(reasoning="medium", max_tokens=1000))
    assert body["inferenceConfig"]["maxTokens"] == 1000 + 8192
    # pi-ai 1.6: the budget leaves 1,024 tokens of the cap for the answer
    assert body["additionalModelRequestFields"] == {
        "thinking": {
            "type": "enabled",
            "budget_tokens": 1000 + 8192 - 1024,
            "display": "summarized",
        },
        "anthropic_beta": ["interleaved-thinking-2025-05-14"],
    }
    adaptive = CLAUDE.model_copy(update={"id": "us.anthropic.claude-opus-4-6-v1", "name": ""})
    fields = build_request(adaptive, context, StreamOptions(reasoning="low"))
    assert fields["additionalModelRequestFields"] == {
        "thinking": {"type": "adaptive", "display": "summarized"},
        "output_config": {"effort": "low"},
    }
    assert "additionalModelRequestFields" not in build_request(
        NOVA, context, StreamOptions(reasoning="high")
    )


def test_images_and_tool_results_merged_in_one_user_message():
    png = pi_sdk.ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    call_a = pi_sdk.ToolCall(id="tooluse_a", name="weather", arguments={"city": "Paris"})
    call_b = pi_sdk.ToolCall(id="tooluse_b", name="weather", arguments={"city": "Rome"})
    context = Context(
        messages=[
            UserMessage(content=[TextContent(text="look"), png]),
            _assistant(NOVA, call_a, call_b),
            pi_sdk.ToolResultMessage(
                tool_call_id="tooluse_a", tool_name="weather", content=[TextContent(text="20C")]
            ),
            pi_sdk.ToolResultMessage(
                tool_call_id="tooluse_b",
                tool_name="weather",
                content=[TextContent(text="down")],
                is_error=True,
            ),
        ]
    )
    messages = convert_messages(context, NOVA)
    assert messages[0]["content"][1] == {
        "image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}
    }
    assert messages[1]["content"][0] == {
        "toolUse": {"toolUseId": "tooluse_a", "name": "weather", "input": {"city": "Paris"}}
    }
    results = messages[2]["content"]
    assert [r["toolResult"]["status"] for r in results] == ["success", "error"]
    assert results[0]["toolResult"]["content"] == [{"text": "20C"}]
    bad = Context(
        messages=[UserMessage(content=[pi_sdk.ImageContent(data="x", mime_type="image/bmp")])]
    )
    with pytest.raises(pi_sdk.ConfigurationError, match="image/bmp"):
        convert_messages(bad, NOVA)


def test_reasoning_rules_per_target():
    signed = ThinkingContent(thinking="plan", thinking_signature="sig")
    redacted = ThinkingContent(
        thinking="[Reasoning redacted]", thinking_signature="blob", redacted=True
    )
    claude_turn = _assistant(CLAUDE, signed, redacted, TextContent(text="ok"), stop_reason="stop")
    context = Context(messages=[UserMessage(content="q"), claude_turn, UserMessage(content="more")])
    same = convert_messages(context, CLAUDE, cache_retention="none")[1]["content"]
    assert same == [
        {"reasoningContent": {"reasoningText": {"text": "plan", "signature": "sig"}}},
        {"reasoningContent": {"redactedContent": "blob"}},
        {"text": "ok"},
    ]
    # Another model's thinking: dropped (pi-ai 1.6); as plain text on request (pi-ai 0.73),
    # its redacted reasoning dropped either way.
    assert convert_messages(context, NOVA)[1]["content"] == [{"text": "ok"}]
    foreign = convert_messages(context, NOVA, foreign_reasoning="text")[1]["content"]
    assert foreign == [{"text": "plan"}, {"text": "ok"}]
    # The same non-Claude model gets its reasoning back without a signature field.
    kimi_turn = _assistant(
        KIMI, ThinkingContent(thinking="hmm"), TextContent(text="ok"), stop_reason="stop"
    )
    kimi = Context(messages=[UserMessage(content="q"), kimi_turn, UserMessage(content="more")])
    assert convert_messages(kimi, KIMI)[1]["content"][0] == {
        "reasoningContent": {"reasoningText": {"text": "hmm"}}
    }
    # Unsigned Claude thinking (an aborted stream) goes back as text.
    unsigned = _assistant(
        CLAUDE, ThinkingContent(thinking="half"), TextContent(text="x"), stop_reason="stop"
    )
    plain = Context(messages=[UserMessage(content="q"), unsigned, UserMessage(content="go")])
    assert convert_messages(plain, CLAUDE, cache_retention="none")[1]["content"][0] == {
        "text": "half"
    }


def test_foreign_tool_call_ids_are_made_valid_for_bedrock():
    other = pi_sdk.Model(id="gpt-5", api="openai-responses", provider="openai")
    call = pi_sdk.ToolCall(id="call_1|fc_abc.def", name="weather", arguments={})
    context = Context(
        messages=[
            UserMessage(content="q"),
            _assistant(other, call),
            pi_sdk.ToolResultMessage(
                tool_call_id=call.id, tool_name="weather", content=[TextContent(text="r")]
            ),
        ]
    )
    messages = convert_messages(context, NOVA)
    new_id = messages[1]["content"][0]["toolUse"]["toolUseId"]
    assert new_id != call.id and len(new_id) <= 64
    assert all(c.isalnum() or c in "_-" for c in new_id)
    assert messages[2]["content"][0]["toolResult"]["toolUseId"] == new_id


def test_unknown_provider_option_is_an_error():
    with pytest.raises(
        pi_sdk.ConfigurationError, match="unknown bedrock-converse-stream provider_options"
    ):
        build_request(NOVA, Context(), StreamOptions(provider_options={"regoin": "x"}))


def test_request_metadata():
    options = StreamOptions(provider_options={"request_metadata": {"team": "a", "n": 1}})
    body = build_request(NOVA, Context(messages=[UserMessage(content="q")]), options)
    assert body["requestMetadata"] == {"team": "a", "n": "1"}


def test_roles_alternate_when_the_history_has_two_turns_of_one_role():
    """Converse rejects non-alternating roles ("A conversation must alternate between user and
    assistant roles"): same-role neighbours are sent as one message, in order."""
    call = pi_sdk.ToolCall(id="tooluse_a", name="weather", arguments={"city": "Paris"})
    failed = _assistant(NOVA, TextContent(text="half"), stop_reason="error", error_message="x")
    context = Context(
        messages=[
            UserMessage(content="first"),
            failed,  # skipped by the transform: two user turns meet
            UserMessage(content=[TextContent(text="again")]),
            _assistant(NOVA, call),
            pi_sdk.ToolResultMessage(
                tool_call_id="tooluse_a", tool_name="weather", content=[TextContent(text="20C")]
            ),
            UserMessage(content="and steer: answer in French"),  # queued after the result
            _assistant(NOVA, TextContent(text="Il fait 20C."), stop_reason="stop"),
            _assistant(NOVA, TextContent(text="Bonne journée."), stop_reason="stop"),
            UserMessage(content="merci"),
        ]
    )
    messages = convert_messages(context, NOVA)
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert messages[0]["content"] == [{"text": "first"}, {"text": "again"}]
    assert messages[2]["content"] == [
        {
            "toolResult": {
                "toolUseId": "tooluse_a",
                "content": [{"text": "20C"}],
                "status": "success",
            }
        },
        {"text": "and steer: answer in French"},
    ]
    assert messages[3]["content"] == [{"text": "Il fait 20C."}, {"text": "Bonne journée."}]


def test_user_images_are_converse_image_blocks_and_no_document_is_sent():
    """pi-ai 0.73.1 has no document content (its Bedrock adapter throws on any user block but
    text and image): a Converse ``document`` block is never built; images carry format + bytes."""
    jpeg = pi_sdk.ImageContent(data="/9j/4AAQ", mime_type="image/jpeg")
    webp = pi_sdk.ImageContent(data="UklGRg==", mime_type="image/webp")
    context = Context(messages=[UserMessage(content=[jpeg, TextContent(text="what?"), webp])])
    (message,) = convert_messages(context, CLAUDE, cache_retention="none")
    assert message["content"] == [
        {"image": {"format": "jpeg", "source": {"bytes": "/9j/4AAQ"}}},
        {"text": "what?"},
        {"image": {"format": "webp", "source": {"bytes": "UklGRg=="}}},
    ]
    assert "document" not in str(message)


# --- reasoning levels per model family, max included (pi-ai 1.6) -------------------------------


def _catalog(model_id: str) -> pi_sdk.Model:
    return pi_sdk.get_model("amazon-bedrock", model_id)


@pytest.mark.parametrize(
    ("model_id", "level", "effort"),
    [
        ("us.anthropic.claude-opus-4-7", "max", "max"),  # its level map names max
        ("us.anthropic.claude-opus-4-7", "xhigh", "xhigh"),  # native xhigh
        ("anthropic.claude-sonnet-4-6", "max", "max"),
        ("anthropic.claude-sonnet-4-6", "xhigh", "high"),  # no xhigh on Sonnet 4.6
        ("anthropic.claude-sonnet-4-6", "minimal", "low"),
    ],
)
def test_adaptive_claude_effort_follows_the_level_map(model_id: str, level: str, effort: str):
    body = build_request(_catalog(model_id), Context(), StreamOptions(reasoning=level))  # type: ignore[arg-type]
    assert body["additionalModelRequestFields"]["output_config"] == {"effort": effort}


def test_budget_claude_takes_max_as_high():
    model = _catalog("us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    high = build_request(model, Context(), StreamOptions(reasoning="high"))
    top = build_request(model, Context(), StreamOptions(reasoning="max"))
    assert top["additionalModelRequestFields"] == high["additionalModelRequestFields"]
    assert top["additionalModelRequestFields"]["thinking"]["budget_tokens"] == 16384


def test_thinking_block_binding_on_claude_4_7_and_later_outside_govcloud():
    opus = _catalog("us.anthropic.claude-opus-4-7")
    fields = build_request(opus, Context(), StreamOptions(reasoning="low"))[
        "additionalModelRequestFields"
    ]
    assert fields["thinking"]["block_binding"] == {"prefix_mismatch_behavior": "drop_block"}
    assert fields["anthropic_beta"] == ["thinking-binding-controls-2026-08-01"]
    sonnet = build_request(
        _catalog("anthropic.claude-sonnet-4-6"), Context(), StreamOptions(reasoning="low")
    )
    assert "block_binding" not in sonnet["additionalModelRequestFields"]["thinking"]
    gov = opus.model_copy(update={"id": "us-gov.anthropic.claude-opus-4-7"})
    fields = build_request(gov, Context(), StreamOptions(reasoning="low"))[
        "additionalModelRequestFields"
    ]
    assert "block_binding" not in fields["thinking"] and "anthropic_beta" not in fields


@pytest.mark.parametrize(
    ("model_id", "level", "fields"),
    [
        ("us.openai.gpt-5.6-luna", "max", {"reasoning": {"effort": "max"}}),
        ("us.openai.gpt-5.6-luna", "minimal", {"reasoning": {"effort": "low"}}),
        ("openai.gpt-oss-120b", "max", {"reasoning_effort": "high"}),
        ("openai.gpt-oss-120b", "minimal", {"reasoning_effort": "low"}),
    ],
)
def test_openai_models_on_bedrock_get_their_effort(model_id: str, level: str, fields: object):
    body = build_request(_catalog(model_id), Context(), StreamOptions(reasoning=level))  # type: ignore[arg-type]
    assert body["additionalModelRequestFields"] == fields
