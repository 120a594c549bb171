"""Anthropic-style prompt-cache markers in a Chat Completions body (OpenRouter serving Claude).

pi-ai 0.73 (``cacheControlFormat: "anthropic"``) marks three places with the same
``cache_control`` object: the system (or developer) prompt, the last tool, and the last
user/assistant message that has text (a string content becomes one text part carrying the
marker; in a list, the last text part gets it). Tool results and images are never marked.
"""

from __future__ import annotations

from typing import Any

from .._shared_json import as_dict, as_list

__all__ = ["add_cache_markers"]


def _mark_text(entry: dict[str, Any], marker: dict[str, Any]) -> bool:
    content = entry.get("content")
    if isinstance(content, str):
        if not content:
            return False
        entry["content"] = [{"type": "text", "text": content, "cache_control": dict(marker)}]
        return True
    for part in reversed(as_list(content)):
        fields = as_dict(part)
        if fields.get("type") == "text":
            fields["cache_control"] = dict(marker)
            return True
    return False


def add_cache_markers(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, marker: dict[str, Any]
) -> None:
    """Put a copy of ``marker`` on the prompt, the last tool and the last text message, in place."""
    for entry in messages:
        if entry["role"] in ("system", "developer"):
            _mark_text(entry, marker)
            break
    if tools:
        tools[-1]["cache_control"] = dict(marker)
    for entry in reversed(messages):
        if entry["role"] in ("user", "assistant") and _mark_text(entry, marker):
            return
