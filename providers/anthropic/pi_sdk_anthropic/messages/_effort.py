"""Effort markers: each reply's effort set in ``messages`` (pi-ai 1.6 ``supportsMidConvoEffort``).

On a model with ``compat.supportsMidConvoEffort`` the effort goes in marker messages
(:func:`effort_marker`) rather than the top-level ``output_config``, so changing the level
between turns keeps the cached prefix: one before each earlier reply of this provider that
recorded its level, one at the end for this reply (pi-ai 1.6 ``insertThinkingLevelMessages``).
"""

from __future__ import annotations

from typing import Any

import pi_sdk

from ._compat import adaptive, can_turn_off, effort_of, resolve_anthropic_compat

__all__ = ["EFFORTS", "effort_marker", "managed", "mid_convo_effort", "thinking_request"]

EFFORTS = frozenset({"low", "medium", "high", "xhigh", "max"})
"""The efforts an effort marker may carry (pi-ai 1.6 ``isAnthropicEffort``)."""


def thinking_request(
    model: pi_sdk.Model, options: pi_sdk.StreamOptions, extra: dict[str, Any], is_adaptive: bool
) -> tuple[bool, str | None]:
    """``(thinking requested, adaptive effort)`` from the unified level and provider options."""
    enabled, effort = False, None
    if options.reasoning is not None and model.reasoning:
        enabled = True
        effort = effort_of(model, options.reasoning) if is_adaptive else None
    return bool(extra.get("thinking_enabled", enabled)), extra.get("effort", effort)


def mid_convo_effort(model: pi_sdk.Model, options: pi_sdk.StreamOptions) -> str | None:
    """The effort this reply is asked for by an effort marker, or ``None`` when none is sent.

    Models with ``compat.supportsMidConvoEffort`` (pi-ai 1.6) take their effort from
    ``{"role": "system", "content": [], "output_config": {"effort": ...}}`` markers in
    ``messages`` instead of the top-level ``output_config``, so a level change keeps the prompt
    cache: the requested effort (``"high"`` without one), unless thinking is turned off on a
    model that can turn it off. The reply records it as ``provider_thinking_level``.
    """
    compat = resolve_anthropic_compat(model)
    if not compat.supports_mid_convo_effort:
        return None
    extra = dict(options.provider_options)
    enabled, effort = thinking_request(model, options, extra, adaptive(model, compat))
    if model.reasoning and not enabled and can_turn_off(model):
        return None  # thinking disabled: the effort cannot change between messages
    return effort or "high"


def effort_marker(effort: str) -> dict[str, Any]:
    """The message that sets the effort of the replies after it (pi-ai 1.6)."""
    return {"role": "system", "content": [], "output_config": {"effort": effort}}


def managed(message: pi_sdk.AssistantMessage, model: pi_sdk.Model) -> bool:
    """Whether ``message`` came from ``model``'s provider on its API (its level counts)."""
    return message.api == model.api and message.provider == model.provider
