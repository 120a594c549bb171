"""Chat Completions compatibility flags: what an OpenAI-compatible server accepts and sends.

Every server that speaks ``.../chat/completions`` differs a little from OpenAI: some reject the
``developer`` role or ``store``, some want ``max_tokens`` instead of ``max_completion_tokens``,
some switch reasoning on with their own field. :func:`resolve_compat` answers these questions for
one model: each flag is auto-detected from ``model.provider`` and ``model.base_url``
(pi-mono ``detectCompat``, pi-spec §1.7), and any flag set in ``model.compat`` wins.

``model.compat`` uses pi-mono's camelCase keys (``{"supportsStore": false}``); snake_case keys
(``supports_store``) are accepted too. An unknown key or a value of the wrong type raises
:class:`pi_sdk.ConfigurationError`, so a typo cannot be silently ignored.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pi_sdk import ConfigurationError, Model

from .._shared_hosts import is_local_base_url
from ._reasoning_replay import reasoning_replay

__all__ = [
    "CacheControlFormat",
    "CompletionsCompat",
    "MaxTokensField",
    "ThinkingFormat",
    "detect_compat",
    "resolve_compat",
]

MaxTokensField: TypeAlias = Literal["max_completion_tokens", "max_tokens"]
"""Request field that carries the output token cap."""

ThinkingFormat: TypeAlias = Literal[
    "openai", "zai", "qwen", "qwen-chat-template", "deepseek", "openrouter"
]
"""How reasoning is switched on: ``reasoning_effort`` (openai), top-level ``enable_thinking``
(zai, qwen), ``chat_template_kwargs.enable_thinking`` (qwen-chat-template: vLLM/SGLang
serving Qwen3), ``thinking: {type: enabled|disabled}`` plus ``reasoning_effort`` (deepseek), or
``reasoning: {effort}`` (openrouter; with reasoning off ``{effort: "none"}``, or the model's
``thinking_level_map["off"]``; nothing when that is ``None``). pi-ai 0.73 ``buildParams``."""

CacheControlFormat: TypeAlias = Literal["anthropic"]
"""Anthropic-style ``cache_control`` markers in a Chat Completions body (OpenRouter serving
Claude): on the system prompt, the last tool and the last user/assistant text."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CompletionsCompat:
    """Resolved compatibility flags for one ``openai-completions`` model (pi-spec §1.7)."""

    supports_store: bool = True
    """Send ``store: false`` (OpenAI stores completions for 30 days unless told not to)."""
    supports_developer_role: bool = True
    """Send the system prompt of a reasoning model as role ``developer`` instead of ``system``."""
    supports_reasoning_effort: bool = True
    """Send ``reasoning_effort`` (only with ``thinking_format == "openai"``)."""
    reasoning_effort_map: Mapping[str, str] = field(default_factory=dict[str, str])
    """Maps a pi level (``minimal``..``xhigh``) to the server's value; others pass as is."""
    supports_usage_in_streaming: bool = True
    """Send ``stream_options: {include_usage: true}`` so the last chunk reports usage."""
    max_tokens_field: MaxTokensField = "max_completion_tokens"
    """Field for the output token cap."""
    requires_tool_result_name: bool = False
    """Add ``name: <tool name>`` to ``role: tool`` messages."""
    requires_assistant_after_tool_result: bool = False
    """Insert an assistant turn between tool results and a following user message; send an
    assistant message without text as ``content: ""`` instead of ``null``."""
    requires_thinking_as_text: bool = False
    """Replay earlier thinking as plain text instead of in a reasoning field."""
    thinking_format: ThinkingFormat = "openai"
    """How reasoning is requested (see :data:`ThinkingFormat`)."""
    open_router_routing: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """OpenRouter provider routing (``{"only": [...], "order": [...]}``), sent as top-level
    ``provider`` when the base URL is openrouter.ai."""
    vercel_gateway_routing: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """Vercel AI Gateway routing, sent as ``providerOptions.gateway`` for ai-gateway.vercel.sh."""
    supports_strict_mode: bool = True
    """Send ``strict: false`` in each tool definition; when false the key is left out."""
    requires_reasoning_content: bool = False
    """Send ``reasoning_content`` (the turn's thinking, ``""`` if none) on every assistant message
    with tool calls (Kimi thinking models), and keep other models' thinking as reasoning when
    converting the history. Detected from :data:`~._reasoning_replay.REASONING_REPLAY`."""
    requires_reasoning_content_on_assistant_messages: bool = False
    """The same on every assistant message of a reasoning model (pi-ai 0.73's flag; DeepSeek
    thinking mode). Detected from :data:`~._reasoning_replay.REASONING_REPLAY`."""
    zai_tool_stream: bool = False
    """Send ``tool_stream: true`` with tools (z.ai GLM: stream tool-call arguments)."""
    cache_control_format: CacheControlFormat | None = None
    """Anthropic-style ``cache_control`` markers (see :data:`CacheControlFormat`); detected for
    OpenRouter's ``anthropic/*`` models. ``ttl: "1h"`` with long cache retention (when
    :attr:`supports_long_cache_retention`); none with retention ``"none"``."""
    send_session_affinity_headers: bool = False
    """Send ``options.session_id`` as the ``session_id``, ``x-client-request-id`` and
    ``x-session-affinity`` headers (unless cache retention is ``"none"``), so a load balancer keeps
    a session on one cache."""
    supports_long_cache_retention: bool = True
    """With cache retention ``"long"``: send ``prompt_cache_key`` (the session id) and
    ``prompt_cache_retention: "24h"``; false for Cloudflare Workers AI / AI Gateway."""
    supports_mid_convo_system_messages: bool = False
    """Send a later :class:`pi_sdk.SystemMessage` in place (a ``system``/``developer`` message
    at its position) instead of replaying it into the leading prompt, so the cached prefix
    survives a prompt change (pi-ai 1.6; DeepSeek V4, Kimi K3)."""
    supports_mid_convo_tool_additions: bool = False
    """With :attr:`supports_mid_convo_system_messages`: declare tools a later system message
    adds in place, as a ``{"role": "system", "tools": [...]}`` message (Kimi K3; pi-ai 1.6);
    a removal or redefinition folds the tool state into the request's ``tools``."""

    @property
    def replays_reasoning_content(self) -> bool:
        """True when earlier reasoning goes back in ``reasoning_content`` (either flag)."""
        return (
            self.requires_reasoning_content or self.requires_reasoning_content_on_assistant_messages
        )


_CAMEL = {
    "supportsStore": "supports_store",
    "supportsDeveloperRole": "supports_developer_role",
    "supportsReasoningEffort": "supports_reasoning_effort",
    "reasoningEffortMap": "reasoning_effort_map",
    "supportsUsageInStreaming": "supports_usage_in_streaming",
    "maxTokensField": "max_tokens_field",
    "requiresToolResultName": "requires_tool_result_name",
    "requiresAssistantAfterToolResult": "requires_assistant_after_tool_result",
    "requiresThinkingAsText": "requires_thinking_as_text",
    "thinkingFormat": "thinking_format",
    "openRouterRouting": "open_router_routing",
    "vercelGatewayRouting": "vercel_gateway_routing",
    "supportsStrictMode": "supports_strict_mode",
    "requiresReasoningContent": "requires_reasoning_content",
    "requiresReasoningContentOnAssistantMessages": (
        "requires_reasoning_content_on_assistant_messages"
    ),
    "zaiToolStream": "zai_tool_stream",
    "cacheControlFormat": "cache_control_format",
    "sendSessionAffinityHeaders": "send_session_affinity_headers",
    "supportsLongCacheRetention": "supports_long_cache_retention",
    "supportsMidConvoSystemMessages": "supports_mid_convo_system_messages",
    "supportsMidConvoToolAdditions": "supports_mid_convo_tool_additions",
}
_FIELDS = {f.name: f for f in dataclasses.fields(CompletionsCompat)}
_CHOICES: dict[str, tuple[str, ...]] = {
    "max_tokens_field": ("max_completion_tokens", "max_tokens"),
    "thinking_format": ("openai", "zai", "qwen", "qwen-chat-template", "deepseek", "openrouter"),
    "cache_control_format": ("anthropic",),
}


def detect_compat(model: Model) -> CompletionsCompat:
    """Return the flags auto-detected from ``model.provider``, ``model.base_url`` and ``model.id``.

    Rules (pi-mono ``detectCompat``, pi-spec §1.7, plus local servers):

    * z.ai (provider ``zai`` or ``api.z.ai``): thinking format ``zai``, no ``reasoning_effort``.
    * DeepSeek (provider ``deepseek`` or ``deepseek.com``): thinking format ``deepseek``.
    * OpenRouter (provider ``openrouter`` or ``openrouter.ai``): thinking format ``openrouter``;
      its ``anthropic/*`` models get ``cache_control_format="anthropic"``.
    * Moonshot (provider ``moonshotai``/``moonshotai-cn`` or ``api.moonshot.``): non-standard,
      ``max_tokens``, no ``reasoning_effort``, no ``strict``.
    * Cloudflare (``api.cloudflare.com``, ``gateway.ai.cloudflare.com``): no long cache
      retention.
    * Reasoning replay (``requires_reasoning_content*``): the table of
      :mod:`pi_sdk_openai.completions._reasoning_replay`.
    * xAI/Grok (provider ``xai`` or ``api.x.ai``): no ``reasoning_effort``.
    * Groq serving ``qwen/qwen3-32b``: every effort level maps to ``"default"``.
    * chutes.ai: ``max_tokens`` instead of ``max_completion_tokens``.
    * "Non-standard" servers get neither ``store`` nor the ``developer`` role: Cerebras, xAI,
      chutes.ai, DeepSeek, z.ai, opencode, and servers on this machine (localhost: Ollama,
      LM Studio, llama.cpp, vLLM). Local servers also get ``max_tokens``, the field all four
      document (pi-mono has no local-server rule).
    """
    provider = model.provider
    url = model.base_url
    zai = provider == "zai" or "api.z.ai" in url
    grok = provider == "xai" or "api.x.ai" in url
    groq = provider == "groq" or "groq.com" in url
    chutes = "chutes.ai" in url
    local = is_local_base_url(url)
    deepseek = provider == "deepseek" or "deepseek.com" in url
    openrouter = provider == "openrouter" or "openrouter.ai" in url
    moonshot = provider in ("moonshotai", "moonshotai-cn") or "api.moonshot." in url
    cloudflare = "api.cloudflare.com" in url or "gateway.ai.cloudflare.com" in url
    non_standard = (
        zai
        or grok
        or chutes
        or local
        or moonshot
        or provider in ("cerebras", "opencode", "deepseek")
        or any(host in url for host in ("cerebras.ai", "deepseek.com", "opencode.ai"))
    )
    effort_map: dict[str, str] = {}
    if groq and model.id == "qwen/qwen3-32b":
        effort_map = dict.fromkeys(("minimal", "low", "medium", "high", "xhigh"), "default")
    thinking_format: ThinkingFormat = "openai"
    if deepseek:
        thinking_format = "deepseek"
    elif zai:
        thinking_format = "zai"
    elif openrouter:
        thinking_format = "openrouter"
    replay = reasoning_replay(model)
    return CompletionsCompat(
        supports_store=not non_standard,
        supports_developer_role=not non_standard,
        supports_reasoning_effort=not (grok or zai or moonshot),
        reasoning_effort_map=effort_map,
        max_tokens_field="max_tokens" if chutes or local or moonshot else "max_completion_tokens",
        thinking_format=thinking_format,
        supports_strict_mode=not moonshot,
        requires_reasoning_content=replay is not None and replay.messages == "tool_calls",
        requires_reasoning_content_on_assistant_messages=(
            replay is not None and replay.messages == "assistant"
        ),
        cache_control_format=(
            "anthropic" if provider == "openrouter" and model.id.startswith("anthropic/") else None
        ),
        supports_long_cache_retention=not cloudflare,
    )


def _check(name: str, value: Any) -> None:
    default = _FIELDS[name].default
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            raise ConfigurationError(
                f"model.compat: {name} must be one of {', '.join(_CHOICES[name])}, got {value!r}"
            )
    elif isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigurationError(f"model.compat: {name} must be true or false, got {value!r}")
    elif not isinstance(value, Mapping):
        raise ConfigurationError(f"model.compat: {name} must be an object, got {value!r}")


def resolve_compat(model: Model) -> CompletionsCompat:
    """Return the detected flags with ``model.compat`` applied on top.

    Raises:
        ConfigurationError: ``model.compat`` has an unknown key or a value of the wrong type.
    """
    detected = detect_compat(model)
    if not model.compat:
        return detected
    overrides: dict[str, Any] = {}
    for key, value in model.compat.items():
        name = _CAMEL.get(key, key)
        if name not in _FIELDS:
            known = ", ".join(sorted(_CAMEL))
            raise ConfigurationError(f"model.compat: unknown flag {key!r} (known: {known})")
        if value is None:
            continue
        _check(name, value)
        overrides[name] = value
    return dataclasses.replace(detected, **overrides)
