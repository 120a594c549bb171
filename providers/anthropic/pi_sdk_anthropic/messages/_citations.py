"""Anthropic citations on text blocks -> :class:`pi_sdk.Citation`.

A text block may cite sources (Anthropic docs, "Citations" and "Web search tool"): a
``citations`` array on the block (a whole message) or one ``citations_delta`` per citation
(stream). Each citation is an object whose ``type`` says where it points:
``web_search_result_location`` (``url``, ``title``, ``cited_text``), ``char_location`` /
``page_location`` / ``content_block_location`` (a document: ``document_title``, ``cited_text``,
the span), ``search_result_location``. The whole object is kept as ``raw`` and sent back on the
block to the same model and endpoint.
"""

from __future__ import annotations

from typing import Any, cast

import pi_sdk
from pi_sdk.provider import MessageBuilder

__all__ = ["cite", "citation", "citations_of"]


def citation(raw: dict[str, Any]) -> pi_sdk.Citation:
    """The :class:`pi_sdk.Citation` of one Anthropic citation object."""

    def text(key: str) -> str | None:
        value = raw.get(key)
        return value if isinstance(value, str) else None

    def number(key: str) -> int | None:
        value = raw.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    return pi_sdk.Citation(
        type=text("type") or "citation",
        url=text("url"),
        title=text("title") or text("document_title"),
        cited_text=text("cited_text"),
        start_index=number("start_char_index"),
        end_index=number("end_char_index"),
        raw=dict(raw),
    )


def citations_of(value: Any) -> list[pi_sdk.Citation] | None:
    """The citations of a block's ``citations`` field (``None`` when it has none)."""
    if not isinstance(value, list):
        return None
    items = [
        citation(cast(dict[str, Any], c)) for c in cast(list[Any], value) if isinstance(c, dict)
    ]
    return items or None


def cite(builder: MessageBuilder, index: Any, raw: Any) -> None:
    """Add the citations ``raw`` (a ``citations`` list) to the open text block ``index``."""
    text = builder.block(index)
    cited = citations_of(raw)
    if isinstance(text, pi_sdk.TextContent) and cited:
        text.citations = [*(text.citations or ()), *cited]
