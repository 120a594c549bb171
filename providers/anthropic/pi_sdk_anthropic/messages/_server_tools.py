"""Anthropic server-tool blocks -> pi-sdk's :class:`pi_sdk.ServerToolCall` / ``ServerToolResult``.

Anthropic runs some tools itself (web search, web fetch, code execution, the MCP connector:
Anthropic docs, "Server tools") and reports them in the reply as content blocks: a call
(``server_tool_use``, ``mcp_tool_use``: ``id``, ``name``, ``input``, ``caller``?) and its result
(``web_search_tool_result``, ``web_fetch_tool_result``, ``code_execution_tool_result``,
``bash_code_execution_tool_result``, ``text_editor_code_execution_tool_result``,
``mcp_tool_result``...: ``tool_use_id`` and ``content``; a failure is a content object whose
``type`` ends in ``_error``, with an ``error_code``). A streamed call's ``input`` comes as
``input_json_delta`` fragments, as a client tool call's does.

The block is kept whole as ``raw`` (its ``input`` the parsed fragments) and sent back as it came
to the same model and endpoint: Anthropic answers 400 when a result block loses its call.
"""

from __future__ import annotations

import json
from typing import Any, cast

import pi_sdk
from pi_sdk.provider import ProviderError

SERVER_TOOL_DEFINITIONS = {
    "web_search": {"type": "web_search_20250305", "name": "web_search"},
    "web_fetch": {"type": "web_fetch_20250910", "name": "web_fetch"},
    "code_execution": {"type": "code_execution_20260120", "name": "code_execution"},
}
"""``StreamOptions.server_tools`` names -> Anthropic's tool definitions (the versions the
recordings of ``../shared/conformance-next`` sent, answered without a beta header)."""

__all__ = ["is_server_block", "server_block"]

_CALLS = frozenset({"server_tool_use", "mcp_tool_use"})


def is_server_block(kind: Any) -> bool:
    """True for a server tool's call or result block type.

    A result's type ends in ``_tool_result`` (``mcp_tool_result`` too); a client tool's
    ``tool_result`` does not (no underscore before ``tool``).
    """
    if not isinstance(kind, str):
        return False
    return kind in _CALLS or kind.endswith("_tool_result")


def _error_code(content: Any) -> str | None:
    if isinstance(content, dict):
        fields = cast(dict[str, Any], content)
        kind = fields.get("type")
        if isinstance(kind, str) and kind.endswith("_error"):
            code = fields.get("error_code")
            return code if isinstance(code, str) and code else kind
    return None


def server_block(
    block: dict[str, Any], fragments: list[str]
) -> pi_sdk.ServerToolCall | pi_sdk.ServerToolResult:
    """The pi-sdk block of a finished server block (``fragments``: its streamed input).

    Raises:
        ProviderError: the streamed input is not one JSON object.
    """
    raw = dict(block)
    if fragments:
        text = "".join(fragments)
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            raise ProviderError(
                f"malformed stream: the input of {raw.get('type')} {raw.get('id')!r} is not a"
                f" JSON object: {text[:200]!r}"
            )
        raw["input"] = parsed
    kind = raw.get("type")
    if kind in _CALLS:
        arguments = raw.get("input")
        return pi_sdk.ServerToolCall(
            id=str(raw.get("id") or ""),
            name=str(raw.get("name") or ""),
            arguments=cast(dict[str, Any], arguments) if isinstance(arguments, dict) else {},
            raw=raw,
        )
    content = raw.get("content")
    return pi_sdk.ServerToolResult(
        tool_call_id=str(raw.get("tool_use_id") or ""),
        kind=str(kind),
        content=content,
        error=_error_code(content),
        raw=raw,
    )
