"""Server-side tool blocks sent to another vendor: the documented text they become.

A :class:`~pi_sdk.types.ServerToolCall` or :class:`~pi_sdk.types.ServerToolResult` replays as the
vendor's own JSON (``raw``) only to the same model and endpoint (the rule of signatures,
:func:`pi_sdk.provider.is_same_source`). Any other target cannot take it: it gets a text block
instead (:func:`server_block_text`), so the conversation keeps what was searched, fetched or run
and which sources came back:

* a call: ``[server tool web_search: {"query": "..."}]``;
* a result: ``[web_search_tool_result]`` then the sources found in its content, one
  ``- <title> <url>`` line each (every JSON object with a ``url`` or ``uri``), and any
  ``stdout`` / ``stderr`` / ``return_code`` / ``text`` of code execution; an error result:
  ``[web_search_tool_result: error <code>]``. Other content: its compact JSON, cut at
  :data:`MAX_SUMMARY_CHARS` characters.
"""

from __future__ import annotations

import json
from typing import Any, cast

from pi_sdk.types import ServerToolCall, ServerToolResult

__all__ = ["MAX_SUMMARY_CHARS", "server_block_text"]

MAX_SUMMARY_CHARS = 4000
"""Longest text a server-tool block becomes for another vendor (characters)."""

_OUTPUT_FIELDS = ("stdout", "stderr", "return_code", "output", "text")


def _walk(value: Any, sources: list[str], outputs: list[str]) -> None:
    if isinstance(value, dict):
        fields = cast(dict[str, Any], value)
        url = fields.get("url") or fields.get("uri")
        if isinstance(url, str) and url:
            title = fields.get("title")
            line = f"- {title} {url}" if isinstance(title, str) and title else f"- {url}"
            if line not in sources:
                sources.append(line)
        for key in _OUTPUT_FIELDS:
            item = fields.get(key)
            if isinstance(item, str | int) and not isinstance(item, bool) and str(item).strip():
                outputs.append(f"{key}: {item}")
        for key, item in fields.items():
            if key not in _OUTPUT_FIELDS and isinstance(item, dict | list):
                _walk(item, sources, outputs)
    elif isinstance(value, list):
        for item in cast(list[Any], value):
            _walk(item, sources, outputs)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_SUMMARY_CHARS else text[: MAX_SUMMARY_CHARS - 1] + "…"


def server_block_text(block: ServerToolCall | ServerToolResult) -> str:
    """The text that stands for ``block`` in a request to another vendor (module docstring)."""
    if isinstance(block, ServerToolCall):
        arguments = json.dumps(block.arguments, ensure_ascii=False, separators=(",", ":"))
        return _cut(f"[server tool {block.name}: {arguments}]")
    if block.error:
        return f"[{block.kind}: error {block.error}]"
    sources: list[str] = []
    outputs: list[str] = []
    _walk(block.content, sources, outputs)
    if not sources and not outputs:
        if block.content in (None, "", [], {}):
            return f"[{block.kind}]"
        content = json.dumps(block.content, ensure_ascii=False, separators=(",", ":"))
        return _cut(f"[{block.kind}] {content}")
    return _cut("\n".join([f"[{block.kind}]", *outputs, *sources]))
