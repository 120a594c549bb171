"""The Chat Completions compat flags pi-ai 1.6 added (issue 27, item 3), on request bodies.

The 11 thinking formats are compared with pi-ai's own bodies in
tests/providers/test_pi16_payloads.py; here each new flag's effect, and the catalog's models of
the formats that came with 1.6 (Together, Baseten, Ant Ling).
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai.completions import build_payload, resolve_compat
from pi_sdk_openai.completions import session_affinity_headers as affinity

import pi_sdk
from pi_sdk import Context, StreamOptions, ToolCall, UserMessage

BASE = pi_sdk.Model(
    id="m",
    api="openai-completions",
    provider="my-vllm",
    base_url="https://llm.example/v1",
    reasoning=True,
    max_tokens=8192,
)


def model(**compat: Any) -> pi_sdk.Model:
    return BASE.model_copy(update={"compat": compat})


def body(m: pi_sdk.Model, context: Context | None = None, **options: Any) -> dict[str, Any]:
    context = context or Context(messages=[UserMessage(content="hi")])
    return build_payload(m, context, StreamOptions(**options))


def test_chat_template_kwargs_fill_their_variables() -> None:
    m = model(
        thinkingFormat="chat-template",
        chatTemplateKwargs={
            "enable_thinking": {"$var": "thinking.enabled"},
            "effort": {"$var": "thinking.effort", "omitWhenOff": True},
            "budget": {"$var": "thinking.budget"},
            "fixed": "x",
        },
    )
    on = body(m, reasoning="medium")["chat_template_kwargs"]
    assert on == {"enable_thinking": True, "effort": "medium", "budget": 8192 - 1024, "fixed": "x"}
    off = body(m)["chat_template_kwargs"]
    assert off == {"enable_thinking": False, "fixed": "x"}


def test_thinking_budget_field_caps_reasoning_under_the_output_cap() -> None:
    m = model(thinkingTokenBudgetField="thinking_budget")
    assert body(m, reasoning="low")["thinking_budget"] == 2048
    assert body(m, reasoning="high", max_tokens=4000)["thinking_budget"] == 4000 - 1024
    assert "thinking_budget" not in body(m)
    alias = model(supportsThinkingTokenBudget=True)
    assert body(alias, reasoning="minimal")["thinking_token_budget"] == 1024


def test_vllm_priority_and_prompt_cache_key_modes() -> None:
    assert body(model(vllmPriority=-5))["priority"] == -5
    enabled = model(promptCacheKeyMode="enabled")
    assert body(enabled, session_id="s" * 80)["prompt_cache_key"] == "s" * 64
    assert "prompt_cache_key" not in body(model(), session_id="s")  # auto: not api.openai.com
    disabled = BASE.model_copy(
        update={
            "base_url": "https://api.openai.com/v1",
            "compat": {"promptCacheKeyMode": "disabled"},
        }
    )
    assert "prompt_cache_key" not in body(disabled, session_id="s")


@pytest.mark.parametrize(
    ("fmt", "headers"),
    [
        ("openai", {"session_id", "x-client-request-id", "x-session-affinity"}),
        ("openai-nosession", {"x-client-request-id", "x-session-affinity"}),
        ("openrouter", {"x-session-id"}),
    ],
)
def test_session_affinity_formats(fmt: str, headers: set[str]) -> None:
    compat = resolve_compat(model(sendSessionAffinityHeaders=True, sessionAffinityFormat=fmt))
    assert set(affinity(compat, StreamOptions(session_id="s"))) == headers


def test_non_null_assistant_content_and_tools_with_tool_history() -> None:
    turn = pi_sdk.AssistantMessage(
        api=BASE.api,
        provider=BASE.provider,
        model=BASE.id,
        content=[ToolCall(id="c1", name="t", arguments={})],
        stop_reason="toolUse",
    )
    result = pi_sdk.ToolResultMessage(tool_call_id="c1", tool_name="t", content=[])
    context = Context(messages=[UserMessage(content="go"), turn, result])
    plain = body(model(), context)
    assert plain["messages"][1]["content"] is None and "tools" not in plain
    assert plain["messages"][2]["content"] == "(no tool output)"
    strict = body(
        model(requiresNonNullAssistantContent=True, requiresToolsWithToolHistory=True), context
    )
    assert strict["messages"][1]["content"] == "" and strict["tools"] == []


@pytest.mark.parametrize(
    ("compat", "match"),
    [
        (
            {"chatTemplateKwargs": {"x": {"$var": "thinking.nope"}}},
            "chatTemplateKwargs|chat_template_kwargs",
        ),
        ({"thinkingTokenBudgetField": "budget"}, "thinking_token_budget_field"),
        ({"vllmPriority": "high"}, "vllm_priority"),
        ({"sessionAffinityFormat": "sticky"}, "session_affinity_format"),
        ({"thinkingFormat": "magic"}, "thinking_format"),
    ],
)
def test_bad_values_are_refused(compat: dict[str, Any], match: str) -> None:
    with pytest.raises(pi_sdk.ConfigurationError, match=match):
        resolve_compat(model(**compat))


@pytest.mark.parametrize(
    ("compat", "said"),
    [
        ({"chatTemplateKwargs": ["a"]}, "chat_template_kwargs must be an object, got ['a']"),
        ({"chatTemplateArgs": "x"}, "chat_template_args must be an object, got 'x'"),
        ({"chatTemplateKwargs": {"k": [1]}}, "chat_template_kwargs['k'] is not JSON: [1]"),
        ({"chatTemplateArgs": {"k": {"$var": 1}}},
         "chat_template_args['k'] must be a string, number, boolean, null or {'$var': "),
        ({"reasoningEffortMap": "high"}, "reasoning_effort_map must be an object, got 'high'"),
        ({"openRouterRouting": ["x"]}, "open_router_routing must be an object, got ['x']"),
        ({"vercelGatewayRouting": 3}, "vercel_gateway_routing must be an object, got 3"),
        ({"vllmPriority": True}, "vllm_priority must be a number, got True"),
        ({"supportsStore": "no"}, "supports_store must be true or false, got 'no'"),
        ({"noSuchFlag": True}, "unknown flag 'noSuchFlag' (known: "),
    ],
    ids=lambda v: next(iter(v)) if isinstance(v, dict) else None,
)  # fmt: skip
def test_every_kind_of_bad_value_is_refused_with_its_own_text(
    compat: dict[str, Any], said: str
) -> None:
    with pytest.raises(pi_sdk.ConfigurationError) as refused:
        resolve_compat(model(**compat))
    assert str(refused.value).startswith(f"model.compat: {said}")


def test_template_values_of_every_json_kind_and_variables_are_taken() -> None:
    kwargs = {"s": "x", "i": 1, "f": 0.5, "b": False, "n": None,
              "v": {"$var": "thinking.enabled"}}  # fmt: skip
    compat = resolve_compat(model(chatTemplateKwargs=kwargs, vllmPriority=2.5, supportsStore=None))
    assert compat.chat_template_kwargs == kwargs and compat.vllm_priority == 2.5


def test_the_catalogs_new_formats_build_pi_ais_bodies() -> None:
    catalog = {(m.provider, m.id): m for m in pi_sdk.get_models("together")}
    glm = catalog[("together", "zai-org/GLM-5.2")]
    on = body(glm, reasoning="high")
    assert on["reasoning"] == {"enabled": True} and "reasoning_effort" not in on
    assert body(glm)["reasoning"] == {"enabled": False}
    baseten = {m.id: m for m in pi_sdk.get_models("baseten")}["zai-org/GLM-5.2"]
    sent = body(baseten, reasoning="high")
    assert sent["chat_template_args"] == {"enable_thinking": True}
    assert sent["reasoning_effort"] == "high"
    assert body(baseten)["reasoning_effort"] == "none"  # the level map's "off"
    ring = {m.id: m for m in pi_sdk.get_models("ant-ling")}["Ring-2.6-1T"]
    assert body(ring, reasoning="high")["reasoning"] == {"effort": "high"}
    # "low" has no value in its map: clamped up to "high" first (pi-ai clampThinkingLevel)
    assert body(ring, reasoning="low")["reasoning"] == {"effort": "high"}
