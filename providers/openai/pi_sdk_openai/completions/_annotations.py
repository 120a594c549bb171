"""Chat Completions ``annotations`` -> :class:`pi_sdk.Citation` (OpenRouter web search, OpenAI).

A message (or a stream delta) may carry ``annotations`` (OpenAI API reference, Chat
Completions, ``message.annotations``; OpenRouter, "Web search"): ``{"type": "url_citation",
"url_citation": {"url", "title", "start_index", "end_index", "content"?}}``. OpenRouter sends
them in deltas with empty content, before the text they belong to.

Each becomes a citation: ``type`` the annotation's, ``url``, ``title`` (``None`` when empty),
``cited_text`` the source excerpt OpenRouter adds as ``content``, the span as given, ``raw``
the annotation. Chat Completions takes no annotations back: they stay in the transcript for the
reader and become a list of sources for another vendor (:mod:`pi_sdk._wire.citations`).
"""

from __future__ import annotations

from typing import Any, cast

import pi_sdk

__all__ = ["citations_of"]


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def citations_of(annotations: Any) -> list[pi_sdk.Citation]:
    """The citations of a delta's or message's ``annotations`` (``[]`` for anything else)."""
    found: list[pi_sdk.Citation] = []
    for item in cast(list[Any], annotations) if isinstance(annotations, list) else []:
        if not isinstance(item, dict):
            continue
        raw = cast(dict[str, Any], item)
        kind = _text(raw.get("type")) or "annotation"
        body = raw.get(kind)
        fields = cast(dict[str, Any], body) if isinstance(body, dict) else raw
        found.append(
            pi_sdk.Citation(
                type=kind,
                url=_text(fields.get("url")),
                title=_text(fields.get("title")),
                cited_text=_text(fields.get("content")),
                start_index=_int(fields.get("start_index")),
                end_index=_int(fields.get("end_index")),
                raw=dict(raw),
            )
        )
    return found
