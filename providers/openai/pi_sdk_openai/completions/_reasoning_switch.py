"""How each OpenAI-compatible server switches reasoning on or off, and at what effort.

pi-ai 0.73 ``buildParams`` (``openai-completions.ts``): ``enable_thinking`` (Z.ai, Qwen),
``chat_template_kwargs`` (Qwen chat templates), ``thinking`` (DeepSeek), ``reasoning`` (OpenRouter)
or ``reasoning_effort``, chosen by :attr:`CompletionsCompat.thinking_format
<pi_sdk_openai.completions._compat.CompletionsCompat>` (pi-spec §1.7).
"""

from __future__ import annotations

from typing import Any

import pi_sdk

from ._compat import CompletionsCompat

__all__ = ["add_reasoning"]


def _effort_value(model: pi_sdk.Model, compat: CompletionsCompat, effort: str) -> str:
    """The server's value for a pi level: ``model.thinking_level_map``, then the compat map."""
    mapped = (model.thinking_level_map or {}).get(effort)
    return mapped if mapped is not None else compat.reasoning_effort_map.get(effort, effort)


def add_reasoning(
    payload: dict[str, Any], model: pi_sdk.Model, compat: CompletionsCompat, effort: str | None
) -> None:
    """Switch reasoning on or off in the server's own way (pi-ai 0.73 ``buildParams``)."""
    fmt = compat.thinking_format
    if fmt in ("zai", "qwen"):
        payload["enable_thinking"] = effort is not None
    elif fmt == "qwen-chat-template":
        payload["chat_template_kwargs"] = {"enable_thinking": effort is not None}
    elif fmt == "deepseek":
        payload["thinking"] = {"type": "enabled" if effort is not None else "disabled"}
        if effort is not None:
            payload["reasoning_effort"] = _effort_value(model, compat, effort)
    elif fmt == "openrouter":
        levels = model.thinking_level_map or {}
        if effort is not None:
            payload["reasoning"] = {"effort": _effort_value(model, compat, effort)}
        elif "off" not in levels or levels["off"] is not None:
            payload["reasoning"] = {"effort": levels.get("off") or "none"}
    elif compat.supports_reasoning_effort:
        if effort is not None:
            payload["reasoning_effort"] = _effort_value(model, compat, effort)
        elif isinstance(off := (model.thinking_level_map or {}).get("off"), str):
            payload["reasoning_effort"] = off  # a model that thinks unless told "off" so
