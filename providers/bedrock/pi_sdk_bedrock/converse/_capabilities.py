"""Bedrock model capabilities read from the model id/name (pi-mono ``amazon-bedrock.ts``)."""

from __future__ import annotations

import re

import pi_sdk

__all__ = ["is_adaptive", "is_claude", "supports_prompt_caching"]

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


def is_adaptive(model: pi_sdk.Model) -> bool:
    """Opus 4.6/4.7 and Sonnet 4.6 take ``thinking: {"type": "adaptive"}`` (pi-mono)."""
    return any(m in c for c in _candidates(model) for m in ("opus-4-6", "opus-4-7", "sonnet-4-6"))


def supports_prompt_caching(model: pi_sdk.Model) -> bool:
    """Claude 4.x, 3.7 Sonnet and 3.5 Haiku take ``cachePoint`` blocks (pi-mono).

    Amazon Nova caches by itself. For an application inference profile whose ARN names no
    model, ``model.compat["cache_points"] = True`` forces cache points (pi-mono:
    ``AWS_BEDROCK_FORCE_CACHE=1``).
    """
    if (model.compat or {}).get("cache_points") is True:
        return True
    candidates = _candidates(model)
    if not any("claude" in c for c in candidates):
        return False
    markers = ("-4-", "claude-3-7-sonnet", "claude-3-5-haiku")
    return any(m in c for c in candidates for m in markers)
