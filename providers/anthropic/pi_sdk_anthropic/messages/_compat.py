"""Anthropic Messages compatibility flags (pi-ai 1.6 ``AnthropicMessagesCompat``, 14 flags).

Read from ``model.compat`` with pi-ai 1.6's defaults (``getAnthropicCompat``). What each does in
the request: ``forceAdaptiveThinking`` (``thinking: {type: adaptive}`` plus ``output_config.effort``
instead of a token budget; without the key pi-sdk falls back to its id rule for hand-made
models), ``supportsTemperature``, ``supportsCacheControlOnTools``, ``supportsLongCacheRetention``
(``ttl: "1h"``), ``supportsEagerToolInputStreaming``, ``sendSessionAffinityHeaders`` /
``sessionAffinityFormat``, ``allowedFallbackModels`` (``fallbacks``), ``supportsStrictTools``
(strict tools, docs/constrained-tools.md). Read but without effect yet, because pi-sdk lacks the
feature: ``allowEmptySignature``, ``supportsMidConvoEffort`` (effort markers),
``supportsMidConvoSystemMessages`` / ``supportsMidConvoToolChanges`` (transcript system
messages, issue 27 item 1),
``supportsMessageThreads`` (threads). A mistyped value raises
:class:`pi_sdk.ConfigurationError`; unknown keys are left alone (pi's compat objects are open).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pi_sdk import ConfigurationError, Model, StreamOptions

from .._client import is_adaptive_model

__all__ = [
    "AnthropicCompat",
    "adaptive",
    "cache_control_of",
    "can_turn_off",
    "effort_of",
    "resolve_anthropic_compat",
]

_EFFORT_BY_LEVEL = {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}


@dataclass(frozen=True, slots=True, kw_only=True)
class AnthropicCompat:
    """Resolved flags for one ``anthropic-messages`` model."""

    force_adaptive_thinking: bool | None = None
    """``None``: the model's compat does not say (pi-sdk's id rule decides)."""
    supports_eager_tool_input_streaming: bool = True
    supports_long_cache_retention: bool = True
    send_session_affinity_headers: bool = False
    session_affinity_format: str | None = None
    """``"openrouter"`` sends ``x-session-id``; otherwise ``x-session-affinity``."""
    supports_cache_control_on_tools: bool = True
    supports_temperature: bool = True
    allow_empty_signature: bool = False
    supports_strict_tools: bool = False
    supports_mid_convo_effort: bool = False
    supports_mid_convo_system_messages: bool = False
    supports_mid_convo_tool_changes: bool = False
    supports_message_threads: bool = False
    allowed_fallback_models: tuple[str, ...] = field(default=())
    """Model ids Anthropic may fall back to on a server-side refusal (sent as ``fallbacks``)."""


_BOOLEAN_FLAGS = {
    "forceAdaptiveThinking": "force_adaptive_thinking",
    "supportsEagerToolInputStreaming": "supports_eager_tool_input_streaming",
    "supportsLongCacheRetention": "supports_long_cache_retention",
    "sendSessionAffinityHeaders": "send_session_affinity_headers",
    "supportsCacheControlOnTools": "supports_cache_control_on_tools",
    "supportsTemperature": "supports_temperature",
    "allowEmptySignature": "allow_empty_signature",
    "supportsStrictTools": "supports_strict_tools",
    "supportsMidConvoEffort": "supports_mid_convo_effort",
    "supportsMidConvoSystemMessages": "supports_mid_convo_system_messages",
    "supportsMidConvoToolChanges": "supports_mid_convo_tool_changes",
    "supportsMessageThreads": "supports_message_threads",
}


def _fallbacks(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise ConfigurationError(
            f"model.compat: allowedFallbackModels must be a list, got {value!r}"
        )
    models: list[str] = []
    for entry in value:  # pyright: ignore[reportUnknownVariableType]
        model = entry.get("model") if isinstance(entry, dict) else None  # pyright: ignore
        if not isinstance(model, str) or not model:
            raise ConfigurationError(
                f"model.compat: allowedFallbackModels entries need a 'model' id, got {entry!r}"
            )
        models.append(model)
    return tuple(models)


def resolve_anthropic_compat(model: Model) -> AnthropicCompat:
    """The flags of ``model`` with pi-ai 1.6's defaults.

    Session affinity is on, as ``openrouter``, for OpenRouter (provider or ``openrouter.ai``);
    message threads default to true on ``api.anthropic.com``.

    Raises:
        ConfigurationError: a known flag with a value of the wrong type.
    """
    openrouter = model.provider == "openrouter" or "openrouter.ai" in model.base_url
    values: dict[str, Any] = {
        "send_session_affinity_headers": openrouter,
        "session_affinity_format": "openrouter" if openrouter else None,
        "supports_message_threads": "api.anthropic.com" in model.base_url,
    }
    for key, value in (model.compat or {}).items():
        if value is None:
            continue
        if key in _BOOLEAN_FLAGS:
            if not isinstance(value, bool):
                raise ConfigurationError(
                    f"model.compat: {key} must be true or false, got {value!r}"
                )
            values[_BOOLEAN_FLAGS[key]] = value
        elif key == "sessionAffinityFormat":
            if value != "openrouter":
                raise ConfigurationError(
                    f"model.compat: sessionAffinityFormat must be 'openrouter', got {value!r}"
                )
            values["session_affinity_format"] = value
        elif key == "allowedFallbackModels":
            values["allowed_fallback_models"] = _fallbacks(value)
    return AnthropicCompat(**values)


def cache_control_of(options: StreamOptions, compat: AnthropicCompat) -> dict[str, Any] | None:
    """pi-ai 1.6 ``getCacheControl``: ``ttl: "1h"`` with long retention where supported."""
    retention = options.resolved_cache_retention()
    if retention == "none":
        return None
    control: dict[str, Any] = {"type": "ephemeral"}
    if retention == "long" and compat.supports_long_cache_retention:
        control["ttl"] = "1h"
    return control


def adaptive(model: Model, compat: AnthropicCompat) -> bool:
    """pi-ai 1.6: ``compat.forceAdaptiveThinking``; without the key, pi-sdk's id rule."""
    if compat.force_adaptive_thinking is not None:
        return compat.force_adaptive_thinking
    return is_adaptive_model(model)


def effort_of(model: Model, level: str) -> str:
    """pi-ai 1.6 ``mapThinkingLevelToEffort``: the model's level map, else low/medium/high."""
    mapped = (model.thinking_level_map or {}).get(level)
    if isinstance(mapped, str):
        return mapped
    if level == "xhigh" and "opus" in model.id and model.thinking_level_map is None:
        return "max"  # pi-sdk's rule for a hand-made Opus model without a level map
    return _EFFORT_BY_LEVEL.get(level, "high")


def can_turn_off(model: Model) -> bool:
    """False when the model's level map says thinking cannot be turned off (``off: null``)."""
    levels = model.thinking_level_map or {}
    return "off" not in levels or levels["off"] is not None
