"""How each OpenAI-compatible server switches reasoning on or off, at what level and budget.

pi-ai 1.6 ``buildParams`` (``api/openai-completions.ts``): the request fields of each
:data:`~pi_sdk_openai.completions._compat.ThinkingFormat`, chosen by
:attr:`CompletionsCompat.thinking_format <pi_sdk_openai.completions._compat.CompletionsCompat>`,
``chat_template_kwargs`` / ``chat_template_args`` with their ``$var`` values, and the top-level
reasoning-budget field (``thinking_token_budget`` and its siblings).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import pi_sdk

from ._compat import CompletionsCompat

__all__ = ["DEFAULT_THINKING_BUDGETS", "MIN_ANSWER_TOKENS", "add_reasoning", "thinking_budget"]

DEFAULT_THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
"""Reasoning tokens per level when ``thinking_budgets`` has none (pi-ai 1.6); ``xhigh`` and
``max`` take ``high``'s."""
MIN_ANSWER_TOKENS = 1024
"""Tokens always left for the answer when a reasoning budget shares the output cap."""

_UNSET: Any = object()


def _mapped(model: pi_sdk.Model, level: str) -> Any:
    """``model.thinking_level_map[level]``: a string, ``None`` (unsupported), or unset."""
    levels = model.thinking_level_map or {}
    return levels[level] if level in levels else _UNSET


def _effort_value(model: pi_sdk.Model, compat: CompletionsCompat, effort: str) -> str:
    """The server's value for a level: the model's map (unless null), then the compat map."""
    mapped = _mapped(model, effort)
    if isinstance(mapped, str):
        return mapped
    return compat.reasoning_effort_map.get(effort, effort)


def thinking_budget(
    model: pi_sdk.Model, options: pi_sdk.StreamOptions, effort: str | None, ceiling: int
) -> int | None:
    """The level's reasoning budget under an output cap of ``ceiling`` tokens, or ``None``.

    ``thinking_budgets[level]`` else :data:`DEFAULT_THINKING_BUDGETS` (``xhigh``/``max`` count as
    ``high``), at most ``ceiling - 1024``; ``None`` with reasoning off or no room (pi-ai 1.6
    ``resolveClampedThinkingBudget``).
    """
    if effort is None or not model.reasoning:
        return None
    level = "high" if effort in ("xhigh", "max") else effort
    budgets = {**DEFAULT_THINKING_BUDGETS, **(options.thinking_budgets or {})}
    if level not in budgets:
        return None
    budget = min(budgets[level], max(0, ceiling - MIN_ANSWER_TOKENS))
    return budget if budget > 0 else None


def _template_values(
    model: pi_sdk.Model, values: Mapping[str, Any], effort: str | None, budget: int | None
) -> dict[str, Any] | None:
    """``chat_template_kwargs``/``args`` with each ``{"$var": ...}`` filled (pi-ai 1.6)."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if not isinstance(value, Mapping):
            out[key] = value
            continue
        spec = cast("Mapping[str, Any]", value)
        if effort is None and spec.get("omitWhenOff"):
            continue
        var = spec.get("$var")
        if var == "thinking.enabled":
            resolved: Any = effort is not None
        elif var == "thinking.budget":
            resolved = budget
        else:
            mapped = _mapped(model, effort if effort is not None else "off")
            resolved = effort if mapped is _UNSET else mapped if isinstance(mapped, str) else None
        if resolved is not None:
            out[key] = resolved
    return out or None


def add_reasoning(
    payload: dict[str, Any],
    model: pi_sdk.Model,
    compat: CompletionsCompat,
    effort: str | None,
    options: pi_sdk.StreamOptions,
) -> None:
    """Switch reasoning on or off in the server's own way (pi-ai 1.6 ``buildParams``).

    ``effort`` is the clamped level (``None``: off). Only for reasoning models; the budget field
    is set whatever the format.
    """
    if not model.reasoning:
        return
    fmt = compat.thinking_format
    on = effort is not None
    ceiling = payload.get("max_tokens", payload.get("max_completion_tokens", model.max_tokens))
    budget = thinking_budget(model, options, effort, ceiling)
    off_value = _mapped(model, "off")
    if fmt == "zai":
        payload["thinking"] = (
            {"type": "enabled", "clear_thinking": False} if on else {"type": "disabled"}
        )
        if effort is not None and compat.supports_reasoning_effort:
            mapped = _mapped(model, effort)
            value = effort if mapped is _UNSET else mapped
            if isinstance(value, str):
                payload["reasoning_effort"] = value
    elif fmt == "qwen":
        payload["enable_thinking"] = on
        if effort is not None and compat.supports_reasoning_effort:
            payload["reasoning_effort"] = _effort_value(model, compat, effort)
    elif fmt == "qwen-chat-template":
        payload["chat_template_kwargs"] = {"enable_thinking": on, "preserve_thinking": True}
    elif fmt in ("chat-template", "baseten"):
        values = (
            compat.chat_template_kwargs if fmt == "chat-template" else compat.chat_template_args
        )
        filled = _template_values(model, values, effort, budget)
        if filled:
            payload["chat_template_kwargs" if fmt == "chat-template" else "chat_template_args"] = (
                filled
            )
        if fmt == "baseten" and compat.supports_reasoning_effort:
            mapped = _mapped(model, effort if effort is not None else "off")
            value = effort if mapped is _UNSET else mapped
            if isinstance(value, str):
                payload["reasoning_effort"] = value
    elif fmt == "deepseek":
        if on:
            payload["thinking"] = {"type": "enabled"}
        elif off_value is not None:
            payload["thinking"] = {"type": "disabled"}
        if effort is not None and compat.supports_reasoning_effort:
            payload["reasoning_effort"] = _effort_value(model, compat, effort)
    elif fmt == "openrouter":
        if effort is not None:
            payload["reasoning"] = {"effort": _effort_value(model, compat, effort)}
        elif off_value is not None:
            payload["reasoning"] = {"effort": "none" if off_value is _UNSET else off_value}
    elif fmt == "ant-ling" and effort is not None:
        if isinstance(mapped := _mapped(model, effort), str):
            payload["reasoning"] = {"effort": mapped}
    elif fmt == "together":
        payload["reasoning"] = {"enabled": on}
        if effort is not None and compat.supports_reasoning_effort:
            payload["reasoning_effort"] = _effort_value(model, compat, effort)
    elif fmt == "string-thinking":
        if effort is not None:
            payload["thinking"] = _effort_value(model, compat, effort)
        elif off_value is not None:
            payload["thinking"] = "none" if off_value is _UNSET else off_value
    elif compat.supports_reasoning_effort:
        if effort is not None:
            payload["reasoning_effort"] = _effort_value(model, compat, effort)
        elif isinstance(off_value, str):
            payload["reasoning_effort"] = off_value  # a model that thinks unless told "off" so
    field = compat.budget_field
    if field is not None and budget is not None:
        payload[field] = budget
