"""Bedrock Converse ``toolConfig``: tool specifications and the tool choice.

Bedrock Runtime API reference, ``ToolConfiguration`` / ``ToolSpecification`` (``name``,
``description``, ``inputSchema.json``, ``strict``) / ``ToolChoice`` (``auto``, ``any``,
``tool``); pi-ai 1.6 ``convertToolConfig``.
"""

from __future__ import annotations

from typing import Any, cast

import pi_sdk

__all__ = ["config_of", "neutral_tool_choice"]


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


def _tool_spec(tool: pi_sdk.Tool, model: pi_sdk.Model) -> dict[str, Any]:
    """A ``toolSpec``, with ``strict: true`` (schema made strict) for a strict tool.

    Where the tool resolves to strict on a model whose compat has ``supportsStrictMode``
    (Bedrock ``ToolSpecification.strict``; pi-ai 1.6 ``convertToolConfig``).
    """
    strict = tool.strict_mode(model, (model.compat or {}).get("supportsStrictMode") is True)
    spec: dict[str, Any] = {"name": tool.name, "description": tool.description}
    spec["inputSchema"] = {"json": tool.wire_parameters(strict)}
    if strict:
        spec["strict"] = True
    return {"toolSpec": spec}


def config_of(
    tools: list[pi_sdk.Tool], tool_choice: Any, model: pi_sdk.Model
) -> dict[str, Any] | None:
    """The ``toolConfig``: the tools and the choice (``None`` without tools or for "none")."""
    if not tools or tool_choice == "none":
        return None
    specs = [_tool_spec(tool, model) for tool in tools]
    config: dict[str, Any] = {"tools": specs}
    if tool_choice in ("auto", "any"):
        config["toolChoice"] = {tool_choice: {}}
    elif isinstance(tool_choice, dict):
        choice = cast("dict[str, Any]", tool_choice)
        if choice.get("type") == "tool":
            config["toolChoice"] = {"tool": {"name": choice.get("name")}}
    return config
