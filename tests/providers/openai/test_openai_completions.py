"""openai-completions: request building (every compat flag), stream normalization, HTTP edge.

Request tests call :func:`build_completions_payload` directly, or capture the final payload
with ``on_payload`` through the real stream function on a fake transport. Stream tests serve
hand-written SSE bodies through an ``AsyncOpenAI`` client on :class:`ChunkedTransport`, in small
chunks, and check every event sequence against pi-spec §2's invariants.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _support import openai_fakes as fakes
from _support.conformance import (
    ChunkedTransport,
    Reply,
    assert_valid_event_sequence,
    collect_aborting,
)
from _support.events import block_types, reply_types
from _support.messages import reply
from _support.models import described, model_maker, recognized
from _support.openai_fakes import BASE, JSON, SSE, client_on
from pi_sdk_openai.completions import Decoder as CompletionsDecoder
from pi_sdk_openai.completions import build_payload as build_completions_payload
from pi_sdk_openai.completions import detect_compat, resolve_compat

import pi_sdk
from pi_sdk import Context, Model, TextContent, ToolCall, UserMessage
from pi_sdk._models.default import get_api_key
from pi_sdk.provider import MessageBuilder

IMAGE = pi_sdk.ImageContent(data="aGVsbG8=", mime_type="image/png")
TOOL = pi_sdk.Tool(
    name="get_weather",
    description="Weather for a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)


model = model_maker(
    {
        "id": "gpt-4o-mini",
        "api": "openai-completions",
        "provider": "openai",
        "base_url": BASE,
        "input": ["text", "image"],
        "cost": {"input": 0.15, "output": 0.6, "cache_read": 0.075},
    }
)


def result(call_id: str, *content: Any, name: str = "get_weather") -> pi_sdk.ToolResultMessage:
    return pi_sdk.ToolResultMessage(tool_call_id=call_id, tool_name=name, content=list(content))


def payload(m: Model, context: Context | None = None, **options: Any) -> dict[str, Any]:
    context = context or Context(messages=[UserMessage(content="hi")])
    return build_completions_payload(m, context, pi_sdk.StreamOptions(**options))


# --- request: basics --------------------------------------------------------------------------


def test_basic_payload_openai():
    body = payload(model(), Context(system_prompt="be brief", messages=[UserMessage(content="hi")]))
    assert body["model"] == "gpt-4o-mini"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["store"] is False
    assert body["max_completion_tokens"] == 16_384
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
    ]
    assert "tools" not in body and "reasoning_effort" not in body


def test_max_tokens_default_is_fitted_into_the_window_and_option_wins():
    big = model(max_tokens=128_000, context_window=128_000)
    # pi-ai 1.6: the window minus the estimated input ("hi": 1 token) minus 4,096
    assert payload(big)["max_completion_tokens"] == 128_000 - 1 - 4096
    assert payload(model(max_tokens=16_000))["max_completion_tokens"] == 16_000
    assert payload(big, max_tokens=77)["max_completion_tokens"] == 77


def test_developer_role_only_for_reasoning_models():
    context = Context(system_prompt="sys", messages=[UserMessage(content="hi")])
    assert payload(model(reasoning=True), context)["messages"][0]["role"] == "developer"
    assert payload(model(reasoning=False), context)["messages"][0]["role"] == "system"


def test_user_images_become_image_url_parts():
    context = Context(messages=[UserMessage(content=[TextContent(text="look"), IMAGE])])
    assert payload(model(), context)["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGVsbG8="}},
            ],
        }
    ]


def test_parallel_tool_calls_and_results():
    m = model()
    calls = [
        ToolCall(id="call_a", name="get_weather", arguments={"city": "Paris"}),
        ToolCall(id="call_b", name="get_weather", arguments={"city": "Oslo"}),
    ]
    context = Context(
        messages=[
            UserMessage(content="weather?"),
            reply(m, TextContent(text="Checking."), *calls),
            result("call_a", TextContent(text="sunny")),
            result("call_b", TextContent(text="rain")),
        ],
        tools=[TOOL],
    )
    body = payload(m, context)
    assert body["messages"][1] == {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            },
            {
                "id": "call_b",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
            },
        ],
    }
    assert body["messages"][2:] == [
        {"role": "tool", "content": "sunny", "tool_call_id": "call_a"},
        {"role": "tool", "content": "rain", "tool_call_id": "call_b"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather for a city",
                "parameters": TOOL.parameters,
            },  # no "strict": pi-ai 1.6 sends it only where compat.supportsStrictMode says so
        }
    ]


def test_tool_result_images_follow_the_run_of_results_in_a_user_message():
    m = model()
    calls = [ToolCall(id="c1", name="shot", arguments={}), ToolCall(id="c2", name="shot")]
    context = Context(
        messages=[
            UserMessage(content="screenshots"),
            reply(m, *calls),
            result("c1", TextContent(text="first"), IMAGE, name="shot"),
            result("c2", IMAGE, name="shot"),
            UserMessage(content="thanks"),
        ]
    )
    messages = payload(m, context)["messages"]
    assert [msg["role"] for msg in messages] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "user",
        "user",
    ]
    assert messages[2]["content"] == "first"
    assert messages[3]["content"] == "(see attached image)"
    image_part = {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGVsbG8="}}
    assert messages[4]["content"] == [
        {"type": "text", "text": "Attached image(s) from tool result:"},
        image_part,
        image_part,
    ]
    assert messages[5] == {"role": "user", "content": "thanks"}


def test_tool_result_images_for_a_text_only_model_become_text():
    m = model(input=["text"])
    context = Context(
        messages=[
            UserMessage(content="x"),
            reply(m, ToolCall(id="c1", name="shot")),
            result("c1", IMAGE, name="shot"),
        ]
    )
    messages = payload(m, context)["messages"]
    assert messages[-1]["role"] == "tool"
    assert "image" in messages[-1]["content"] and "base64" not in json.dumps(messages)


def test_empty_tools_sent_when_history_has_tool_calls_but_context_has_no_tools():
    m = model(compat={"requiresToolsWithToolHistory": True})  # pi-ai 1.6: only when asked
    context = Context(
        messages=[
            UserMessage(content="x"),
            reply(m, ToolCall(id="c1", name="t")),
            result("c1", TextContent(text="ok"), name="t"),
        ]
    )
    assert payload(m, context)["tools"] == []
    assert "tools" not in payload(m)
    assert "tools" not in payload(model(), context)


def test_same_model_reasoning_is_replayed_in_the_field_it_came_in():
    m = model(provider="openrouter", id="deepseek/deepseek-r1", reasoning=True)
    turn = reply(
        m,
        pi_sdk.ThinkingContent(thinking="step 1", thinking_signature="reasoning"),
        TextContent(text="answer"),
        stop_reason="stop",
    )
    context = Context(messages=[UserMessage(content="q"), turn, UserMessage(content="more")])
    sent = payload(m, context)["messages"][1]
    assert sent == {"role": "assistant", "reasoning": "step 1", "content": "answer"}


def test_other_models_reasoning_is_dropped_or_text_and_foreign_ids_are_normalized():
    m = model()
    other = Model(id="gpt-5", api="openai-responses", provider="openai")
    long_id = "call_" + "x" * 30 + "|fc_" + "y" * 40
    turn = pi_sdk.AssistantMessage(
        api=other.api,
        provider=other.provider,
        model=other.id,
        content=[
            pi_sdk.ThinkingContent(thinking="hmm", thinking_signature='{"type":"reasoning"}'),
            ToolCall(id=long_id, name="get_weather", arguments={"city": "Rome"}),
        ],
        stop_reason="toolUse",
    )
    context = Context(
        messages=[UserMessage(content="q"), turn, result(long_id, TextContent(text="hot"))],
        tools=[TOOL],
    )
    messages = payload(m, context)["messages"]
    sent_id = messages[1]["tool_calls"][0]["id"]
    assert "|" not in sent_id and len(sent_id) <= 40
    assert messages[2]["tool_call_id"] == sent_id
    assert messages[1]["content"] is None  # thinking of another model dropped (pi-ai 1.6)
    messages = payload(m, context, foreign_reasoning="text")["messages"]
    assert messages[1]["content"] == "hmm"  # or kept as plain text (pi-ai 0.73)
    assert "reasoning_content" not in messages[1]


def test_openrouter_anthropic_models_get_a_cache_breakpoint_on_the_last_text():
    m = model(
        provider="openrouter",
        id="anthropic/claude-sonnet-4",
        base_url="https://openrouter.ai/api/v1",
    )
    messages = payload(m, Context(messages=[UserMessage(content="hello")]))["messages"]
    assert messages[-1]["content"] == [
        {"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}
    ]
    plain = payload(model(provider="openrouter", id="openai/gpt-4o"))["messages"]
    assert plain[-1]["content"] == "hi"


@pytest.mark.parametrize(
    ("model_id", "level", "sent"),
    [("o3", "xhigh", "high"), ("gpt-5.2", "xhigh", "high"), ("o3", "low", "low")],
)
def test_reasoning_effort_from_unified_level(model_id: str, level: str, sent: str):
    # pi-ai 1.6 clampThinkingLevel: xhigh only where the model's level map names it
    assert payload(model(id=model_id, reasoning=True), reasoning=level)["reasoning_effort"] == sent
    mapped = model(id=model_id, reasoning=True, thinking_level_map={"xhigh": "xhigh"})
    assert payload(mapped, reasoning="xhigh")["reasoning_effort"] == "xhigh"


def test_reasoning_ignored_for_non_reasoning_models_and_explicit_effort_wins():
    assert "reasoning_effort" not in payload(model(reasoning=False), reasoning="high")
    explicit = payload(
        model(reasoning=True), reasoning="low", provider_options={"reasoning_effort": "none"}
    )
    assert explicit["reasoning_effort"] == "none"


def test_provider_options_are_checked():
    with pytest.raises(pi_sdk.ConfigurationError, match="tool_chioce"):
        payload(model(), provider_options={"tool_chioce": "auto"})
    assert (
        payload(model(), provider_options={"tool_choice": "required"})["tool_choice"] == "required"
    )


# --- request: compat flags --------------------------------------------------------------------


def tool_history(m: Model) -> Context:
    turn = reply(
        m,
        pi_sdk.ThinkingContent(thinking="think", thinking_signature="reasoning_content"),
        TextContent(text="calling"),
        ToolCall(id="c1", name="calc", arguments={"x": 1}),
    )
    return Context(
        system_prompt="sys",
        messages=[
            UserMessage(content="q"),
            turn,
            result("c1", TextContent(text="42"), name="calc"),
            UserMessage(content="next"),
        ],
        tools=[pi_sdk.Tool(name="calc")],
    )


def with_compat(**compat: Any) -> Model:
    return model(reasoning=True, compat=compat)


def test_compat_supports_store():
    assert "store" in payload(with_compat())
    assert "store" not in payload(with_compat(supportsStore=False))


def test_compat_supports_developer_role():
    m = with_compat(supportsDeveloperRole=False)
    assert payload(m, tool_history(m))["messages"][0]["role"] == "system"


def test_local_server_rule_is_a_default_that_compat_overrides():
    """Issue 12 defect 6: the 127.0.0.1 rule (pi-sdk only) is documented and overridable."""
    local = model(reasoning=True, base_url="http://127.0.0.1:8080/v1")
    body = payload(local, tool_history(local))
    assert "store" not in body and "max_tokens" in body and "max_completion_tokens" not in body
    assert body["messages"][0]["role"] == "system"
    wanted = {"supportsStore": True, "supportsDeveloperRole": True,
              "maxTokensField": "max_completion_tokens"}  # fmt: skip
    proxy = model(reasoning=True, base_url="http://127.0.0.1:8080/v1", compat=wanted)
    body = payload(proxy, tool_history(proxy))
    assert body["store"] is False and "max_completion_tokens" in body and "max_tokens" not in body
    assert body["messages"][0]["role"] == "developer"


def test_compat_supports_reasoning_effort_and_effort_map():
    assert "reasoning_effort" not in payload(
        with_compat(supportsReasoningEffort=False), reasoning="low"
    )
    mapped = with_compat(reasoningEffortMap={"low": "minimum"})
    assert payload(mapped, reasoning="low")["reasoning_effort"] == "minimum"
    assert payload(mapped, reasoning="high")["reasoning_effort"] == "high"


def test_compat_supports_usage_in_streaming():
    assert "stream_options" not in payload(with_compat(supportsUsageInStreaming=False))


def test_compat_max_tokens_field():
    body = payload(with_compat(maxTokensField="max_tokens"), max_tokens=10)
    assert body["max_tokens"] == 10 and "max_completion_tokens" not in body


def test_compat_requires_tool_result_name():
    m = with_compat(requiresToolResultName=True)
    tool_message = payload(m, tool_history(m))["messages"][3]
    assert tool_message == {"role": "tool", "content": "42", "tool_call_id": "c1", "name": "calc"}
    plain = model(reasoning=True)
    assert "name" not in payload(plain, tool_history(plain))["messages"][3]


def test_compat_requires_assistant_after_tool_result():
    m = with_compat(requiresAssistantAfterToolResult=True)
    messages = payload(m, tool_history(m))["messages"]
    assert [x["role"] for x in messages] == [
        "developer",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    assert messages[4] == {"role": "assistant", "content": "I have processed the tool results."}
    only_calls = reply(m, ToolCall(id="c9", name="calc"))
    sent = payload(m, Context(messages=[UserMessage(content="q"), only_calls]))["messages"][1]
    assert sent["content"] == ""  # not null


@pytest.mark.parametrize(
    ("bridge", "roles"),
    [
        (False, ["user", "assistant", "tool", "user", "user"]),
        (True, ["user", "assistant", "tool", "assistant", "user", "user"]),
    ],
)
def test_tool_result_images_after_a_bridge_when_asked_and_no_second_bridge(
    bridge: bool, roles: list[str]
):
    m = with_compat(requiresAssistantAfterToolResult=bridge)
    context = Context(
        messages=[
            UserMessage(content="shoot"),
            reply(m, ToolCall(id="c1", name="shot")),
            result("c1", IMAGE, name="shot"),
            UserMessage(content="thanks"),
        ]
    )
    messages = payload(m, context)["messages"]
    assert [x["role"] for x in messages] == roles
    if bridge:
        assert messages[3] == {"role": "assistant", "content": "I have processed the tool results."}
    assert messages[-2]["content"][0] == {
        "type": "text",
        "text": "Attached image(s) from tool result:",
    }
    assert messages[-1] == {"role": "user", "content": "thanks"}


def test_compat_requires_thinking_as_text():
    m = with_compat(requiresThinkingAsText=True)
    sent = payload(m, tool_history(m))["messages"][2]
    assert sent["content"] == "think\n\ncalling"  # pi-mono crashes here when text exists
    assert "reasoning_content" not in sent
    default = model(reasoning=True)
    assert payload(default, tool_history(default))["messages"][2]["reasoning_content"] == "think"


@pytest.mark.parametrize(
    ("fmt", "on", "off"),
    [
        (
            "zai",
            {"thinking": {"type": "enabled", "clear_thinking": False}},
            {"thinking": {"type": "disabled"}},
        ),
        ("qwen", {"enable_thinking": True}, {"enable_thinking": False}),
        (
            "qwen-chat-template",
            {"chat_template_kwargs": {"enable_thinking": True, "preserve_thinking": True}},
            {"chat_template_kwargs": {"enable_thinking": False, "preserve_thinking": True}},
        ),
    ],
)
def test_compat_thinking_format(fmt: str, on: dict[str, Any], off: dict[str, Any]):
    # pi-ai 1.6 (the 11 formats side by side with pi-ai: tests/providers/test_pi16_payloads.py)
    m = with_compat(thinkingFormat=fmt, supportsReasoningEffort=False)
    thinking = payload(m, reasoning="high")
    assert all(thinking[k] == v for k, v in on.items()) and "reasoning_effort" not in thinking
    assert all(payload(m)[k] == v for k, v in off.items())


def test_compat_open_router_routing_only_on_openrouter():
    routing = {"only": ["anthropic"], "order": ["anthropic", "google"]}
    on = model(base_url="https://openrouter.ai/api/v1", compat={"openRouterRouting": routing})
    assert payload(on)["provider"] == routing
    assert "provider" not in payload(model(compat={"openRouterRouting": routing}))


def test_compat_vercel_gateway_routing():
    gateway = model(
        base_url="https://ai-gateway.vercel.sh/v1",
        compat={"vercelGatewayRouting": {"order": ["x"]}},
    )
    assert payload(gateway)["providerOptions"] == {"gateway": {"order": ["x"]}}
    empty = model(base_url="https://ai-gateway.vercel.sh/v1", compat={"vercelGatewayRouting": {}})
    assert "providerOptions" not in payload(empty)


def test_compat_supports_strict_mode():
    m = with_compat(supportsStrictMode=False)
    function = payload(m, tool_history(m))["tools"][0]["function"]
    assert "strict" not in function
    on = with_compat(supportsStrictMode=True)
    assert payload(on, tool_history(on))["tools"][0]["function"]["strict"] is False


def test_compat_requires_reasoning_content():
    m = with_compat(requiresReasoningContent=True)
    bare = reply(m, ToolCall(id="c1", name="calc"))
    context = Context(
        messages=[UserMessage(content="q"), bare, result("c1", TextContent(text="1"), name="calc")]
    )
    assert payload(m, context)["messages"][1]["reasoning_content"] == ""
    assert payload(m, tool_history(m))["messages"][2]["reasoning_content"] == "think"


def test_compat_snake_case_keys_and_bad_values():
    assert "store" not in payload(with_compat(supports_store=False))
    with pytest.raises(pi_sdk.ConfigurationError, match="unknown flag 'supportStore'"):
        resolve_compat(with_compat(supportStore=False))
    with pytest.raises(pi_sdk.ConfigurationError, match="true or false"):
        resolve_compat(with_compat(supportsStore="no"))
    with pytest.raises(pi_sdk.ConfigurationError, match="max_tokens_field"):
        resolve_compat(with_compat(maxTokensField="tokens"))


@pytest.mark.parametrize(
    ("provider", "base_url", "expected"),
    [
        (
            "openai",
            "https://api.openai.com/v1",
            {"supports_store": True, "supports_developer_role": True},
        ),
        (
            "zai",
            "https://api.z.ai/api/coding/paas/v4",
            {"thinking_format": "zai", "supports_reasoning_effort": False, "supports_store": False},
        ),
        (
            "xai",
            "https://api.x.ai/v1",
            {"supports_reasoning_effort": False, "supports_developer_role": False},
        ),
        ("cerebras", "https://api.cerebras.ai/v1", {"supports_store": False}),
        (
            "deepseek",
            "https://api.deepseek.com/v1",
            {"supports_store": False, "supports_developer_role": False},
        ),
        (
            "custom",
            "https://llm.chutes.ai/v1",
            {"max_tokens_field": "max_tokens", "supports_store": False},
        ),
        (
            "ollama",
            "http://localhost:11434/v1",
            {"max_tokens_field": "max_tokens", "supports_developer_role": False},
        ),
        ("vllm", "http://127.0.0.1:8000/v1", {"supports_store": False}),
        (
            "groq",
            "https://api.groq.com/openai/v1",
            {"supports_store": True, "reasoning_effort_map": {}},
        ),
    ],
)
def test_compat_detection(provider: str, base_url: str, expected: dict[str, Any]):
    compat = detect_compat(model(provider=provider, base_url=base_url))
    for name, value in expected.items():
        assert getattr(compat, name) == value, name


def test_compat_detection_groq_qwen_effort_map():
    compat = detect_compat(
        model(provider="groq", id="qwen/qwen3-32b", base_url="https://api.groq.com/openai/v1")
    )
    assert compat.reasoning_effort_map["high"] == "default"


def test_catalog_compat_is_applied():
    workers = pi_sdk.get_models("cloudflare-workers-ai")
    flagged = [m for m in workers if (m.compat or {}).get("supportsStore") is False]
    assert flagged
    assert resolve_compat(flagged[0]).supports_store is False
    openai_flag = [m for m in pi_sdk.get_models("openai") if m.api == "openai-completions"]
    strict = [m for m in openai_flag if (m.compat or {}).get("supportsStrictMode") is True]
    if strict:  # the catalog turns strict on where pi-ai's detection (off) would not
        assert detect_compat(strict[0]).supports_strict_mode is False
        assert resolve_compat(strict[0]).supports_strict_mode is True


# --- the HTTP edge ----------------------------------------------------------------------------


def sse(*chunks: Any, done: bool = True) -> bytes:
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return (body + ("data: [DONE]\n\n" if done else "")).encode()


def chunk(
    delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any
) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "model": "gpt-4o-mini-2024",
        "choices": choices,
        **extra,
    }


def usage(prompt: int, completion: int, cached: int = 0, reasoning: int = 0) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
        "completion_tokens_details": {"reasoning_tokens": reasoning},
    }


async def run(body: bytes | list[Reply], m: Model | None = None, **options: Any):
    return await fakes.run(m or model(), body, **options)


async def test_payload_hook_sees_the_final_body_and_request_goes_to_base_url():
    seen: list[dict[str, Any]] = []

    def hook(body: dict[str, Any], _: Model) -> dict[str, Any]:
        seen.append(body)
        return {**body, "seed": 7}

    body = sse(chunk({"content": "ok"}, "stop"))
    _, message, transport = await run(body, on_payload=hook, headers={"X-Trace": "1"})
    assert message.text == "ok"
    request = transport.requests[0]
    assert str(request.url) == f"{BASE}/chat/completions"
    assert request.headers["x-trace"] == "1"
    assert request.headers["authorization"] == "Bearer test-key"
    sent = json.loads(request.content)
    assert sent == {**seen[0], "seed": 7}


@pytest.mark.parametrize("chunk_size", [1, 3, 64])
async def test_text_usage_and_cost(chunk_size: int):
    body = sse(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Hel"}),
        chunk({"content": "lo é"}),
        chunk({}, "stop"),
        chunk(None, usage=usage(1000, 200, cached=400, reasoning=150)),
    )
    events, message, _ = await run(body, chunk_size=chunk_size)
    assert message.text == "Hello é" and message.stop_reason == "stop"
    u = message.usage
    assert (u.input, u.output, u.cache_read, u.cache_write, u.total_tokens) == (
        600,
        200,
        400,
        0,
        1200,
    )
    assert u.cost.input == pytest.approx(600 * 0.15 / 1e6)
    assert u.cost.output == pytest.approx(200 * 0.6 / 1e6)
    assert u.cost.total == pytest.approx(u.cost.input + u.cost.output + 400 * 0.075 / 1e6)
    assert [e.type for e in events] == reply_types(block_types("text", deltas=2))


async def test_last_non_null_usage_wins():
    body = sse(
        chunk({"content": "a"}, usage=usage(5, 1)),
        chunk({}, "stop", usage=usage(10, 3)),
        chunk(None, usage=None),
    )
    _, message, _ = await run(body)
    assert (message.usage.input, message.usage.output) == (10, 3)


async def test_usage_never_reported_stays_zero():
    builder = MessageBuilder(model())
    decoder = CompletionsDecoder(builder)
    decoder.feed(chunk({"content": "x"}, "stop"))
    decoder.finish(saw_done=True)
    assert not decoder.usage_reported and builder.message.usage.total_tokens == 0
    assert decoder.response_model == "gpt-4o-mini-2024"


async def test_reasoning_fields_then_content():
    body = sse(
        chunk({"reasoning_content": "Let me", "reasoning": "dup"}),
        chunk({"reasoning_content": " think."}),
        chunk({"content": "42"}),
        chunk({}, "stop"),
    )
    events, message, _ = await run(body)
    thinking, text = message.content
    assert isinstance(thinking, pi_sdk.ThinkingContent) and thinking.thinking == "Let me think."
    assert thinking.thinking_signature == "reasoning_content"
    assert isinstance(text, TextContent) and text.text == "42"
    assert [e.type for e in events][1:5] == [
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
    ]


@pytest.mark.parametrize("field", ["reasoning", "reasoning_text"])
async def test_other_reasoning_fields(field: str):
    _, message, _ = await run(sse(chunk({field: "hmm"}), chunk({"content": "ok"}, "stop")))
    assert message.content[0] == pi_sdk.ThinkingContent(thinking="hmm", thinking_signature=field)


async def test_interleaved_parallel_tool_calls_by_index():
    def call(index: int, args: str, **first: Any) -> dict[str, Any]:
        return chunk({"tool_calls": [{"index": index, "function": {"arguments": args}, **first}]})

    body = sse(
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "f", "arguments": ""},
                    },
                    {
                        "index": 1,
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "g", "arguments": '{"b"'},
                    },
                ]
            }
        ),
        call(0, '{"a": '),
        call(1, ": 2}"),
        call(0, "1}"),
        chunk({}, "tool_calls"),
    )
    events, message, _ = await run(body)
    assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == [
        ("call_a", "f", {"a": 1}),
        ("call_b", "g", {"b": 2}),
    ]
    assert message.stop_reason == "toolUse"
    ends = [e.content_index for e in events if e.type == "toolcall_end"]
    assert ends == [0, 1]


async def test_new_id_at_a_used_index_starts_a_new_call():
    body = sse(
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "call_1", "function": {"name": "f", "arguments": "{}"}}
                ]
            }
        ),
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "call_2", "function": {"name": "g", "arguments": '{"x":1}'}}
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "id": "call_2", "function": {"arguments": ""}}]}),
        chunk({}, "tool_calls"),
    )
    _, message, _ = await run(body)
    assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == [
        ("call_1", "f", {}),
        ("call_2", "g", {"x": 1}),
    ]


async def test_calls_without_index_and_null_or_missing_arguments():
    body = sse(
        chunk({"tool_calls": [{"id": "a", "function": {"name": "f", "arguments": None}}]}),
        chunk({"tool_calls": [{"id": "b", "function": {"name": "g"}}]}),
        chunk({"tool_calls": [{"function": {"arguments": '{"k": "v"}'}}]}),
        chunk({}, "tool_calls"),
    )
    _, message, _ = await run(body)
    assert [(c.id, c.arguments) for c in message.tool_calls] == [("a", {}), ("b", {"k": "v"})]


async def test_tool_call_without_finish_reason_is_tool_use_but_length_stays_length():
    call = chunk(
        {
            "tool_calls": [
                {"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"q": "par'}}
            ]
        }
    )
    _, clean, _ = await run(sse(call))
    assert clean.stop_reason == "toolUse"
    events, cut, _ = await run(sse(call, chunk({}, "length")))
    assert cut.stop_reason == "length"
    assert cut.tool_calls[0].arguments == {"q": "par"}  # best partial parse
    assert "".join(e.delta for e in events if e.type == "toolcall_delta") == '{"q": "par'


async def test_refusal_is_an_error_with_the_refusal_text():
    body = sse(
        chunk({"content": "Sure"}),
        chunk({"refusal": "I can't "}),
        chunk({"refusal": "help."}),
        chunk({}, "stop"),
    )
    _, message, _ = await run(body)
    assert message.stop_reason == "error"
    assert message.error_message == "I can't help."
    assert message.text == "Sure"


@pytest.mark.parametrize(
    ("reason", "text"),
    [
        ("content_filter", "content filter"),
        ("model_context_window_exceeded", "Unhandled stop reason"),
    ],
)
async def test_error_finish_reasons(reason: str, text: str):
    _, message, _ = await run(sse(chunk({"content": "partial"}, reason)))
    assert message.stop_reason == "error" and text in (message.error_message or "")
    assert message.text == "partial"


async def test_error_chunk_mid_stream():
    body = sse(
        chunk({"content": "So far"}),
        {"error": {"code": 502, "message": "upstream died", "metadata": {"raw": "boom"}}},
    )
    _, message, _ = await run(body)
    assert message.stop_reason == "error"
    assert message.error_message == "502: upstream died\nboom"
    assert message.text == "So far"


async def test_stream_without_done_marker_is_incomplete():
    _, message, transport = await run(sse(chunk({"content": "half"}, "stop"), done=False))
    assert message.stop_reason == "error" and "[DONE]" in (message.error_message or "")
    assert message.text == "half" and transport.closed == 1


@pytest.mark.parametrize("tail", [b"", b"data: [DON", b"data: [DONE]"])
async def test_stream_whose_finish_reason_and_usage_arrived_is_complete_without_done(tail: bytes):
    """Issue 12: the usage chunk (after finish_reason) arrived; only [DONE] is missing or cut."""
    body = sse(chunk({"content": "whole"}, "length"), chunk(usage=usage(9, 4)), done=False)
    events, message, transport = await run(body + tail)
    assert message.stop_reason == "length" and message.error_message is None
    assert message.text == "whole" and (message.usage.input, message.usage.output) == (9, 4)
    assert events[-1].type == "done" and transport.closed == 1


async def test_json_body_from_a_server_that_ignored_stream():
    completion = {
        "id": "x",
        "object": "chat.completion",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Hi",
                    "reasoning": "r",
                    "tool_calls": [
                        {
                            "id": "t",
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"a":1}'},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            },
            {
                "index": 1,
                "message": {"role": "assistant", "content": "other choice"},
                "finish_reason": "stop",
            },
        ],
        "usage": usage(10, 5),
    }
    reply = Reply(200, json.dumps(completion).encode(), JSON)
    _, message, _ = await run([reply])
    assert [type(b).__name__ for b in message.content] == [
        "ThinkingContent",
        "TextContent",
        "ToolCall",
    ]
    assert message.text == "Hi" and message.tool_calls[0].arguments == {"a": 1}
    assert message.stop_reason == "toolUse" and message.usage.total_tokens == 15


async def test_http_error_keeps_status_vendor_message_and_retry_after():
    error = {
        "error": {
            "message": "Rate limit reached",
            "type": "requests",
            "code": "rate_limit_exceeded",
        }
    }
    reply = Reply(
        429, json.dumps(error).encode(), {"content-type": "application/json", "retry-after-ms": "1"}
    )
    events, message, transport = await run([reply])
    assert [e.type for e in events] == ["start", "error"]
    assert "429" in (message.error_message or "") and "Rate limit reached" in (
        message.error_message or ""
    )
    assert len(transport.requests) == 1  # the SDK did not retry


async def test_retryable_error_is_retried_once_by_pi_sdk():
    error = Reply(
        503,
        b'{"error": {"message": "overloaded"}}',
        {"content-type": "application/json", "retry-after-ms": "0"},
    )
    ok = Reply(200, sse(chunk({"content": "ok"}, "stop")), SSE)
    transport = ChunkedTransport([error, ok])
    client = client_on(transport)
    try:
        options = pi_sdk.StreamOptions(client=client, max_retries=1, max_retry_delay_ms=1)
        message = await pi_sdk.complete(
            model(), Context(messages=[UserMessage(content="hi")]), options
        )
    finally:
        await client.close()
    assert message.text == "ok" and len(transport.requests) == 2


async def test_abort_mid_stream_keeps_partial_text_and_closes_the_response():
    controller = pi_sdk.AbortController()
    body = sse(chunk({"content": "first"}), done=False)
    transport = ChunkedTransport([Reply(200, body, SSE, stall_after=len(body))])
    client = client_on(transport)
    try:
        stream = pi_sdk.stream(
            model(),
            Context(messages=[UserMessage(content="hi")]),
            pi_sdk.StreamOptions(client=client, signal=controller.signal, max_retries=0),
        )
        events, message = await collect_aborting(stream, controller, "text_delta")
    finally:
        await client.close()
    assert message.stop_reason == "aborted" and message.text == "first"
    assert transport.closed == 1
    assert_valid_event_sequence(events)


async def test_missing_key_names_the_env_var(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    m = model(provider="groq", base_url="https://api.groq.com/openai/v1")
    message = await pi_sdk.complete(
        m, Context(messages=[UserMessage(content="hi")]), pi_sdk.StreamOptions(max_retries=0)
    )
    assert message.stop_reason == "error" and "GROQ_API_KEY" in (message.error_message or "")


async def test_env_key_lookup(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    assert get_api_key("openrouter") == "sk-or-test"
    monkeypatch.setenv("HF_TOKEN", "hf-test")
    assert get_api_key("huggingface") == "hf-test"


async def test_client_of_the_wrong_kind_is_a_clear_error():
    message = await pi_sdk.complete(
        model(), Context(), pi_sdk.StreamOptions(client=object(), max_retries=0)
    )
    assert message.stop_reason == "error" and "AsyncOpenAI" in (message.error_message or "")


def test_importing_the_plugin_does_not_import_the_sdk_or_the_wire_code():
    code = (
        "import sys, pi_sdk, pi_sdk_openai; pi_sdk.get_api_provider('openai-responses');"
        " print([m for m in ('openai', 'pi_sdk_openai.completions', 'pi_sdk_openai.responses')"
        " if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_recognizer():
    api, openrouter = "openai-completions", "https://openrouter.ai/api/v1"
    found = recognized(api, f"{openrouter}/chat/completions?x=1", {"model": "openai/gpt-4o"})
    fields = ("provider", "id", "base_url", "api")
    assert described(found, *fields) == ("openrouter", "openai/gpt-4o", openrouter, api)
    assert found is not None and found.cost.input > 0  # catalog data
    local = recognized(api, "http://localhost:11434/v1/chat/completions", {"model": "llama3"})
    assert described(local, "provider", "base_url") == ("localhost", "http://localhost:11434/v1")
    assert recognized(api, "https://api.openai.com/v1/responses", {"model": "x"}) is None
    uri = "https://api.openai.com/v1/chat/completions"
    assert recognized(api, uri, {"model": "x"}, method="GET") is None


def test_custom_server_example_runs_offline():
    example = Path(__file__).resolve().parents[3] / "docs/examples/openai_compatible_server.py"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_COMPAT_")}
    out = subprocess.run(
        [sys.executable, str(example)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=60,
    )
    assert out.stdout.splitlines() == ["Hello there, friend!", "stop_reason=stop tokens=16"]


async def test_partial_text_is_exact_at_every_event_and_the_block_still_serializes():
    pieces = ["a", "bé", "c" * 300, "\n", "d"]
    body = sse(*[chunk({"content": p}) for p in pieces], chunk({}, "stop"))
    transport = ChunkedTransport([Reply(200, body, SSE)], chunk_size=1)
    client = client_on(transport)
    so_far = ""
    try:
        options = pi_sdk.StreamOptions(client=client, max_retries=0)
        stream = pi_sdk.stream(model(), Context(messages=[UserMessage(content="hi")]), options)
        async for event in stream:
            if event.type == "text_delta":
                so_far += event.delta
                assert event.partial.content[event.content_index].text == so_far
        message = await stream.result()
    finally:
        await client.close()
    assert so_far == message.text == "".join(pieces)
    block = message.content[0]
    assert TextContent.model_validate(block.model_dump()) == block
    assert block.model_dump(by_alias=True) == {"type": "text", "text": "".join(pieces)}


async def test_malformed_json_event_is_an_error_that_keeps_the_text():
    body = sse(chunk({"content": "ok so far"}), done=False) + b"data: {not json\n\ndata: [DONE]\n\n"
    _, message, _ = await run(body)
    text = message.error_message or ""
    # Which event, why, and what came instead.
    assert message.stop_reason == "error" and text.startswith("malformed stream event #2 ")
    assert "Expecting property name" in text and "'{not json'" in text
    assert message.text == "ok so far"
