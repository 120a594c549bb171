"""Responses ``output_text`` annotations -> citations (``responses._citations``), by rule.

Each annotation of an ``output_text`` part is one citation: its ``type`` (``"annotation"``
without one), ``url``, ``title`` (else its ``filename``), ``start_index`` / ``end_index``
moved by the text of the ``output_text`` parts before it (a point annotation's ``index`` gives
both), ``raw`` as it came. Parts of other types, and annotations that are not objects, give
nothing; no citation at all is ``None``.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai.responses._citations import citations_of

from pi_sdk import Citation

URL = {"type": "url_citation", "url": "https://e.x", "title": "E", "start_index": 1, "end_index": 4}
FILE = {"type": "file_citation", "file_id": "file-1", "filename": "a.pdf", "index": 3}
CONTAINER = {"type": "container_file_citation", "container_id": "c", "file_id": "f",
             "filename": "out.csv", "start_index": 0, "end_index": 2}  # fmt: skip


def text(value: Any, *annotations: Any, kind: str = "output_text") -> dict[str, Any]:
    return {"type": kind, "text": value, "annotations": list(annotations)}


@pytest.mark.parametrize(
    ("raw", "offset", "citation"),
    [
        (URL, 0, Citation(type="url_citation", url="https://e.x", title="E", start_index=1,
                          end_index=4, raw=URL)),
        (URL, 5, Citation(type="url_citation", url="https://e.x", title="E", start_index=6,
                          end_index=9, raw=URL)),
        (FILE, 5, Citation(type="file_citation", title="a.pdf", start_index=8, end_index=8,
                           raw=FILE)),
        (CONTAINER, 2, Citation(type="container_file_citation", title="out.csv", start_index=2,
                                end_index=4, raw=CONTAINER)),
        ({"type": "file_path", "file_id": "f", "index": 0}, 0,
         Citation(type="file_path", start_index=0, end_index=0,
                  raw={"type": "file_path", "file_id": "f", "index": 0})),
        ({"title": "", "filename": "x", "url": ""}, 0,
         Citation(type="annotation", title="x", raw={"title": "", "filename": "x", "url": ""})),
        ({"type": "", "start_index": 2, "index": 9}, 1,
         Citation(type="annotation", start_index=3,
                  raw={"type": "", "start_index": 2, "index": 9})),
        ({"type": "t", "end_index": 2, "index": 9}, 1,
         Citation(type="t", end_index=3, raw={"type": "t", "end_index": 2, "index": 9})),
        ({"type": "t", "start_index": True, "end_index": "3", "index": False}, 0,
         Citation(type="t", raw={"type": "t", "start_index": True, "end_index": "3",
                                 "index": False})),
    ],
)  # fmt: skip
def test_each_annotation_is_a_citation(raw: dict[str, Any], offset: int, citation: Citation):
    parts = [text("x" * offset), text("tail", raw)]
    (found,) = citations_of(parts) or []
    assert found == citation
    assert found.raw is not raw  # a copy


def test_indexes_move_by_the_output_text_before_them_only() -> None:
    parts = [
        text("abc", URL),
        {"type": "refusal", "refusal": "no", "text": "ignored"},
        text("zz", URL, kind="other_text"),
        text(None),
        text("de", "not an object", 7, URL),
        {"type": "output_text", "text": "fg", "annotations": URL},  # not a list
        text("", URL),
    ]
    found = citations_of(parts) or []
    assert [(c.start_index, c.end_index) for c in found] == [(1, 4), (4, 7), (8, 11)]


@pytest.mark.parametrize(
    "parts",
    [[], [text("a")], [text("a", "x")], [{"type": "refusal", "annotations": [URL]}]],
)
def test_no_citation_is_none(parts: list[dict[str, Any]]) -> None:
    assert citations_of(parts) is None
