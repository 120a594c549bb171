"""Responses ``output_text`` annotations -> :class:`pi_sdk.Citation` on the text block.

A message item's ``output_text`` parts carry ``annotations`` (OpenAI API reference, "Output
text"): ``url_citation`` (``url``, ``title``, ``start_index``, ``end_index``: a web search
source), ``file_citation`` (``file_id``, ``filename``, ``index``: a file search source),
``container_file_citation`` (``container_id``, ``file_id``, ``filename``, ``start_index``,
``end_index``: a file the code interpreter wrote), ``file_path`` (``file_id``, ``index``).

Each becomes a citation: ``type`` the annotation's, ``url``, ``title`` (its ``title``, else
its ``filename``), ``start_index`` / ``end_index`` in the block's text (the part's indexes
moved by the text of the parts before it; a point annotation's ``index`` gives both), ``raw``
the annotation as it came. Replayed to the same model and endpoint, the annotations go back on
the ``output_text`` part as they came (:mod:`._input`).
"""

from __future__ import annotations

from typing import Any, cast

import pi_sdk

__all__ = ["citations_of"]


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _citation(raw: dict[str, Any], offset: int) -> pi_sdk.Citation:
    point = _int(raw.get("index"))
    start = _int(raw.get("start_index"))
    end = _int(raw.get("end_index"))
    if start is None and end is None:
        start = end = point
    return pi_sdk.Citation(
        type=_text(raw.get("type")) or "annotation",
        url=_text(raw.get("url")),
        title=_text(raw.get("title")) or _text(raw.get("filename")),
        start_index=None if start is None else start + offset,
        end_index=None if end is None else end + offset,
        raw=dict(raw),
    )


def citations_of(parts: list[dict[str, Any]]) -> list[pi_sdk.Citation] | None:
    """The citations of a message item's content ``parts`` (``None`` when they have none)."""
    found: list[pi_sdk.Citation] = []
    offset = 0
    for part in parts:
        if part.get("type") != "output_text":
            continue
        annotations = part.get("annotations")
        if isinstance(annotations, list):
            for raw in cast(list[Any], annotations):
                if isinstance(raw, dict):
                    found.append(_citation(cast(dict[str, Any], raw), offset))
        text = part.get("text")
        offset += len(text) if isinstance(text, str) else 0
    return found or None
