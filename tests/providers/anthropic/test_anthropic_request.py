"""anthropic-messages request building (pi-spec §4.1, §3.3): body, headers, recognizer, keys."""

from __future__ import annotations

import pi_sdk_anthropic
import pytest
from pi_sdk_anthropic.messages import build_headers, build_request, recognize_request

import pi_sdk
from pi_sdk import Context, StreamOptions, TextContent, ThinkingContent, UserMessage

BUDGET = pi_sdk.Model(
    id="claude-sonnet-4-5", api="anthropic-messages", provider="anthropic",
    base_url="https://api.anthropic.com", reasoning=True, input=["text", "image"], max_tokens=64000,
)  # fmt: skip
OPUS_46 = BUDGET.model_copy(update={"id": "claude-opus-4-6", "max_tokens": 128000})
SONNET_46 = BUDGET.model_copy(update={"id": "claude-sonnet-4-6"})
PLAIN = BUDGET.model_copy(update={"id": "claude-3-5-haiku", "reasoning": False, "max_tokens": 8192})
CTX = Context(messages=[UserMessage(content="hi")])


def body(model: pi_sdk.Model = BUDGET, context: Context = CTX, **options: object) -> dict:
    return build_request(model, context, StreamOptions(**options))  # type: ignore[arg-type]


# --- max tokens, thinking, temperature --------------------------------------------------------


def test_defaults():
    b = body(PLAIN, temperature=0.2)
    assert b["model"] == "claude-3-5-haiku" and b["stream"] is True
    assert b["max_tokens"] == 8192  # model.max_tokens (pi-ai 1.6: no 32,000 cap)
    assert b["temperature"] == 0.2 and "thinking" not in b
    assert body(BUDGET)["max_tokens"] == 64000
    assert body(BUDGET, max_tokens=1000)["max_tokens"] == 1000
    # fitted into the window beside the input: 128,000 - 4,096 margin - ~2 tokens of "hi"
    tight = BUDGET.model_copy(update={"max_tokens": 200_000})
    assert body(tight)["max_tokens"] == 128_000 - 4096 - 1


@pytest.mark.parametrize(
    ("level", "budget"), [("minimal", 1024), ("low", 2048), ("medium", 8192), ("high", 16384),
                          ("xhigh", 16384)],
)  # fmt: skip
def test_budget_thinking_from_reasoning_level(level: str, budget: int):
    b = body(BUDGET, reasoning=level, temperature=0.5)
    assert b["thinking"] == {"type": "enabled", "budget_tokens": budget, "display": "summarized"}
    assert b["max_tokens"] == 64000  # model.max_tokens + budget, capped at model.max_tokens
    b = body(BUDGET, reasoning=level, max_tokens=10_000)
    assert b["max_tokens"] == 10_000 + budget
    assert "temperature" not in b  # incompatible with extended thinking


def test_budget_clamped_to_model_max_and_custom_budgets():
    small = BUDGET.model_copy(update={"max_tokens": 4096})
    b = body(small, reasoning="high", max_tokens=4096)
    assert b["max_tokens"] == 4096 and b["thinking"]["budget_tokens"] == 4096 - 1024
    b = body(BUDGET, reasoning="low", thinking_budgets={"low": 3000}, max_tokens=1000)
    # pi-ai 1.6: the budget leaves 1,024 of the 4,000 for the answer
    assert b["thinking"]["budget_tokens"] == 4000 - 1024 and b["max_tokens"] == 4000


@pytest.mark.parametrize(
    ("model", "level", "effort"),
    [(OPUS_46, "minimal", "low"), (OPUS_46, "medium", "medium"), (OPUS_46, "xhigh", "max"),
     (SONNET_46, "xhigh", "high"), (SONNET_46, "high", "high")],
)  # fmt: skip
def test_adaptive_thinking_effort(model: pi_sdk.Model, level: str, effort: str):
    b = body(model, reasoning=level)
    assert b["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert b["output_config"] == {"effort": effort}
    assert b["max_tokens"] == min(model.max_tokens, 128_000 - 4096 - 1)  # no budget added


def test_reasoning_ignored_for_non_reasoning_model():
    b = body(PLAIN, reasoning="high", temperature=0.7)
    assert "thinking" not in b and b["temperature"] == 0.7


def test_provider_options_win():
    b = body(BUDGET, reasoning="high", provider_options={"thinking_enabled": False})
    assert b["thinking"] == {"type": "disabled"}
    b = body(BUDGET, provider_options={"thinking_enabled": True, "thinking_budget_tokens": 5000})
    assert b["thinking"] == {"type": "enabled", "budget_tokens": 5000, "display": "summarized"}
    b = body(BUDGET, provider_options={"thinking_enabled": True})
    assert b["thinking"] == {"type": "enabled", "budget_tokens": 1024, "display": "summarized"}
    b = body(OPUS_46, reasoning="low", provider_options={"effort": "max"})
    assert b["output_config"] == {"effort": "max"}


def test_thinking_display_is_summarized_as_pi_ai_073_sends_it_unless_told():
    # pi-ai 0.73 anthropic.js: `display: options.thinkingDisplay ?? "summarized"` on both shapes.
    omitted = {"thinking_display": "omitted"}
    b = body(OPUS_46, reasoning="high", provider_options=omitted)
    assert b["thinking"] == {"type": "adaptive", "display": "omitted"}
    b = body(BUDGET, reasoning="low", provider_options=omitted)
    assert b["thinking"] == {"type": "enabled", "budget_tokens": 2048, "display": "omitted"}
    assert body(BUDGET)["thinking"] == {"type": "disabled"}  # off: no display


def test_tool_choice_and_metadata():
    assert body(provider_options={"tool_choice": "any"})["tool_choice"] == {"type": "any"}
    pick = {"type": "tool", "name": "get_weather"}
    assert body(provider_options={"tool_choice": pick})["tool_choice"] == pick
    assert body(metadata={"user_id": "u-1", "other": 1})["metadata"] == {"user_id": "u-1"}
    assert "metadata" not in body(metadata={"user_id": 42})


def test_unknown_provider_option_is_a_clear_error():
    with pytest.raises(pi_sdk.ConfigurationError, match="thinking_budget"):
        body(provider_options={"thinking_budget": 100})


# --- cache control ----------------------------------------------------------------------------


def test_cache_control_default_short_on_system_and_last_user_block():
    b = body(context=Context(system_prompt="sys", messages=[UserMessage(content="q")]))
    assert b["system"] == [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}]
    assert b["messages"][-1]["content"] == [
        {"type": "text", "text": "q", "cache_control": {"type": "ephemeral"}}
    ]


def test_cache_control_long_ttl_unless_compat_says_no(monkeypatch: pytest.MonkeyPatch):
    ctx = Context(system_prompt="sys", messages=[UserMessage(content="q")])
    b = body(context=ctx, cache_retention="long")
    assert b["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    # pi-ai 1.6: any host, unless compat.supportsLongCacheRetention is false
    proxy = BUDGET.model_copy(update={"base_url": "https://proxy.example"})
    assert body(proxy, ctx, cache_retention="long")["system"][0]["cache_control"]["ttl"] == "1h"
    no_long = proxy.model_copy(update={"compat": {"supportsLongCacheRetention": False}})
    assert body(no_long, ctx, cache_retention="long")["system"][0]["cache_control"] == {
        "type": "ephemeral"
    }
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    assert body(context=ctx)["system"][0]["cache_control"]["ttl"] == "1h"


def test_cache_retention_none_sends_no_cache_control():
    ctx = Context(system_prompt="sys", messages=[UserMessage(content="q")])
    b = body(context=ctx, cache_retention="none")
    assert "cache_control" not in str(b)
    assert b["messages"][-1]["content"] == "q"


# --- messages ---------------------------------------------------------------------------------


def _assistant(
    *content: object, model: str = "claude-sonnet-4-5", **kw: object
) -> pi_sdk.AssistantMessage:
    return pi_sdk.AssistantMessage(
        api="anthropic-messages", provider="anthropic", model=model, content=list(content), **kw
    )


def test_history_conversion():
    png = pi_sdk.ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    history = [
        UserMessage(content="   "),  # blank: skipped
        UserMessage(content=[TextContent(text="look"), png, TextContent(text="")]),
        _assistant(
            ThinkingContent(thinking="plan", thinking_signature="sig=="),
            ThinkingContent(thinking="", thinking_signature="redacted-data", redacted=True),
            TextContent(text="calling"),
            pi_sdk.ToolCall(id="toolu_a", name="a", arguments={"x": 1}),
            pi_sdk.ToolCall(id="toolu_b", name="b", arguments={}),
            stop_reason="toolUse",
        ),
        pi_sdk.ToolResultMessage(
            tool_call_id="toolu_a",
            tool_name="a",
            content=[TextContent(text="1"), TextContent(text="2")],
        ),  # fmt: skip
        pi_sdk.ToolResultMessage(
            tool_call_id="toolu_b", tool_name="b", content=[png], is_error=True
        ),
    ]
    b = body(context=Context(messages=history), cache_retention="none")
    user, assistant, results = b["messages"]
    assert user == {
        "role": "user",
        "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": "iVBORw0KGgo="}},
        ],
    }  # fmt: skip
    assert assistant["content"] == [
        {"type": "thinking", "thinking": "plan", "signature": "sig=="},
        {"type": "redacted_thinking", "data": "redacted-data"},
        {"type": "text", "text": "calling"},
        {"type": "tool_use", "id": "toolu_a", "name": "a", "input": {"x": 1}},
        {"type": "tool_use", "id": "toolu_b", "name": "b", "input": {}},
    ]
    # Consecutive tool results become one user message.
    assert results["role"] == "user"
    first, second = results["content"]
    assert first == {"type": "tool_result", "tool_use_id": "toolu_a", "content": "1\n2",
                     "is_error": False}  # fmt: skip
    assert second["is_error"] is True
    assert second["content"][0] == {"type": "text", "text": "(see attached image)"}
    assert second["content"][1]["type"] == "image"


def test_foreign_thinking_is_dropped_and_unsigned_own_thinking_becomes_plain_text():
    history = [
        UserMessage(content="q"),
        _assistant(
            ThinkingContent(thinking="other model's idea", thinking_signature="x"),
            TextContent(text="a"),
            model="gpt-5",
        ),  # fmt: skip
        UserMessage(content="q2"),
        _assistant(ThinkingContent(thinking="cut short"), TextContent(text="b")),
        UserMessage(content="q3"),
    ]
    b = body(context=Context(messages=history), cache_retention="none")
    foreign, unsigned = b["messages"][1], b["messages"][3]
    assert foreign["content"] == [{"type": "text", "text": "a"}]  # pi-ai 1.6 drops it
    assert unsigned["content"][0] == {"type": "text", "text": "cut short"}
    kept = body(context=Context(messages=history), cache_retention="none", foreign_reasoning="text")
    assert kept["messages"][1]["content"][0] == {"type": "text", "text": "other model's idea"}


def test_foreign_tool_call_ids_are_normalized_consistently():
    history = [
        UserMessage(content="q"),
        _assistant(
            pi_sdk.ToolCall(id="call|weird:id", name="t", arguments={}),
            model="gpt-5",
            stop_reason="toolUse",
        ),  # fmt: skip
        pi_sdk.ToolResultMessage(
            tool_call_id="call|weird:id", tool_name="t", content=[TextContent(text="r")]
        ),
    ]
    b = body(context=Context(messages=history), cache_retention="none")
    call_id = b["messages"][1]["content"][0]["id"]
    assert all(c.isalnum() or c in "_-" for c in call_id) and len(call_id) <= 64
    assert b["messages"][2]["content"][0]["tool_use_id"] == call_id


def test_tools_keep_properties_required_and_the_keys_pi_ai_1_6_keeps():
    # pi-ai 1.6 convertTools: additionalProperties, $defs and definitions stay (for $refs and
    # the extra-arguments rule); any other root keyword goes (Anthropic 400s on a root anyOf).
    tool = pi_sdk.Tool(
        name="t", description="d",
        parameters={"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
                    "additionalProperties": False, "$defs": {"x": {}}, "anyOf": [{}],
                    "title": "T"},
    )  # fmt: skip
    b = body(context=Context(messages=[UserMessage(content="q")], tools=[tool]))
    assert b["tools"] == [{"name": "t", "description": "d", "eager_input_streaming": True,
        "input_schema": {"type": "object", "properties": {"a": {"type": "string"}},
                         "required": ["a"], "additionalProperties": False, "$defs": {"x": {}}},
        "cache_control": {"type": "ephemeral"}}]  # fmt: skip


def test_lone_surrogates_are_removed_from_the_system_prompt():
    b = body(context=Context(system_prompt="a\ud83db", messages=[UserMessage(content="q")]))
    assert b["system"][0]["text"] == "ab"


# --- OAuth, headers ---------------------------------------------------------------------------


def test_oauth_mode_identity_and_tool_casing():
    ctx = Context(system_prompt="mine", messages=[UserMessage(content="q")],
                  tools=[pi_sdk.Tool(name="bash"), pi_sdk.Tool(name="my_tool")])  # fmt: skip
    b = build_request(BUDGET, ctx, StreamOptions(), oauth=True)
    assert [s["text"] for s in b["system"]] == [
        "You are Claude Code, Anthropic's official CLI for Claude.",
        "mine",
    ]
    assert [t["name"] for t in b["tools"]] == ["Bash", "my_tool"]


def test_headers_per_auth_mode_and_merge_order():
    model = BUDGET.model_copy(update={"headers": {"x-a": "model", "x-b": "model"}})
    opts = StreamOptions(headers={"x-b": "call"})
    h = build_headers(model, opts, "sk-ant-api03-x")
    assert h["anthropic-beta"] == "interleaved-thinking-2025-05-14"
    assert (h["x-a"], h["x-b"]) == ("model", "call")
    assert "x-api-key" not in h and "authorization" not in {k.lower() for k in h}
    oauth = build_headers(BUDGET, StreamOptions(), "sk-ant-oat01-x")
    assert oauth["anthropic-beta"].startswith("claude-code-20250219,oauth-2025-04-20,")
    assert oauth["user-agent"].startswith("claude-cli/") and oauth["x-app"] == "cli"
    adaptive = build_headers(OPUS_46, StreamOptions(), "k")
    assert "anthropic-beta" not in adaptive
    off = build_headers(
        BUDGET, StreamOptions(provider_options={"interleaved_thinking": False}), "k"
    )
    assert "anthropic-beta" not in off
    copilot = build_headers(
        BUDGET.model_copy(update={"provider": "github-copilot"}), StreamOptions(), "k"
    )
    assert copilot["anthropic-beta"] == "interleaved-thinking-2025-05-14"
    assert copilot["anthropic-dangerous-direct-browser-access"] == "true"


# --- recognizer, keys, registration -----------------------------------------------------------


def test_recognize_request():
    m = recognize_request("POST", "https://api.anthropic.com/v1/messages?beta=true",
                          {"model": "claude-sonnet-4-5", "stream": True})  # fmt: skip
    assert (
        m is not None and m.id == "claude-sonnet-4-5" and m.base_url == "https://api.anthropic.com"
    )
    assert m.cost.input > 0  # catalog data
    proxied = recognize_request("post", "http://localhost:8080/anthropic/v1/messages",
                                {"model": "my-claude"})  # fmt: skip
    assert proxied is not None and proxied.base_url == "http://localhost:8080/anthropic"
    assert proxied.provider == "anthropic" and proxied.api == "anthropic-messages"
    assert recognize_request("GET", "https://api.anthropic.com/v1/messages", {"model": "x"}) is None
    assert recognize_request("POST", "https://api.anthropic.com/v1/messages/count_tokens",
                             {"model": "x"}) is None  # fmt: skip
    assert (
        recognize_request("POST", "https://api.openai.com/v1/chat/completions", {"model": "x"})
        is None
    )
    assert recognize_request("POST", "https://api.anthropic.com/v1/messages", None) is None


def test_api_key_from_environment(monkeypatch: pytest.MonkeyPatch):
    get_api_key = pi_sdk.Models(pi_sdk_anthropic.PROVIDERS).get_api_key
    monkeypatch.setenv("ANTHROPIC_API_KEY", "key-1")
    monkeypatch.delenv("ANTHROPIC_OAUTH_TOKEN", raising=False)
    assert get_api_key("anthropic") == "key-1"
    monkeypatch.setenv("ANTHROPIC_OAUTH_TOKEN", "oat-1")
    assert get_api_key("anthropic") == "oat-1"
    assert get_api_key("openai") is None


def test_registered_through_the_entry_point():
    provider = pi_sdk.get_api_provider("anthropic-messages")
    assert provider.recognize is not None
    uri, body = "https://proxy.test/v1/messages?beta=true", {"model": "claude-sonnet-4-5"}
    found = provider.recognize("POST", uri, body)
    assert found is not None and found == recognize_request("POST", uri, body)
    assert (found.id, found.base_url) == ("claude-sonnet-4-5", "https://proxy.test")
    model = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")
    assert model.api == "anthropic-messages" and model.reasoning


def _tool_loop(*first: object, model: str) -> Context:
    call = pi_sdk.ToolCall(id="toolu_1", name="get_weather", arguments={"city": "Paris"})
    return Context(
        messages=[
            UserMessage(content="weather?"),
            _assistant(*first, TextContent(text="checking"), call, model=model,
                       stop_reason="toolUse"),
            pi_sdk.ToolResultMessage(tool_call_id="toolu_1", tool_name="get_weather",
                              content=[TextContent(text="sunny")]),
        ]
    )  # fmt: skip


def test_thinking_is_off_for_a_tool_loop_whose_turn_has_no_thinking():
    # History from another model (Gemini made the call): Anthropic would reject thinking here.
    foreign = body(context=_tool_loop(model="gemini-2.5-pro"), reasoning="medium")
    assert "thinking" not in foreign
    assert foreign["messages"][1]["content"][0]["type"] == "text"
    # The same loop from Claude itself, with its signed thinking first: thinking stays on.
    signed = ThinkingContent(thinking="let me check", thinking_signature="c2ln")
    own = body(context=_tool_loop(signed, model="claude-sonnet-4-5"), reasoning="medium")
    assert own["thinking"]["type"] == "enabled"
    assert own["messages"][1]["content"][0]["type"] == "thinking"
    # A new user turn starts a new loop: thinking on again.
    after = _tool_loop(model="gemini-2.5-pro")
    after.messages.append(UserMessage(content="and tomorrow?"))
    assert body(context=after, reasoning="medium")["thinking"]["type"] == "enabled"


# --- pi-ai 0.73 request fields (issue 12) -----------------------------------------------------

WEATHER = pi_sdk.Tool(name="get_weather", parameters={"type": "object", "properties": {}})
CLOCK = pi_sdk.Tool(name="get_time", parameters={"type": "object", "properties": {}})


def test_reasoning_off_on_a_thinking_model_sends_thinking_disabled():
    ctx = Context(messages=[UserMessage(content="hi")])
    assert build_request(BUDGET, ctx, StreamOptions())["thinking"] == {"type": "disabled"}
    assert build_request(OPUS_46, ctx, StreamOptions())["thinking"] == {"type": "disabled"}
    forced_off = StreamOptions(reasoning="high", provider_options={"thinking_enabled": False})
    assert build_request(BUDGET, ctx, forced_off)["thinking"] == {"type": "disabled"}
    plain = BUDGET.model_copy(update={"reasoning": False})
    assert "thinking" not in build_request(plain, ctx, StreamOptions())
    assert build_request(BUDGET, ctx, StreamOptions(reasoning="low"))["thinking"]["type"] == (
        "enabled"
    )


def test_tools_stream_eagerly_and_the_last_tool_is_a_cache_breakpoint():
    ctx = Context(messages=[UserMessage(content="hi")], tools=[WEATHER, CLOCK])
    tools = build_request(BUDGET, ctx, StreamOptions())["tools"]
    assert [t.get("eager_input_streaming") for t in tools] == [True, True]
    assert "cache_control" not in tools[0]
    assert tools[1]["cache_control"] == {"type": "ephemeral"}
    assert list(tools[1]) == [
        "name", "description", "eager_input_streaming", "input_schema", "cache_control"
    ]  # fmt: skip
    none = build_request(BUDGET, ctx, StreamOptions(cache_retention="none"))["tools"]
    assert all("cache_control" not in t for t in none)


def test_without_eager_streaming_the_tools_use_the_fine_grained_beta():
    legacy = BUDGET.model_copy(update={"compat": {"supportsEagerToolInputStreaming": False}})
    ctx = Context(messages=[UserMessage(content="hi")], tools=[WEATHER])
    assert "eager_input_streaming" not in build_request(legacy, ctx, StreamOptions())["tools"][0]
    with_tools = build_headers(legacy, StreamOptions(), "k", has_tools=True)
    assert with_tools["anthropic-beta"].split(",")[0] == "fine-grained-tool-streaming-2025-05-14"
    assert "fine-grained" not in build_headers(legacy, StreamOptions(), "k").get(
        "anthropic-beta", ""
    )
    assert (
        "fine-grained"
        not in build_headers(BUDGET, StreamOptions(), "k", has_tools=True)["anthropic-beta"]
    )


def test_session_affinity_header_where_compat_asks_for_it():
    # pi-ai 1.6 getAnthropicCompat: on for OpenRouter (x-session-id), by flag elsewhere
    fireworks = BUDGET.model_copy(update={"compat": {"sendSessionAffinityHeaders": True}})
    on = StreamOptions(session_id="s-1")
    assert build_headers(fireworks, on, "key")["x-session-affinity"] == "s-1"
    assert "x-session-affinity" not in build_headers(BUDGET, on, "key")
    router = BUDGET.model_copy(update={"provider": "openrouter"})
    assert build_headers(router, on, "key")["x-session-id"] == "s-1"
    off = StreamOptions(session_id="s-1", cache_retention="none")
    assert "x-session-affinity" not in build_headers(fireworks, off, "key")


def test_compat_flags_shape_the_body():
    ctx = Context(
        system_prompt="s", messages=[UserMessage(content="hi")], tools=[pi_sdk.Tool(name="t")]
    )
    no_temp = BUDGET.model_copy(update={"compat": {"supportsTemperature": False}})
    assert "temperature" not in body(no_temp, temperature=0.5)
    no_tool_cache = BUDGET.model_copy(update={"compat": {"supportsCacheControlOnTools": False}})
    assert "cache_control" not in body(no_tool_cache, ctx)["tools"][-1]
    assert "cache_control" in body(BUDGET, ctx)["tools"][-1]
    adaptive = BUDGET.model_copy(update={"compat": {"forceAdaptiveThinking": True}})
    assert body(adaptive, reasoning="high")["thinking"]["type"] == "adaptive"
    fallback = BUDGET.model_copy(
        update={
            "compat": {"allowedFallbackModels": [{"provider": "anthropic", "model": "claude-x"}]}
        }
    )
    assert body(fallback)["fallbacks"] == [{"model": "claude-x"}]
    with pytest.raises(pi_sdk.ConfigurationError, match="supportsTemperature"):
        body(BUDGET.model_copy(update={"compat": {"supportsTemperature": "no"}}))


def test_a_recorded_request_for_a_model_the_catalog_lacks_gets_a_thinking_stand_in():
    # pi-sdk replay calls the recorded server with this model: it must allow thinking and images
    # as any current Claude model does, or the replayed request differs from the recording.
    model = recognize_request("POST", "http://proxy.test/a/v1/messages", {"model": "claude-x-9"})
    assert model == pi_sdk.Model(
        id="claude-x-9", name="claude-x-9", api="anthropic-messages", provider="anthropic",
        base_url="http://proxy.test/a", reasoning=True, input=["text", "image"],
    )  # fmt: skip
