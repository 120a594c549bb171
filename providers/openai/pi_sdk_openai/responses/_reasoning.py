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
from ._compat import ResponsesCompat, resolve_responses_compat

__all__ = [
    "CONFIGURATION_UPDATE_REQUEST_EFFORT",
    "configuration_update_effort",
    "off_effort",
    "reasoning_fields",
]

AZURE_API = "azure-openai-responses"


CONFIGURATION_UPDATE_REQUEST_EFFORT = "medium"
"""``reasoning.effort`` while ``configuration_update`` items carry the level (pi-ai 1.6): the
top-level value is part of the cached prompt, so it stays fixed."""


def configuration_update_effort(
    model: pi_sdk.Model, options: pi_sdk.StreamOptions, compat: ResponsesCompat | None = None
) -> str | None:
    """The effort sent in ``configuration_update`` items, or ``None`` to send ``reasoning.effort``.

    pi-ai 1.6 (``compat.supportsMidConvoEffort``): the requested level, mapped by the model's
    ``thinking_level_map``, goes in a ``configuration_update`` input item at the end of
    ``input`` (and each earlier reply of the same model that recorded a
    ``provider_thinking_level`` gets one of its level before it), so a level change keeps the
    prompt cache. ``None`` without the flag or without a requested level. pi-ai also leaves the
    items out for a Sign in with ChatGPT token, which pi-sdk does not support.
    """
    if model.api == AZURE_API:  # pi-ai 1.6's Azure module sends none
        return None
    compat = compat or resolve_responses_compat(model)
    effort = reasoning_effort(model, options) if compat.supports_mid_convo_effort else None
    if effort is None:
        return None
    mapped = (model.thinking_level_map or {}).get(effort)
    return mapped if isinstance(mapped, str) else effort


def reasoning_fields(
    model: pi_sdk.Model,
    options: pi_sdk.StreamOptions,
    summary: str | None,
    update_effort: str | None = None,
) -> dict[str, Any]:
    """The body fields for reasoning (none for a model without reasoning).

    With ``update_effort`` (:func:`configuration_update_effort`) the level travels in
    ``configuration_update`` items and ``reasoning.effort`` is
    :data:`CONFIGURATION_UPDATE_REQUEST_EFFORT`.
    """
    fields: dict[str, Any] = {}
    if not model.reasoning:
        return fields
    effort = reasoning_effort(model, options)
    if effort is not None or summary is not None:
        level = effort or "medium"
        mapped = (model.thinking_level_map or {}).get(level) if effort is not None else None
        if update_effort is not None:
            mapped = CONFIGURATION_UPDATE_REQUEST_EFFORT
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
