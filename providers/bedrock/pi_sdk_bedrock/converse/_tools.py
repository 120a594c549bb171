"""Bedrock Converse ``toolConfig``: tool specifications and the tool choice.

Bedrock Runtime API reference, ``ToolConfiguration`` / ``ToolSpecification`` (``name``,
``description``, ``inputSchema.json``, ``strict``) / ``ToolChoice`` (``auto``, ``any``,
``tool``); pi-ai 1.6 ``convertToolConfig``, and the strict tools Claude refuses as over its
limits (sent again non-strict: pi-ai 1.6 ``bedrock-converse-stream.ts``).
"""

from __future__ import annotations

from typing import Any, cast

import pi_sdk
from pi_sdk.provider import ProviderError

from ._capabilities import compat_flag

__all__ = [
    "STRICT_LIMITS",
    "config_of",
    "neutral_tool_choice",
    "refused_strict",
    "sends_preferred_strict",
]


_NEUTRAL_TOOL_CHOICE = {"auto": "auto", "required": "any", "none": "none"}
"""``StreamOptions.tool_choice`` kinds in this module's ``tool_choice`` words (Converse has
no "none": no tools are sent)."""


def neutral_tool_choice(options: pi_sdk.StreamOptions) -> Any:
    """Return ``StreamOptions.tool_choice`` in the ``provider_options["tool_choice"]`` shape."""
    resolved = options.resolved_tool_choice()
    if resolved is None:
        return None
    kind, name = resolved
    return _NEUTRAL_TOOL_CHOICE.get(kind) or {"type": "tool", "name": name}


def _strict_mode(model: pi_sdk.Model) -> bool:
    """The model's compat has ``supportsStrictMode`` (it takes ``ToolSpecification.strict``)."""
    return compat_flag(model, "supportsStrictMode") is True


def _tool_spec(tool: pi_sdk.Tool, model: pi_sdk.Model, prefer_strict: bool) -> dict[str, Any]:
    """A ``toolSpec``, with ``strict: true`` (schema made strict) for a strict tool.

    Where the tool resolves to strict on a model whose compat has ``supportsStrictMode``
    (Bedrock ``ToolSpecification.strict``; pi-ai 1.6 ``convertToolConfig``); a
    ``strict: "prefer"`` one goes non-strict when not ``prefer_strict``.
    """
    strict = tool.strict_mode(model, _strict_mode(model), prefer=prefer_strict)
    spec: dict[str, Any] = {"name": tool.name, "description": tool.description}
    spec["inputSchema"] = {"json": tool.wire_parameters(strict)}
    if strict:
        spec["strict"] = True
    return {"toolSpec": spec}


def config_of(
    tools: list[pi_sdk.Tool], tool_choice: Any, model: pi_sdk.Model, prefer_strict: bool
) -> dict[str, Any] | None:
    """The ``toolConfig``: the tools and the choice (``None`` without tools or for "none").

    ``prefer_strict=False``: ``strict: "prefer"`` tools go non-strict (:func:`refused_strict`).
    """
    if not tools or tool_choice == "none":
        return None
    specs = [_tool_spec(tool, model, prefer_strict) for tool in tools]
    config: dict[str, Any] = {"tools": specs}
    if tool_choice in ("auto", "any"):
        config["toolChoice"] = {tool_choice: {}}
    elif isinstance(tool_choice, dict):
        choice = cast("dict[str, Any]", tool_choice)
        if choice.get("type") == "tool":
            config["toolChoice"] = {"tool": {"name": choice.get("name")}}
    return config


STRICT_LIMITS = "strict_tool_limits_exceeded"
"""Why a request goes again with its ``prefer`` tools non-strict (the diagnostic's ``reason``,
and the key a session is remembered under; pi-ai 1.6, shared with the Anthropic API)."""


def sends_preferred_strict(
    model: pi_sdk.Model, context: pi_sdk.Context, options: pi_sdk.StreamOptions
) -> bool:
    """Whether the request sends a ``strict: "prefer"`` tool strict.

    Only such a request is sent again without them (pi-ai 1.6 ``hasPreferredStrictTools``):
    one of the tools the context declares (``tools``, system messages), unless the tool choice
    is ``"none"`` (no tools are sent).
    """
    # by role: an isinstance check of a pydantic model costs about a microsecond a message
    added = [m.tools_added for m in context.messages if m.role == "system" and m.tools_added]
    declared = [*(context.tools or ()), *(tool for tools in added for tool in tools)]
    preferred = [tool for tool in declared if tool.prefers_strict()]
    if not preferred or not _strict_mode(model):
        return False
    choice = options.provider_options.get("tool_choice", neutral_tool_choice(options))
    return choice != "none" and any(tool.strict_mode(model, True) for tool in preferred)


def refused_strict(error: ProviderError) -> str | None:
    """The diagnostic type of a refusal of strict tools over Claude's limits, else ``None``.

    ``"bedrock_strict_tools_fallback"`` for a ``ValidationException`` whose message is one of
    :meth:`pi_sdk.Tool.is_strict_limit_error`'s (pi-ai 1.6 ``bedrock-converse-stream.ts``).
    """
    text = str(error)
    refused = ": ValidationException: " in text
    return (
        "bedrock_strict_tools_fallback"
        if refused and pi_sdk.Tool.is_strict_limit_error(text)
        else None
    )
