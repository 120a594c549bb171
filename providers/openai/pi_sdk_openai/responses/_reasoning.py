"""The ``reasoning`` and ``include`` fields of a Responses body (pi-ai 1.6, pi-spec §4.4).

With a level (``options.reasoning``, clamped to the model's levels and mapped through its
``thinkingLevelMap`` by :func:`~pi_sdk_openai._shared_request.reasoning_effort`) or a summary
asked for: ``reasoning: {effort, summary}`` and ``include: ["reasoning.encrypted_content"]`` (so
each reasoning item can be replayed next turn). Off: ``reasoning: {effort: <off>}`` where the
model can turn reasoning off (:func:`off_effort`). xAI always gets the ``include``.
"""

from __future__ import annotations

from typing import Any

import pi_sdk

from .._shared_request import reasoning_effort

__all__ = ["off_effort", "reasoning_fields"]


def reasoning_fields(
    model: pi_sdk.Model, options: pi_sdk.StreamOptions, summary: str | None
) -> dict[str, Any]:
    """The body fields for reasoning (none for a model without reasoning)."""
    fields: dict[str, Any] = {}
    if not model.reasoning:
        return fields
    effort = reasoning_effort(model, options)
    if effort is not None or summary is not None:
        level = effort or "medium"
        mapped = (model.thinking_level_map or {}).get(level) if effort is not None else None
        fields["reasoning"] = {"effort": mapped or level, "summary": summary or "auto"}
        fields["include"] = ["reasoning.encrypted_content"]
    elif (off := off_effort(model)) is not None:
        fields["reasoning"] = {"effort": off}
    if model.provider == "xai":
        fields["include"] = ["reasoning.encrypted_content"]
    return fields


def off_effort(model: pi_sdk.Model) -> str | None:
    """The ``reasoning.effort`` that turns reasoning off, or ``None`` to send no ``reasoning``.

    pi-ai 0.73 sends ``{"effort": model.thinkingLevelMap.off ?? "none"}`` with reasoning off,
    except when the map says ``off: null`` (the model cannot turn reasoning off: every
    ``gpt-5*`` model of its catalog) and for GitHub Copilot. pi-sdk reads the map from
    ``model.thinking_level_map`` (the catalog's), else ``model.compat["thinkingLevelMap"]``,
    and, without an ``off`` entry in either, applies the catalog's rule by id.
    """
    if model.provider == "github-copilot":
        return None
    levels = model.thinking_level_map or (model.compat or {}).get("thinkingLevelMap")
    if isinstance(levels, dict) and "off" in levels:
        off: Any = levels["off"]  # pyright: ignore[reportUnknownVariableType]
        return off if isinstance(off, str) else None
    if model.id.startswith("gpt-5"):
        return None
    return "none"
