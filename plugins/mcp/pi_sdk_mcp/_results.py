"""An MCP ``CallToolResult`` as a pi-sdk tool result (MCP spec, "Tools: Tool Result").

pi-sdk tool results hold text and image blocks, so each MCP content block maps like this:

| MCP block | what the model sees |
| --- | --- |
| ``text`` | the text |
| ``image`` | the image (base64 data and MIME type as they came) |
| ``audio`` | ``[audio: audio/wav, 2,048 bytes, not shown]`` (pi-sdk has no audio block) |
| ``resource``, text | ``[resource file:///a.txt (text/plain)]`` then the text |
| ``resource``, blob | an ``image/*`` as an image, else ``[resource URI: MIME, N bytes, not shown]``
| ``resource_link`` | ``[resource link] name: URI (MIME) - description`` |

``structuredContent`` (MCP 2025-06-18 and later) goes to the model as its JSON text, because
pi-sdk tool results do not carry structured content yet, unless a text block already holds the
same value: the same JSON (servers SHOULD send it there too), or the only field of a one-field
object (the ``mcp`` SDK's servers wrap a plain return value as ``{"result": value}`` and send the
value as the text). The result's ``details`` (never sent to the model)
keep ``server``, ``tool`` (the MCP name), ``structured_content``, and every block the model could
not see in full (``unseen``: the audio data, blob resources and links, as MCP JSON).

A result with ``isError: true`` is raised as :class:`~pi_sdk_mcp.McpServerError` with the text
of its blocks: the agent turns it into an error tool result the model reads.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, cast

import mcp.types as mcp

from pi_sdk import AgentToolResult, ImageContent, TextContent
from pi_sdk.agent import ToolResultContent

from ._errors import McpServerError

__all__ = ["error_text", "progress_result", "to_tool_result"]


def to_tool_result(result: mcp.CallToolResult, server: str, tool: str) -> AgentToolResult:
    """Map a tool's MCP result to the :class:`pi_sdk.AgentToolResult` the model reads.

    Raises:
        McpServerError: ``result.is_error`` is true; the message is the result's text.
    """
    if result.is_error:
        text = error_text(result) or f"MCP tool {tool!r} of server {server!r} reported an error"
        raise McpServerError(server, text)
    content: list[ToolResultContent] = []
    unseen: list[dict[str, Any]] = []
    for block in result.content:
        content.extend(_blocks(block, unseen))
    structured = result.structured_content
    if structured is not None and not _holds_json(content, structured):
        content.append(TextContent(text=json.dumps(structured, ensure_ascii=False)))
    details: dict[str, Any] = {"server": server, "tool": tool}
    if structured is not None:
        details["structured_content"] = structured
    if unseen:
        details["unseen"] = unseen
    return AgentToolResult(content=content, details=details)


def error_text(result: mcp.CallToolResult) -> str:
    """The text of an error result's blocks, joined by newlines (non-text blocks described)."""
    lines: list[str] = []
    for block in result.content:
        for mapped in _blocks(block, []):
            lines.append(mapped.text if isinstance(mapped, TextContent) else "[image]")
    return "\n".join(line for line in lines if line)


def progress_result(progress: float, total: float | None, message: str | None) -> AgentToolResult:
    """An MCP progress notification as a partial result (``tool_execution_update``).

    The text is ``message (3/10)``, ``message (3)`` without a total, or only the counts; the
    numbers are in ``details`` (``progress``, ``total``, ``message``).
    """
    count = f"{progress:g}/{total:g}" if total is not None else f"{progress:g}"
    text = f"{message} ({count})" if message else count
    details = {"progress": progress, "total": total, "message": message}
    return AgentToolResult(content=[TextContent(text=text)], details=details)


def _blocks(block: mcp.ContentBlock, unseen: list[dict[str, Any]]) -> list[ToolResultContent]:
    match block:
        case mcp.TextContent(text=text):
            return [TextContent(text=text)]
        case mcp.ImageContent(data=data, mime_type=mime):
            return [ImageContent(data=data, mime_type=mime)]
        case mcp.AudioContent(data=data, mime_type=mime):
            unseen.append(block.model_dump(mode="json", by_alias=True, exclude_none=True))
            return [TextContent(text=f"[audio: {mime}, {_size(data)}, not shown]")]
        case mcp.EmbeddedResource(resource=mcp.TextResourceContents() as resource):
            header = f"[resource {resource.uri}{_mime(resource.mime_type)}]"
            return [TextContent(text=f"{header}\n{resource.text}")]
        case mcp.EmbeddedResource(resource=mcp.BlobResourceContents() as resource):
            mime = resource.mime_type or "application/octet-stream"
            if mime.startswith("image/"):
                return [ImageContent(data=resource.blob, mime_type=mime)]
            unseen.append(block.model_dump(mode="json", by_alias=True, exclude_none=True))
            return [TextContent(text=f"[resource {resource.uri}: {mime}, {_size(resource.blob)},"
                                     " not shown]")]  # fmt: skip
        case mcp.ResourceLink():
            unseen.append(block.model_dump(mode="json", by_alias=True, exclude_none=True))
            about = f" - {block.description}" if block.description else ""
            text = f"[resource link] {block.name}: {block.uri}{_mime(block.mime_type)}{about}"
            return [TextContent(text=text)]
        case _:  # a block type this SDK version does not know: say so rather than drop it
            kind = getattr(block, "type", type(block).__name__)
            return [TextContent(text=f"[{kind} content, not shown]")]


def _holds_json(content: list[ToolResultContent], value: Any) -> bool:
    candidates = [value]
    if isinstance(value, dict) and len(cast(dict[str, Any], value)) == 1:
        candidates += cast(dict[str, Any], value).values()  # {"result": value}
    for block in content:
        if not isinstance(block, TextContent):
            continue
        if block.text in candidates:
            return True
        try:
            if json.loads(block.text) in candidates:
                return True
        except ValueError:
            continue
    return False


def _mime(mime_type: str | None) -> str:
    return f" ({mime_type})" if mime_type else ""


def _size(data: str) -> str:
    try:
        size = len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        size = len(data)
    return f"{size:,} bytes"
