"""Prompt caching in a Chat Completions body: OpenAI's cache key, Anthropic-style markers.

:func:`add_prompt_cache_fields`: ``prompt_cache_key`` and ``prompt_cache_retention`` (pi-ai 1.6).

pi-ai 1.6 (``cacheControlFormat: "anthropic"``) marks three places with the same
``cache_control`` object: the system (or developer) prompt, the last tool, and the last user,
assistant or tool-result message that has text (a string content becomes one text part carrying
the marker; in a list, the last text part gets it). Images are never marked.
"""

from __future__ import annotations

from typing import Any

from pi_sdk import Model, StreamOptions

from .._shared_json import as_dict, as_list
from .._shared_request import prompt_cache_key
from ._compat import CompletionsCompat

__all__ = ["add_cache_markers", "add_prompt_cache_fields"]


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
        if entry["role"] in ("user", "assistant", "tool") and _mark_text(entry, marker):
            return


def add_prompt_cache_fields(
    payload: dict[str, Any], model: Model, compat: CompletionsCompat, options: StreamOptions
) -> bool:
    """Add ``prompt_cache_key`` / ``prompt_cache_retention``; True with long retention on.

    pi-ai 1.6: the key (the session id, at most 64 characters) per
    :attr:`CompletionsCompat.prompt_cache_key_mode` (``auto``: api.openai.com, or long retention
    where supported), never with retention ``"none"``; ``"24h"`` with long retention.
    """
    retention = options.resolved_cache_retention()
    long_retention = retention == "long" and compat.supports_long_cache_retention
    mode = compat.prompt_cache_key_mode
    key_supported = mode == "enabled" or (
        mode == "auto" and ("api.openai.com" in model.base_url or long_retention)
    )
    if options.session_id and retention != "none" and key_supported:
        payload["prompt_cache_key"] = prompt_cache_key(options.session_id)
    if long_retention:
        payload["prompt_cache_retention"] = "24h"
    return long_retention
