"""Reasoning levels: the valid names, a model's supported levels and clamping (pi-ai 1.6).

pi-ai 1.6 ``models.js``: ``getSupportedThinkingLevels(model)`` is ``["off"]`` for a model
without reasoning; otherwise ``off, minimal, low, medium, high``, plus the opt-in levels
``xhigh`` and ``max`` only when the model's ``thinkingLevelMap`` names them, minus every level
the map sets to ``null``. ``clampThinkingLevel(model, level)`` keeps a supported level, else
takes the nearest supported level above it, else the nearest below, else the first supported
one. (pi-ai 0.73 had the same rules without ``max``.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal, TypeAlias

__all__ = [
    "MODEL_THINKING_LEVELS",
    "AgentThinkingLevel",
    "OPT_IN_LEVELS",
    "THINKING_LEVELS",
    "ModelThinkingLevel",
    "ThinkingLevel",
    "check_reasoning",
    "check_thinking_level",
    "clamp_thinking_level",
    "supported_thinking_levels",
]

ThinkingLevel: TypeAlias = Literal["minimal", "low", "medium", "high", "xhigh", "max"]
"""Unified reasoning level, mapped per provider (pi-ai 1.6 ``ThinkingLevel``; ``max`` is new in
1.6 and, like ``xhigh``, supported only by models whose ``thinkingLevelMap`` names it)."""
ModelThinkingLevel: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
"""A model's thinking level, ``off`` included (pi-ai 1.6 ``ModelThinkingLevel``); public as
``pi_sdk.AgentThinkingLevel``."""
AgentThinkingLevel: TypeAlias = ModelThinkingLevel
"""The agent's thinking level: pi-ai 1.6's levels (``"minimal"`` .. ``"max"``) plus ``"off"`` (no
reasoning requested)."""

THINKING_LEVELS: Final = ("minimal", "low", "medium", "high", "xhigh", "max")
"""The reasoning levels of ``StreamOptions.reasoning``, lowest first (pi-ai 1.6
``THINKING_LEVELS``)."""
MODEL_THINKING_LEVELS: Final = ("off", *THINKING_LEVELS)
"""The levels of ``Agent.thinking_level`` (pi-ai 1.6 ``MODEL_THINKING_LEVELS``), lowest first."""
OPT_IN_LEVELS: Final = frozenset({"xhigh", "max"})
"""Levels a reasoning model supports only when its ``thinkingLevelMap`` names them."""


def _unknown(what: str, value: object, valid: tuple[str, ...], extra: str = "") -> ValueError:
    names = ", ".join(repr(level) for level in valid)
    return ValueError(f"unknown {what} {value!r}: valid levels are {names}{extra}")


def check_reasoning(value: Any) -> Any:
    """``StreamOptions.reasoning``: ``None`` or a level; ``"off"`` becomes ``None``.

    Raises:
        ValueError: not a level; the message names the valid ones.
    """
    if value is None or value == "off":
        return None
    if value not in THINKING_LEVELS:
        raise _unknown("reasoning level", value, THINKING_LEVELS, " (None or 'off': no reasoning)")
    return value


def check_thinking_level(value: Any) -> Any:
    """An agent's ``thinking_level``: ``"off"`` or a level.

    Raises:
        ValueError: not a level; the message names the valid ones.
    """
    if value not in MODEL_THINKING_LEVELS:
        raise _unknown("thinking level", value, MODEL_THINKING_LEVELS)
    return value


def supported_thinking_levels(
    reasoning: bool, level_map: Mapping[str, str | None] | None
) -> list[str]:
    """The levels a model accepts, lowest first (pi-ai 1.6 ``getSupportedThinkingLevels``).

    ``["off"]`` without ``reasoning``; else ``off`` .. ``high`` and the opt-in levels
    (``xhigh``, ``max``) the map names, minus the levels the map sets to ``None``.
    """
    if not reasoning:
        return ["off"]
    mapping = level_map or {}
    supported: list[str] = []
    for level in MODEL_THINKING_LEVELS:
        if level in mapping and mapping[level] is None:
            continue
        if level in OPT_IN_LEVELS and level not in mapping:
            continue
        supported.append(level)
    return supported


def clamp_thinking_level(
    level: str, reasoning: bool, level_map: Mapping[str, str | None] | None
) -> str:
    """The supported level nearest ``level`` (pi-ai 1.6 ``clampThinkingLevel``).

    Raises:
        ValueError: ``level`` is not a level name (pi-ai returns the first supported level;
            pi-sdk rejects the typo instead).
    """
    check_thinking_level(level)
    available = supported_thinking_levels(reasoning, level_map)
    if level in available:
        return level
    at = MODEL_THINKING_LEVELS.index(level)
    for candidate in (*MODEL_THINKING_LEVELS[at:], *reversed(MODEL_THINKING_LEVELS[:at])):
        if candidate in available:
            return candidate
    return available[0] if available else "off"
