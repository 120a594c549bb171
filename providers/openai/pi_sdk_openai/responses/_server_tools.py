"""Responses server-tool output items -> pi-sdk's :class:`pi_sdk.ServerToolCall` (+ result).

OpenAI runs its built-in tools itself (platform docs, "Tools": web search, file search, code
interpreter, image generation, remote MCP) and reports each run as one output item that holds
both the call and its outcome: ``web_search_call`` (``action``: the query and sources),
``file_search_call`` (``queries``, ``results``), ``code_interpreter_call`` (``code``,
``outputs``), ``image_generation_call`` (``result``: the base64 image), ``mcp_call`` (``name``,
``arguments``, ``output``, ``error``), ``mcp_list_tools`` (``tools``).

The item becomes a :class:`pi_sdk.ServerToolCall` holding the whole item as ``raw`` (sent back
as it came to the same model and endpoint, as the recorded follow-ups do) and, when the item
carries an outcome, a :class:`pi_sdk.ServerToolResult` with no ``raw`` (shown, and summarized
for other vendors; nothing of it is sent twice). A finished image generation's outcome is the
image itself: a :class:`pi_sdk.ImageContent` (``mimeType`` ``image/<output_format>``, PNG by
default), in the result's place.
"""

from __future__ import annotations

import json
from typing import Any, cast

import pi_sdk

__all__ = ["SERVER_ITEMS", "SERVER_TOOL_DEFINITIONS", "server_blocks"]

SERVER_TOOL_DEFINITIONS = {
    "web_search": {"type": "web_search"},
    "code_execution": {"type": "code_interpreter", "container": {"type": "auto"}},
}
"""``StreamOptions.server_tools`` names -> Responses built-in tools (no web fetch tool)."""

SERVER_ITEMS = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
    }
)
"""Output item types of tools OpenAI runs itself."""

_INPUT = {
    "web_search_call": ("action",),
    "file_search_call": ("queries",),
    "code_interpreter_call": ("code", "container_id"),
    "image_generation_call": (),
    "mcp_call": ("server_label", "name", "arguments"),
    "mcp_list_tools": ("server_label",),
}
_OUTPUT = {
    "web_search_call": "action",
    "file_search_call": "results",
    "code_interpreter_call": "outputs",
    "image_generation_call": "result",
    "mcp_call": "output",
    "mcp_list_tools": "tools",
}


def _arguments(kind: str, item: dict[str, Any]) -> dict[str, Any]:
    arguments = {key: item[key] for key in _INPUT.get(kind, ()) if item.get(key) is not None}
    if kind == "mcp_call" and isinstance(arguments.get("arguments"), str):
        try:
            arguments["arguments"] = json.loads(arguments["arguments"])
        except ValueError:
            pass  # kept as the text it came as
    return arguments


def server_blocks(
    item: dict[str, Any],
) -> list[pi_sdk.ServerToolCall | pi_sdk.ServerToolResult | pi_sdk.ImageContent]:
    """The blocks of one finished server-tool output item (module docstring)."""
    kind = str(item.get("type") or "")
    item_id = str(item.get("id") or "")
    name = str(item.get("name") or "") if kind == "mcp_call" else kind.removesuffix("_call")
    call = pi_sdk.ServerToolCall(
        id=item_id, name=name, arguments=_arguments(kind, item), raw=dict(item)
    )
    blocks: list[pi_sdk.ServerToolCall | pi_sdk.ServerToolResult | pi_sdk.ImageContent] = [call]
    output = item.get(_OUTPUT.get(kind, ""))
    if kind == "web_search_call":
        output = cast(dict[str, Any], output).get("sources") if isinstance(output, dict) else None
    error = item.get("error")
    status = item.get("status")
    failed = status in ("failed", "incomplete")
    if kind == "image_generation_call" and isinstance(output, str) and output and not failed:
        image_format = str(item.get("output_format") or "png")
        blocks.append(pi_sdk.ImageContent(data=output, mime_type=f"image/{image_format}"))
    elif output is not None or error or failed:
        blocks.append(
            pi_sdk.ServerToolResult(
                tool_call_id=item_id,
                kind=kind,
                content=output,
                error=str(error or status) if (error or failed) else None,
            )
        )
    return blocks
