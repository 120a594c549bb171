"""Gemini grounding metadata -> :class:`pi_sdk.Citation` on the reply's text blocks.

A grounded reply (Google Search, URL context, file search, Maps; Gemini API reference,
``GroundingMetadata``) carries, on its candidate, ``groundingChunks`` (the sources: ``web``
``{uri, title}``, ``retrievedContext`` ``{uri?, title?, text?, fileSearchStore?}``, ``maps``...)
and ``groundingSupports`` (which span of the answer each source supports: ``segment``
``{startIndex?, endIndex, text}``, UTF-8 byte offsets into the answer's text, and
``groundingChunkIndices``). A stream repeats it on several chunks, the last non-empty one whole.

Each (support, chunk) pair becomes a citation on the text block holding the segment:
``type`` = the chunk's kind (``"web"``, ``"retrievedContext"``, ``"maps"``), ``url`` / ``title``
the chunk's ``uri`` / ``title`` (a file-search chunk without a title: its store),
``cited_text`` the source passage when the chunk gives one (``retrievedContext.text``),
``start_index`` / ``end_index`` the segment in the block's text, in characters; ``raw`` is the
chunk. A chunk no support points to is still a source of the answer: a citation without a span
on the last text block. Gemini takes no grounding back in a request: the citations are kept
for the reader (``pi-sdk chat`` prints them) and become a list of sources for another vendor
(:mod:`pi_sdk._wire.citations`).
"""

from __future__ import annotations

from typing import Any, cast

import pi_sdk

__all__ = ["apply_grounding"]


def _dict(value: Any) -> dict[str, Any]:
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return cast(list[Any], value) if isinstance(value, list) else []


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _span(text: str, segment: dict[str, Any]) -> tuple[int, int] | None:
    """Where ``segment`` is in ``text``, in characters, or ``None`` when it is not there."""
    wanted = segment.get("text")
    start, end = _int(segment.get("startIndex")) or 0, _int(segment.get("endIndex"))
    encoded = text.encode("utf-8")
    if end is not None and 0 <= start <= end <= len(encoded):
        piece = encoded[start:end].decode("utf-8", "replace")
        if not isinstance(wanted, str) or piece == wanted:
            first = len(encoded[:start].decode("utf-8", "ignore"))
            return first, first + len(piece)
    if isinstance(wanted, str) and wanted:
        found = text.find(wanted)
        if found >= 0:
            return found, found + len(wanted)
    return None


def _citation(chunk: dict[str, Any], span: tuple[int, int] | None) -> pi_sdk.Citation | None:
    for kind, value in chunk.items():
        source = _dict(value)
        if not source:
            continue
        url, title, passage = source.get("uri"), source.get("title"), source.get("text")
        title = title or source.get("fileSearchStore") or source.get("documentName")
        return pi_sdk.Citation(
            type=kind,
            url=url if isinstance(url, str) else None,
            title=title if isinstance(title, str) else None,
            cited_text=passage if isinstance(passage, str) else None,
            start_index=span[0] if span else None,
            end_index=span[1] if span else None,
            raw=dict(chunk),
        )
    return None


def _cite(block: pi_sdk.TextContent, citation: pi_sdk.Citation | None) -> None:
    if citation is not None:
        block.citations = [*(block.citations or ()), citation]


def apply_grounding(metadata: dict[str, Any], content: list[Any]) -> None:
    """Add the citations of ``metadata`` (a ``groundingMetadata``) to ``content``'s text blocks.

    ``content`` is a reply's blocks, changed in place; the module docstring has the rule.
    """
    texts = [b for b in content if isinstance(b, pi_sdk.TextContent)]
    chunks = [_dict(c) for c in _list(metadata.get("groundingChunks"))]
    if not texts or not chunks:
        return
    cited: set[int] = set()
    for support in map(_dict, _list(metadata.get("groundingSupports"))):
        segment = _dict(support.get("segment"))
        block, span = texts[-1], None
        for candidate in texts:
            span = _span(candidate.text, segment)
            if span is not None:
                block = candidate
                break
        for index in _list(support.get("groundingChunkIndices")):
            if isinstance(index, int) and 0 <= index < len(chunks):
                cited.add(index)
                _cite(block, _citation(chunks[index], span))
    for index, chunk in enumerate(chunks):
        if index not in cited:
            _cite(texts[-1], _citation(chunk, None))
