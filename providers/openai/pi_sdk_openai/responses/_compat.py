"""Responses compatibility flags (pi-ai 1.6 ``OpenAIResponsesCompat``), read from ``model.compat``.

pi-ai 1.6 gives the Responses APIs (``openai-responses``, ``azure-openai-responses``) twelve
flags; :func:`resolve_responses_compat` reads them with pi-ai's defaults (Azure's differ: strict
tools on, see :func:`resolve_responses_compat`). Flags for features pi-sdk does not have yet
(tool search, thinking-level changes as ``configuration_update`` items) are read and kept, so
the catalog's models load and the features have their switch ready; they change no request
today. A value of the wrong
type raises :class:`pi_sdk.ConfigurationError`; keys pi-ai does not define are left alone (pi's
compat objects are open).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pi_sdk import ConfigurationError, Model

__all__ = ["ResponsesCompat", "resolve_responses_compat"]

SessionAffinityFormat: TypeAlias = Literal["openai", "openai-nosession", "openrouter"]
PromptCacheKeyMode: TypeAlias = Literal["auto", "enabled", "disabled"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResponsesCompat:
    """Resolved flags for one Responses model (pi-ai 1.6 ``getCompat``)."""

    supports_developer_role: bool = True
    """The system prompt of a reasoning model goes as role ``developer``."""
    supports_mid_convo_system_messages: bool = False
    """Read for transcript system messages (issue 27 item 1); no effect yet."""
    session_affinity_format: SessionAffinityFormat = "openai"
    """Headers carrying ``options.session_id``: ``openai`` ``session-id`` and
    ``x-client-request-id``; ``openai-nosession`` the latter; ``openrouter`` ``x-session-id``."""
    prompt_cache_key_mode: PromptCacheKeyMode = "auto"
    """``disabled``: never send ``prompt_cache_key`` (proxies that reject it)."""
    supports_long_cache_retention: bool = True
    """Long retention sends ``prompt_cache_retention: "24h"`` (or ``prompt_cache_options``)."""
    supports_strict_mode: bool = False
    """Send ``strict`` on function tools: ``true`` for strict tools, else ``false``
    (docs/constrained-tools.md)."""
    supports_openai_grammar_tools: bool = False
    """Grammar tools go as OpenAI custom tools (docs/constrained-tools.md)."""
    supports_additional_tools: bool = False
    """No effect yet (message-anchored ``additional_tools``)."""
    supports_tool_search: bool = False
    """No effect yet (client-executed tool search)."""
    supports_explicit_prompt_cache_mode: bool = False
    """The model takes ``prompt_cache_options``: ``{mode: "explicit"}`` with retention
    ``"none"``, ``{ttl: "30m"}`` with long retention, instead of ``prompt_cache_retention``."""
    supports_mid_convo_effort: bool = False
    """No effect yet (thinking-level changes as ``configuration_update`` items)."""
    supports_max_output_tokens: bool = True
    """Send ``max_output_tokens`` (some Codex-protocol gateways reject it)."""


_FLAGS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "supportsDeveloperRole": ("supports_developer_role", None),
    "supportsMidConvoSystemMessages": ("supports_mid_convo_system_messages", None),
    "sessionAffinityFormat": (
        "session_affinity_format",
        ("openai", "openai-nosession", "openrouter"),
    ),
    "promptCacheKeyMode": ("prompt_cache_key_mode", ("auto", "enabled", "disabled")),
    "supportsLongCacheRetention": ("supports_long_cache_retention", None),
    "supportsStrictMode": ("supports_strict_mode", None),
    "supportsOpenAIGrammarTools": ("supports_openai_grammar_tools", None),
    "supportsAdditionalTools": ("supports_additional_tools", None),
    "supportsToolSearch": ("supports_tool_search", None),
    "supportsExplicitPromptCacheMode": ("supports_explicit_prompt_cache_mode", None),
    "supportsMidConvoEffort": ("supports_mid_convo_effort", None),
    "supportsMaxOutputTokens": ("supports_max_output_tokens", None),
}
"""pi-ai's key -> (field, allowed strings or ``None`` for a boolean)."""


def resolve_responses_compat(model: Model, *, azure: bool = False) -> ResponsesCompat:
    """The flags of ``model`` with pi-ai 1.6's defaults.

    Defaults: session affinity ``openrouter`` for OpenRouter (provider or ``openrouter.ai``),
    else ``openai``; ``supports_strict_mode`` true on Azure (pi-ai's Azure module), false
    elsewhere. pi-ai's ``supportsReasoningEffort`` and ``thinkingLevelMap`` keys in a Responses
    model's compat are left alone (the level map is read from ``model.thinking_level_map``).

    Raises:
        ConfigurationError: a known flag with a value of the wrong type.
    """
    openrouter = model.provider == "openrouter" or "openrouter.ai" in model.base_url
    values: dict[str, Any] = {
        "session_affinity_format": "openrouter" if openrouter else "openai",
        "supports_strict_mode": azure,
    }
    for key, value in (model.compat or {}).items():
        if key not in _FLAGS or value is None:
            continue
        name, choices = _FLAGS[key]
        if choices is None and not isinstance(value, bool):
            raise ConfigurationError(f"model.compat: {key} must be true or false, got {value!r}")
        if choices is not None and value not in choices:
            raise ConfigurationError(
                f"model.compat: {key} must be one of {', '.join(choices)}, got {value!r}"
            )
        values[name] = value
    return ResponsesCompat(**values)
