"""Bedrock model capabilities read from the model id/name (pi-mono ``amazon-bedrock.ts``)."""

from __future__ import annotations

import re
from typing import Any

import pi_sdk

__all__ = [
    "binds_thinking",
    "effort_of",
    "is_adaptive",
    "is_claude",
    "openai_reasoning",
    "supports_prompt_caching",
]

_SEPARATORS = re.compile(r"[\s_.:]+")


def _candidates(model: pi_sdk.Model) -> list[str]:
    """Model id and name, lower-cased, also with whitespace/``_.:`` runs as ``-`` (pi-mono)."""
    values = [model.id, model.name] if model.name else [model.id]
    out: list[str] = []
    for value in values:
        lower = value.lower()
        out += [lower, _SEPARATORS.sub("-", lower)]
    return out


def is_claude(model: pi_sdk.Model) -> bool:
    """True for an Anthropic Claude model (id or name; application inference profiles)."""
    name = model.name.lower()
    return "anthropic.claude" in model.id.lower() or "claude" in name


_ADAPTIVE = ("opus-4-6", "opus-4-7", "opus-4-8", "opus-5", "sonnet-4-6", "sonnet-5", "haiku-5")
_NATIVE_XHIGH = ("opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "haiku-5", "fable-5")
_EFFORTS = {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}
_GPT_EFFORTS = {"minimal": "low", "xhigh": "xhigh", "max": "max"}
"""OpenAI GPT models on Bedrock reject ``minimal``; the other levels are sent as named."""
_GPT_OSS_EFFORTS = {"minimal": "low", "xhigh": "high", "max": "high"}
"""gpt-oss takes only low, medium and high."""


def _matches(model: pi_sdk.Model, markers: tuple[str, ...]) -> bool:
    return any(m in c for c in _candidates(model) for m in markers)


def is_adaptive(model: pi_sdk.Model) -> bool:
    """Claude 4.6+ takes ``thinking: {"type": "adaptive"}`` with an effort.

    Opus 4.6 / 4.7 / 4.8 / 5, Sonnet 4.6 / 5, Haiku 5, Fable 5 (pi-ai 1.6
    ``supportsAdaptiveThinking``).
    """
    return _matches(model, (*_ADAPTIVE, "fable-5"))


def binds_thinking(model: pi_sdk.Model) -> bool:
    """Claude models that take ``thinking.block_binding``.

    pi-ai 1.6: Opus 4.7+, Sonnet 5, Haiku 5, Fable 5; Opus and Sonnet 4.6 reject it.
    """
    return _matches(model, _NATIVE_XHIGH)


def effort_of(model: pi_sdk.Model, level: str) -> str:
    """The ``output_config.effort`` of ``level`` on an adaptive Claude model (pi-ai 1.6).

    ``xhigh`` where the model has it natively (Opus 4.7+, Sonnet 5, Haiku 5, Fable 5); else the
    model's ``thinkingLevelMap`` entry (``max: "max"`` on the models that have it); else
    minimal/low -> ``low``, medium, and ``high`` for high and any level the map does not name
    (``xhigh``, ``max``).
    """
    if level == "xhigh" and _matches(model, _NATIVE_XHIGH):
        return "xhigh"
    mapped = (model.thinking_level_map or {}).get(level)
    if isinstance(mapped, str):
        return mapped
    return _EFFORTS.get(level, "high")


def openai_reasoning(model: pi_sdk.Model, level: str) -> dict[str, Any] | None:
    """``additionalModelRequestFields`` for an OpenAI model on Bedrock, else ``None``.

    gpt-oss: ``{"reasoning_effort": low | medium | high}`` (``xhigh`` and ``max`` as high);
    other GPT models: ``{"reasoning": {"effort": ...}}`` from the ``thinkingLevelMap``, else
    the level (``minimal`` as low). pi-ai 1.6 ``buildAdditionalModelRequestFields``.
    """
    if _matches(model, ("gpt-oss",)):
        return {"reasoning_effort": _GPT_OSS_EFFORTS.get(level, level)}
    if _matches(model, ("gpt-",)):
        mapped = (model.thinking_level_map or {}).get(level)
        effort = mapped if isinstance(mapped, str) else _GPT_EFFORTS.get(level, level)
        return {"reasoning": {"effort": effort}}
    return None


def compat_flag(model: pi_sdk.Model, key: str) -> bool | None:
    """``model.compat[key]``: true, false or ``None`` when absent (pi-ai 1.6 ``BedrockCompat``).

    Raises:
        ConfigurationError: the value is not true or false.
    """
    value = (model.compat or {}).get(key)
    if value is None or isinstance(value, bool):
        return value
    raise pi_sdk.ConfigurationError(f"model.compat: {key} must be true or false, got {value!r}")


def supports_prompt_caching(model: pi_sdk.Model) -> bool:
    """Claude 4.x, 3.7 Sonnet and 3.5 Haiku take ``cachePoint`` blocks (pi-mono).

    Amazon Nova caches by itself. For an application inference profile whose ARN names no
    model, ``model.compat["cache_points"] = True`` forces cache points (pi-mono:
    ``AWS_BEDROCK_FORCE_CACHE=1``).
    """
    if compat_flag(model, "cache_points") is True:
        return True
    candidates = _candidates(model)
    if not any("claude" in c for c in candidates):
        return False
    markers = ("-4-", "claude-3-7-sonnet", "claude-3-5-haiku")
    return any(m in c for c in candidates for m in markers)
