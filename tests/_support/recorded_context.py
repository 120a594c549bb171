"""Rebuild a :class:`pi_sdk.Context` from a recorded vendor request, to measure the estimate.

The estimate works on what the model reads; a recorded request holds the same text in the
vendor's shape. :func:`context_of_request` finds the system prompt, the messages and the tool
definitions of any of the conformance set's APIs (Anthropic, Chat Completions, Responses,
Gemini/Vertex, Bedrock Converse, Mistral) and keeps every string the model reads, leaving out
ids, signatures, encrypted reasoning, media types and base64 data (an image becomes an
:class:`pi_sdk.ImageContent`).
"""

from __future__ import annotations

import json
from typing import Any

from pi_sdk import Context, ImageContent, TextContent, Tool, UserMessage

_SKIP = {
    "role",
    "type",
    "id",
    "tool_call_id",
    "call_id",
    "tool_use_id",
    "toolUseId",
    "signature",
    "thoughtSignature",
    "thought_signature",
    "encrypted_content",
    "media_type",
    "mime_type",
    "mimeType",
    "data",
    "bytes",
    "cache_control",
    "cachePoint",
    "status",
    "format",
    "detail",
    "url",
    "image_url",
    "source",
}
_IMAGE_KEYS = {"image", "image_url", "inlineData", "input_image"}
_JSON_VALUES = {"input", "args", "arguments", "json", "response"}


def _walk(value: Any, key: str | None, out: list[str], images: list[int]) -> None:
    if key in _IMAGE_KEYS or (isinstance(value, dict) and value.get("type") in _IMAGE_KEYS):
        images.append(1)
        return
    if key in _SKIP:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        if key in _JSON_VALUES:
            out.append(json.dumps(value, ensure_ascii=False))
            return
        for k, v in value.items():
            _walk(v, k, out, images)
    elif isinstance(value, list):
        for item in value:
            _walk(item, key if key in _JSON_VALUES else None, out, images)


def _text(value: Any) -> tuple[str, int]:
    out: list[str] = []
    images: list[int] = []
    _walk(value, None, out, images)
    return "".join(out), len(images)


def _tools(body: dict[str, Any]) -> list[Tool]:
    raw: list[Any] = list(body.get("tools") or (body.get("toolConfig") or {}).get("tools") or [])
    tools: list[Tool] = []
    for entry in raw:
        specs = entry.get("functionDeclarations") or [
            entry.get("function") or entry.get("toolSpec") or entry
        ]
        for spec in specs:
            schema = (
                spec.get("parameters")
                or spec.get("input_schema")
                or spec.get("parametersJsonSchema")
                or (spec.get("inputSchema") or {}).get("json")
                or {}
            )
            tools.append(
                Tool(
                    name=spec.get("name", ""),
                    description=spec.get("description", ""),
                    parameters=schema,
                )
            )
    return tools


def context_of_request(body: dict[str, Any]) -> Context:
    """The context whose request ``body`` is (any conformance API's JSON shape)."""
    system, _ = _text(
        body.get("system") or body.get("instructions") or body.get("systemInstruction")
    )
    raw = body.get("messages") or body.get("contents") or body.get("input") or []
    if isinstance(raw, str):
        raw = [{"role": "user", "content": raw}]
    messages: list[UserMessage] = []
    for item in raw:
        text, images = _text(item)
        blocks: list[TextContent | ImageContent] = [TextContent(text=text)]
        blocks += [ImageContent(data="", mime_type="image/png")] * images
        messages.append(UserMessage(content=blocks))
    tools = _tools(body)
    return Context(system_prompt=system or None, messages=list(messages), tools=tools or None)
