"""Gemini's ``thinkingConfig`` from ``StreamOptions.reasoning`` (pi-ai 1.6 ``streamSimple``).

The requested level is first clamped to the model's supported levels
(:meth:`pi_sdk.Model.clamp_thinking_level`: ``xhigh`` and ``max`` exist only where the model's
``thinkingLevelMap`` names them, otherwise the nearest supported level, ``high`` for a model
without a map), then mapped through that map to one of Gemini's levels (``minimal`` .. ``high``;
pi-ai 1.6 ``resolveGoogleThinkingLevel``). Gemini 3 Pro / Flash, Gemini 4+, Gemma 4 and the
``gemini-flash(-lite)-latest`` aliases take it as ``thinkingLevel`` (pi-ai 1.6
``usesGoogleThinkingLevel``); other models as a ``thinkingBudget`` in tokens
(``options.thinking_budgets``, else 128/2048/8192/32768 for 2.5 Pro, 512/2048/8192/24576 for
2.5 Flash-Lite, 128/2048/8192/24576 for 2.5 Flash, else -1: dynamic). Google docs, "Gemini
thinking": ``thinkingLevel`` and ``thinkingBudget``.

pi-sdk's rules for models without a ``thinkingLevelMap`` (hand-made models; pi-ai 0.73's):
Gemini 3 Pro takes ``LOW`` (minimal, low) or ``HIGH`` (medium and up), and reasoning off sends
the lowest level the family accepts (:func:`disabled_thinking_config`).
"""

from __future__ import annotations

import re
from typing import Any

from pi_sdk import ConfigurationError, Model, StreamOptions

__all__ = ["disabled_thinking_config", "thinking_config", "uses_thinking_level"]

_GEMINI3_PRO = re.compile(r"gemini-3(?:\.\d+)?-pro")
_GEMINI3_FLASH = re.compile(r"gemini-3(?:\.\d+)?-flash")
_GEMMA4 = re.compile(r"gemma-?4")
_LEVEL_FAMILIES = re.compile(r"gemini-3(?:\.\d+)?-(?:pro|flash)|gemini-(?:[4-9]|[1-9]\d)|gemma-?4")
_GOOGLE_LEVELS = ("minimal", "low", "medium", "high")
_BUDGETS = (  # pi-ai 1.6's Gemini API table, on Vertex too (pi-ai's Vertex table has no
    # Flash-Lite row, so Flash-Lite took 2.5 Flash's minimal 128, under its 512 floor)
    ("2.5-pro", {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}),
    ("2.5-flash-lite", {"minimal": 512, "low": 2048, "medium": 8192, "high": 24576}),
    ("2.5-flash", {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}),
)


def uses_thinking_level(model: Model) -> bool:
    """Whether the model takes ``thinkingLevel`` rather than ``thinkingBudget`` (pi-ai 1.6)."""
    model_id = model.id.lower()
    if model_id in ("gemini-flash-latest", "gemini-flash-lite-latest"):
        return True
    return _LEVEL_FAMILIES.search(model_id) is not None


def _google_level(model: Model, level: str) -> str:
    mapped = (model.thinking_level_map or {}).get(level)
    resolved = mapped.lower() if isinstance(mapped, str) else level
    if resolved not in _GOOGLE_LEVELS:
        raise ConfigurationError(
            f"unsupported Google thinking level mapping for {model.provider}/{model.id}:"
            f" {level} -> {mapped} (Gemini takes minimal, low, medium or high)"
        )
    return resolved


def disabled_thinking_config(model: Model) -> dict[str, Any]:
    """The ``thinkingConfig`` of reasoning off for a thinking model.

    A model with a ``thinkingLevelMap`` that takes ``thinkingLevel``: the lowest supported
    level, hidden (no ``includeThoughts``), or ``thinkingBudget: 0`` where ``off`` is supported
    (pi-ai 1.6 ``getDisabledGoogleThinkingConfig``). Without a map (pi-ai 0.73): Gemini 3 Pro
    ``LOW``; Gemini 3 Flash and Gemma 4 ``MINIMAL``; 2.5 Pro, which rejects a budget of 0
    ("only works in thinking mode"), its lowest budget 128 (pi-ai sends 0: a documented
    difference, docs/pi-ai-differences.md); others ``thinkingBudget: 0``.
    """
    model_id = model.id.lower()
    if model.thinking_level_map is not None and uses_thinking_level(model):
        level = model.clamp_thinking_level("off")
        if level == "off":
            return {"thinkingBudget": 0}
        return {"thinkingLevel": _google_level(model, level).upper()}
    if _GEMINI3_PRO.search(model_id):
        return {"thinkingLevel": "LOW"}
    if _GEMINI3_FLASH.search(model_id) or _GEMMA4.search(model_id):
        return {"thinkingLevel": "MINIMAL"}
    if "2.5-pro" in model_id:
        return {"thinkingBudget": 128}
    return {"thinkingBudget": 0}


def thinking_config(model: Model, options: StreamOptions) -> dict[str, Any] | None:
    """Return ``generationConfig.thinkingConfig`` for ``options`` (pi-spec §3.3), or ``None``.

    ``provider_options["thinking"]`` (``{"enabled", "budget_tokens", "level"}``, pi-mono
    ``GoogleOptions.thinking``) wins when given. Otherwise ``options.reasoning`` maps as the
    module docstring says; a non-reasoning model sends nothing (the model's default); ``None``
    (or ``enabled: False``, or a level that clamps to ``off``) turns thinking off
    (:func:`disabled_thinking_config`).

    Raises:
        ConfigurationError: a malformed ``provider_options["thinking"]``, or a
            ``thinkingLevelMap`` entry that is not a Gemini level (pi-ai 1.6 raises too).
    """
    override = options.provider_options.get("thinking")
    if override is not None:
        if not isinstance(override, dict):
            raise ConfigurationError(
                "provider_options['thinking'] must be a dict like {'enabled': True, 'level': 'LOW'}"
            )
        settings: dict[str, Any] = override  # pyright: ignore[reportUnknownVariableType]
        if not model.reasoning:
            return None
        if not settings.get("enabled", True):
            return disabled_thinking_config(model)
        config: dict[str, Any] = {"includeThoughts": True}
        if settings.get("level") is not None:
            config["thinkingLevel"] = str(settings["level"]).upper()
        elif settings.get("budget_tokens") is not None:
            config["thinkingBudget"] = int(settings["budget_tokens"])
        return config
    if not model.reasoning:
        return None
    if options.reasoning is None:
        return disabled_thinking_config(model)
    clamped = model.clamp_thinking_level(options.reasoning)
    if clamped == "off":
        return disabled_thinking_config(model)
    level = _google_level(model, clamped)
    model_id = model.id.lower()
    if uses_thinking_level(model):
        if model.thinking_level_map is None and _GEMINI3_PRO.search(model_id):
            level = "low" if level in ("minimal", "low") else "high"
        return {"includeThoughts": True, "thinkingLevel": level.upper()}
    budget = (options.thinking_budgets or {}).get(level)
    if budget is None:
        budget = next((b[level] for key, b in _BUDGETS if key in model_id), -1)
    return {"includeThoughts": True, "thinkingBudget": budget}
