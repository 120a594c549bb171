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
from typing import Any, Literal, TypeAlias, cast, get_args

from pi_sdk import ConfigurationError, Model

from .._shared_hosts import is_local_base_url
from ._reasoning_replay import reasoning_replay

__all__ = [
    "CacheControlFormat",
    "CompletionsCompat",
    "MaxTokensField",
    "PromptCacheKeyMode",
    "SessionAffinityFormat",
    "ThinkingFormat",
    "ThinkingTokenBudgetField",
    "detect_compat",
    "resolve_compat",
]

MaxTokensField: TypeAlias = Literal["max_completion_tokens", "max_tokens"]
"""Request field that carries the output token cap."""

ThinkingFormat: TypeAlias = Literal[
    "openai",
    "openrouter",
    "deepseek",
    "together",
    "baseten",
    "zai",
    "qwen",
    "chat-template",
    "qwen-chat-template",
    "string-thinking",
    "ant-ling",
]
"""How reasoning is switched on (pi-ai 1.6 ``buildParams``; the request side is
:mod:`pi_sdk_openai.completions._reasoning_switch`):

* ``openai``: ``reasoning_effort``; with reasoning off, the model's ``thinking_level_map["off"]``
  when it is a string.
* ``openrouter``: ``reasoning: {effort}``; off: ``{effort: map.off or "none"}``, nothing when
  the map says ``off: null``.
* ``deepseek``: ``thinking: {type: enabled|disabled}`` plus ``reasoning_effort``.
* ``together``: ``reasoning: {enabled}`` plus ``reasoning_effort``.
* ``baseten``: ``chat_template_args`` (:attr:`CompletionsCompat.chat_template_args`) plus
  ``reasoning_effort``.
* ``zai``: ``thinking: {type: enabled, clear_thinking: false}`` or ``{type: disabled}``.
* ``qwen``: top-level ``enable_thinking`` plus ``reasoning_effort``.
* ``chat-template``: ``chat_template_kwargs`` (:attr:`CompletionsCompat.chat_template_kwargs`).
* ``qwen-chat-template``: ``chat_template_kwargs: {enable_thinking, preserve_thinking: true}``
  (vLLM/SGLang serving Qwen3).
* ``string-thinking``: top-level ``thinking`` holding the level (or the off value).
* ``ant-ling``: ``reasoning: {effort}`` only when the model's map gives the level a value.

``reasoning_effort`` goes only where :attr:`CompletionsCompat.supports_reasoning_effort`."""

SessionAffinityFormat: TypeAlias = Literal["openai", "openai-nosession", "openrouter"]
"""Session-affinity headers: ``openai`` sends ``session_id``, ``x-client-request-id`` and
``x-session-affinity``; ``openai-nosession`` the last two; ``openrouter`` ``x-session-id``."""

PromptCacheKeyMode: TypeAlias = Literal["auto", "enabled", "disabled"]
"""``prompt_cache_key``: ``auto`` sends it to api.openai.com, or with long retention where that
is supported; ``enabled`` whenever caching is on; ``disabled`` never."""

ThinkingTokenBudgetField: TypeAlias = Literal[
    "thinking_token_budget", "thinking_budget", "thinking_budget_tokens"
]
"""Top-level field capping reasoning tokens: vLLM, Qwen/DashScope/SGLang, llama.cpp."""

CacheControlFormat: TypeAlias = Literal["anthropic"]
"""Anthropic-style ``cache_control`` markers in a Chat Completions body (OpenRouter serving
Claude): on the system prompt, the last tool and the last user/assistant text."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CompletionsCompat:
    """Resolved compatibility flags for one ``openai-completions`` model (pi-spec §1.7)."""

    supports_store: bool = True
    """Send ``store: false`` (OpenAI stores completions for 30 days unless told not to)."""
    supports_developer_role: bool = True
    """Send the system prompt of a reasoning model as role ``developer`` instead of ``system``
    (detected only for OpenAI's own API: other hosts' chat templates often reject it)."""
    supports_reasoning_effort: bool = True
    """Send ``reasoning_effort`` (only with ``thinking_format == "openai"``)."""
    reasoning_effort_map: Mapping[str, str] = field(default_factory=dict[str, str])
    """Maps a pi level (``minimal``..``xhigh``) to the server's value; others pass as is."""
    supports_usage_in_streaming: bool = True
    """Send ``stream_options: {include_usage: true}`` so the last chunk reports usage."""
    supports_finish_reason: bool = True
    """The server sends ``finish_reason``. When false, a stream that ends without one is a
    ``toolUse`` (tool calls streamed) or ``stop`` reply. pi-sdk accepts a stream without
    ``finish_reason`` as complete either way (see docs/pi-ai-differences.md)."""
    max_tokens_field: MaxTokensField = "max_completion_tokens"
    """Field for the output token cap."""
    requires_tool_result_name: bool = False
    """Add ``name: <tool name>`` to ``role: tool`` messages."""
    requires_assistant_after_tool_result: bool = False
    """Insert an assistant turn between tool results and a following user message; send an
    assistant message without text as ``content: ""`` instead of ``null``."""
    requires_non_null_assistant_content: bool = False
    """Send an assistant message without text (tool calls only) as ``content: ""``."""
    requires_tools_with_tool_history: bool = False
    """Send ``tools: []`` when the request has no tools but the history has tool calls or
    results (older LiteLLM in front of Anthropic requires it)."""
    requires_thinking_as_text: bool = False
    """Replay earlier thinking as plain text instead of in a reasoning field."""
    thinking_format: ThinkingFormat = "openai"
    """How reasoning is requested (see :data:`ThinkingFormat`)."""
    chat_template_kwargs: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """``chat_template_kwargs`` for thinking format ``chat-template``. A value may be
    ``{"$var": "thinking.enabled" | "thinking.effort" | "thinking.budget", "omitWhenOff"?: bool}``,
    filled per request: whether reasoning is on, the level (the model's mapped value), the
    token budget; ``omitWhenOff`` leaves the key out with reasoning off."""
    chat_template_args: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """The same for thinking format ``baseten``, sent as ``chat_template_args``."""
    thinking_token_budget_field: ThinkingTokenBudgetField | None = None
    """Top-level field that caps reasoning tokens (:data:`ThinkingTokenBudgetField`): the level's
    budget (``thinking_budgets``, pi's defaults) fitted under the output cap with 1,024 tokens
    left for the answer."""
    supports_thinking_token_budget: bool = False
    """Alias for ``thinking_token_budget_field="thinking_token_budget"`` (vLLM)."""
    supports_openai_grammar_tools: bool = False
    """Grammar tools go as OpenAI custom tools with their Lark/regex grammar
    (docs/constrained-tools.md)."""
    open_router_routing: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """OpenRouter provider routing (``{"only": [...], "order": [...]}``), sent as top-level
    ``provider`` when the base URL is openrouter.ai."""
    vercel_gateway_routing: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """Vercel AI Gateway routing, sent as ``providerOptions.gateway`` for ai-gateway.vercel.sh."""
    supports_strict_mode: bool = False
    """Send ``strict`` in each tool definition (``true`` for strict tools, else ``false``); when
    false the key is left out and strict tools are unsupported (pi-ai 1.6: off unless the
    catalog or ``model.compat`` says the server takes it)."""
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
    """Send ``options.session_id`` in session-affinity headers (:attr:`session_affinity_format`),
    so a load balancer keeps a session on one cache; detected for OpenRouter."""
    session_affinity_format: SessionAffinityFormat = "openai"
    """Which headers (:data:`SessionAffinityFormat`); ``openrouter`` detected for OpenRouter."""
    prompt_cache_key_mode: PromptCacheKeyMode = "auto"
    """When ``prompt_cache_key`` is sent (:data:`PromptCacheKeyMode`)."""
    supports_long_cache_retention: bool = True
    """With cache retention ``"long"``: send ``prompt_cache_key`` (the session id) and
    ``prompt_cache_retention: "24h"``; false for Together, Cloudflare, NVIDIA and Ant Ling."""
    supports_mid_convo_system_messages: bool = False
    """Send a later :class:`pi_sdk.SystemMessage` in place (a ``system``/``developer`` message
    at its position) instead of replaying it into the leading prompt, so the cached prefix
    survives a prompt change (pi-ai 1.6; DeepSeek V4, Kimi K3)."""
    supports_mid_convo_tool_additions: bool = False
    """With :attr:`supports_mid_convo_system_messages`: declare tools a later system message
    adds in place, as a ``{"role": "system", "tools": [...]}`` message (Kimi K3; pi-ai 1.6);
    a removal or redefinition folds the tool state into the request's ``tools``."""
    vllm_priority: float | None = None
    """vLLM scheduler ``priority`` (lower is earlier), sent as given when set."""

    @property
    def budget_field(self) -> ThinkingTokenBudgetField | None:
        """The reasoning-budget field to send, or ``None``."""
        if self.thinking_token_budget_field is not None:
            return self.thinking_token_budget_field
        return "thinking_token_budget" if self.supports_thinking_token_budget else None

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
    "supportsFinishReason": "supports_finish_reason",
    "requiresNonNullAssistantContent": "requires_non_null_assistant_content",
    "requiresToolsWithToolHistory": "requires_tools_with_tool_history",
    "chatTemplateKwargs": "chat_template_kwargs",
    "chatTemplateArgs": "chat_template_args",
    "thinkingTokenBudgetField": "thinking_token_budget_field",
    "supportsThinkingTokenBudget": "supports_thinking_token_budget",
    "supportsOpenAIGrammarTools": "supports_openai_grammar_tools",
    "supportsMidConvoSystemMessages": "supports_mid_convo_system_messages",
    "supportsMidConvoToolAdditions": "supports_mid_convo_tool_additions",
    "sessionAffinityFormat": "session_affinity_format",
    "promptCacheKeyMode": "prompt_cache_key_mode",
    "vllmPriority": "vllm_priority",
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
}
_FIELDS = {f.name: f for f in dataclasses.fields(CompletionsCompat)}
_CHOICES: dict[str, tuple[str, ...]] = {
    "max_tokens_field": get_args(MaxTokensField),
    "thinking_format": get_args(ThinkingFormat),
    "cache_control_format": get_args(CacheControlFormat),
    "session_affinity_format": get_args(SessionAffinityFormat),
    "prompt_cache_key_mode": get_args(PromptCacheKeyMode),
    "thinking_token_budget_field": get_args(ThinkingTokenBudgetField),
}
_VAR_NAMES = ("thinking.enabled", "thinking.effort", "thinking.budget")


def detect_compat(model: Model) -> CompletionsCompat:
    """Return the flags auto-detected from ``model.provider``, ``model.base_url`` and ``model.id``.

    Rules (pi-ai 1.6 ``detectCompat``, plus local servers and Kimi's reasoning replay):

    * z.ai (``zai``, ``zai-coding-cn``, ``api.z.ai``, ``open.bigmodel.cn``): thinking format
      ``zai``, ``max_tokens``, no ``reasoning_effort``.
    * DeepSeek (``deepseek`` or ``deepseek.com``): thinking format ``deepseek``, ``max_tokens``,
      ``reasoning_content`` on every assistant message.
    * Together (``together``, ``api.together.ai``/``.xyz``): format ``together``, ``max_tokens``,
      no ``reasoning_effort``, no long cache retention.
    * Ant Ling (``ant-ling``, ``api.ant-ling.com``): format ``ant-ling``, the same limits.
    * OpenRouter (``openrouter`` or ``openrouter.ai``): format ``openrouter``, session affinity
      on (``x-session-id``); its ``anthropic/*`` models get ``cache_control_format="anthropic"``.
    * Moonshot (``moonshotai``/``moonshotai-cn``, ``api.moonshot.``), NVIDIA
      (``integrate.api.nvidia.com``), Cloudflare AI Gateway: ``max_tokens``, no
      ``reasoning_effort``; NVIDIA and Cloudflare no long cache retention.
    * xAI/Grok: no ``reasoning_effort``. chutes.ai: ``max_tokens``.
    * "Non-standard" servers get no ``store``: NVIDIA, Cerebras, xAI, Together, chutes.ai,
      DeepSeek, z.ai, Moonshot, opencode, Cloudflare, Ant Ling, and servers on this machine
      (localhost: Ollama, LM Studio, llama.cpp, vLLM), which also get ``max_tokens``, the field
      all four document (pi-sdk's rule; pi-ai has none).
    * The ``developer`` role only for OpenAI's own API (``openai`` or ``api.openai.com``).
    * Groq serving ``qwen/qwen3-32b``: every effort level maps to ``"default"``.
    * Reasoning replay (``requires_reasoning_content*``): the table of
      :mod:`pi_sdk_openai.completions._reasoning_replay` (DeepSeek as pi-ai; Kimi on tool-call
      turns is pi-sdk's own).
    """
    provider = model.provider
    url = model.base_url
    zai = provider in ("zai", "zai-coding-cn") or "api.z.ai" in url or "open.bigmodel.cn" in url
    together = provider == "together" or "api.together.ai" in url or "api.together.xyz" in url
    moonshot = provider in ("moonshotai", "moonshotai-cn") or "api.moonshot." in url
    openrouter = provider == "openrouter" or "openrouter.ai" in url
    cf_workers = provider == "cloudflare-workers-ai" or "api.cloudflare.com" in url
    cf_gateway = provider == "cloudflare-ai-gateway" or "gateway.ai.cloudflare.com" in url
    nvidia = provider == "nvidia" or "integrate.api.nvidia.com" in url
    ant_ling = provider == "ant-ling" or "api.ant-ling.com" in url
    cerebras = provider == "cerebras" or "cerebras.ai" in url
    deepseek = provider == "deepseek" or "deepseek.com" in url.lower()
    grok = provider == "xai" or "api.x.ai" in url
    groq = provider == "groq" or "groq.com" in url
    chutes = "chutes.ai" in url
    local = is_local_base_url(url)
    non_standard = (
        nvidia
        or cerebras
        or grok
        or together
        or chutes
        or deepseek
        or zai
        or moonshot
        or provider == "opencode"
        or "opencode.ai" in url
        or cf_workers
        or cf_gateway
        or ant_ling
        or local
    )
    use_max_tokens = (
        chutes or deepseek or moonshot or cf_gateway or together or nvidia or ant_ling or zai
    )
    effort_map: dict[str, str] = {}
    if groq and model.id == "qwen/qwen3-32b":
        effort_map = dict.fromkeys(("minimal", "low", "medium", "high", "xhigh"), "default")
    thinking_format: ThinkingFormat = "openai"
    if deepseek:
        thinking_format = "deepseek"
    elif zai:
        thinking_format = "zai"
    elif together:
        thinking_format = "together"
    elif ant_ling:
        thinking_format = "ant-ling"
    elif openrouter:
        thinking_format = "openrouter"
    replay = reasoning_replay(model)
    return CompletionsCompat(
        supports_store=not non_standard,
        supports_developer_role=(provider == "openai" or "api.openai.com" in url) and not local,
        supports_reasoning_effort=not (
            grok or zai or moonshot or together or cf_gateway or nvidia or ant_ling
        ),
        reasoning_effort_map=effort_map,
        max_tokens_field="max_tokens" if use_max_tokens or local else "max_completion_tokens",
        thinking_format=thinking_format,
        requires_reasoning_content=replay is not None and replay.messages == "tool_calls",
        requires_reasoning_content_on_assistant_messages=(
            replay is not None and replay.messages == "assistant"
        ),
        cache_control_format=(
            "anthropic" if provider == "openrouter" and model.id.startswith("anthropic/") else None
        ),
        send_session_affinity_headers=openrouter,
        session_affinity_format="openrouter" if openrouter else "openai",
        supports_long_cache_retention=not (
            together or cf_workers or cf_gateway or nvidia or ant_ling
        ),
    )


def _check_template_values(name: str, value: Any) -> None:
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"model.compat: {name} must be an object, got {value!r}")
    for key, item in cast("Mapping[str, Any]", value).items():
        if isinstance(item, Mapping):
            var = cast("Mapping[str, Any]", item).get("$var")
            if var not in _VAR_NAMES:
                raise ConfigurationError(
                    f"model.compat: {name}[{key!r}] must be a string, number, boolean, null or"
                    f" {{'$var': one of {', '.join(_VAR_NAMES)}}}, got {item!r}"
                )
        elif item is not None and not isinstance(item, str | int | float | bool):
            raise ConfigurationError(f"model.compat: {name}[{key!r}] is not JSON: {item!r}")


def _check(name: str, value: Any) -> None:
    default = _FIELDS[name].default
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            raise ConfigurationError(
                f"model.compat: {name} must be one of {', '.join(_CHOICES[name])}, got {value!r}"
            )
    elif name in ("chat_template_kwargs", "chat_template_args"):
        _check_template_values(name, value)
    elif name == "vllm_priority":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigurationError(f"model.compat: {name} must be a number, got {value!r}")
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
