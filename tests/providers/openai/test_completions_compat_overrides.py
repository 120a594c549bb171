"""Every Chat Completions compat key, camelCase and snake_case, overrides its own flag alone.

``resolve_compat`` puts ``model.compat`` over the detected flags (pi-ai 1.6: a set flag wins
over ``detectCompat``). Each boolean key is set both ways on a host whose detected flags are
known, and the whole flag set is compared: only the named field may change. Each string key
takes every value of its choice list. ``null`` means "not set" and the keys after it are still
read.
"""

from __future__ import annotations

import dataclasses
from typing import Any, get_args

import pytest
from pi_sdk_openai.completions import resolve_compat
from pi_sdk_openai.completions._compat import (
    CacheControlFormat,
    MaxTokensField,
    PromptCacheKeyMode,
    SessionAffinityFormat,
    ThinkingFormat,
    ThinkingTokenBudgetField,
)

from pi_sdk import Model

BOOLEANS = {
    "supportsStore": "supports_store",
    "supportsDeveloperRole": "supports_developer_role",
    "supportsReasoningEffort": "supports_reasoning_effort",
    "supportsUsageInStreaming": "supports_usage_in_streaming",
    "supportsFinishReason": "supports_finish_reason",
    "requiresToolResultName": "requires_tool_result_name",
    "requiresAssistantAfterToolResult": "requires_assistant_after_tool_result",
    "requiresNonNullAssistantContent": "requires_non_null_assistant_content",
    "requiresToolsWithToolHistory": "requires_tools_with_tool_history",
    "requiresThinkingAsText": "requires_thinking_as_text",
    "supportsThinkingTokenBudget": "supports_thinking_token_budget",
    "supportsOpenAIGrammarTools": "supports_openai_grammar_tools",
    "supportsStrictMode": "supports_strict_mode",
    "requiresReasoningContent": "requires_reasoning_content",
    "requiresReasoningContentOnAssistantMessages": (
        "requires_reasoning_content_on_assistant_messages"
    ),
    "zaiToolStream": "zai_tool_stream",
    "sendSessionAffinityHeaders": "send_session_affinity_headers",
    "supportsLongCacheRetention": "supports_long_cache_retention",
    "supportsMidConvoSystemMessages": "supports_mid_convo_system_messages",
    "supportsMidConvoToolAdditions": "supports_mid_convo_tool_additions",
}
CHOICES = {
    "maxTokensField": ("max_tokens_field", get_args(MaxTokensField)),
    "thinkingFormat": ("thinking_format", get_args(ThinkingFormat)),
    "cacheControlFormat": ("cache_control_format", get_args(CacheControlFormat)),
    "sessionAffinityFormat": ("session_affinity_format", get_args(SessionAffinityFormat)),
    "promptCacheKeyMode": ("prompt_cache_key_mode", get_args(PromptCacheKeyMode)),
    "thinkingTokenBudgetField": (
        "thinking_token_budget_field",
        get_args(ThinkingTokenBudgetField),
    ),
}


def _model(compat: dict[str, Any] | None = None) -> Model:
    return Model(
        id="m",
        api="openai-completions",
        provider="acme",
        base_url="https://llm.acme.test/v1",
        compat=compat,
    )


def _flags(compat: dict[str, Any] | None = None) -> dict[str, Any]:
    return dataclasses.asdict(resolve_compat(_model(compat)))


@pytest.mark.parametrize("key", list(BOOLEANS))
@pytest.mark.parametrize("value", [True, False])
@pytest.mark.parametrize("spelling", ["camel", "snake"])
def test_each_boolean_key_sets_its_own_flag_and_no_other(
    key: str, value: bool, spelling: str
) -> None:
    name = BOOLEANS[key]
    given = key if spelling == "camel" else name
    assert _flags({given: value}) == _flags() | {name: value}


@pytest.mark.parametrize("key", list(CHOICES))
def test_each_choice_key_takes_every_value_of_its_list(key: str) -> None:
    name, choices = CHOICES[key]
    assert len(choices) >= 1
    for choice in choices:
        assert _flags({key: choice}) == _flags() | {name: choice}
        assert _flags({name: choice}) == _flags() | {name: choice}


def test_number_and_object_keys_are_taken_as_given() -> None:
    compat = {
        "vllmPriority": -3,
        "reasoningEffortMap": {"high": "max"},
        "openRouterRouting": {"only": ["a"]},
        "vercelGatewayRouting": {"order": ["b"]},
        "chatTemplateArgs": {"enable_thinking": {"$var": "thinking.enabled"}},
    }
    assert _flags(compat) == _flags() | {
        "vllm_priority": -3,
        "reasoning_effort_map": {"high": "max"},
        "open_router_routing": {"only": ["a"]},
        "vercel_gateway_routing": {"order": ["b"]},
        "chat_template_args": {"enable_thinking": {"$var": "thinking.enabled"}},
    }


def test_null_means_detected_and_later_keys_are_still_read() -> None:
    flags = _flags({"supportsStore": None, "thinkingFormat": None, "zaiToolStream": True})
    assert flags == _flags() | {"zai_tool_stream": True}


def test_the_budget_field_alias_and_reasoning_replay_either_flag() -> None:
    assert resolve_compat(_model()).budget_field is None
    alias = resolve_compat(_model({"supportsThinkingTokenBudget": True}))
    assert alias.budget_field == "thinking_token_budget"
    named = {"supportsThinkingTokenBudget": True, "thinkingTokenBudgetField": "thinking_budget"}
    assert resolve_compat(_model(named)).budget_field == "thinking_budget"
    assert resolve_compat(_model()).replays_reasoning_content is False
    for key in ("requiresReasoningContent", "requiresReasoningContentOnAssistantMessages"):
        assert resolve_compat(_model({key: True})).replays_reasoning_content is True


def test_a_host_no_rule_knows_gets_every_default() -> None:
    # pi-ai 1.6 getCompat/detectCompat for an unknown host, plus pi-sdk's own flags off.
    assert _flags() == {
        "supports_store": True,
        "supports_developer_role": False,  # only OpenAI's own API
        "supports_reasoning_effort": True,
        "reasoning_effort_map": {},
        "supports_usage_in_streaming": True,
        "supports_finish_reason": True,
        "max_tokens_field": "max_completion_tokens",
        "requires_tool_result_name": False,
        "requires_assistant_after_tool_result": False,
        "requires_non_null_assistant_content": False,
        "requires_tools_with_tool_history": False,
        "requires_thinking_as_text": False,
        "thinking_format": "openai",
        "chat_template_kwargs": {},
        "chat_template_args": {},
        "thinking_token_budget_field": None,
        "supports_thinking_token_budget": False,
        "supports_openai_grammar_tools": False,
        "open_router_routing": {},
        "vercel_gateway_routing": {},
        "supports_strict_mode": False,
        "requires_reasoning_content": False,
        "requires_reasoning_content_on_assistant_messages": False,
        "zai_tool_stream": False,
        "cache_control_format": None,
        "send_session_affinity_headers": False,
        "session_affinity_format": "openai",
        "prompt_cache_key_mode": "auto",
        "supports_long_cache_retention": True,
        "supports_mid_convo_system_messages": False,
        "supports_mid_convo_tool_additions": False,
        "vllm_priority": None,
    }
