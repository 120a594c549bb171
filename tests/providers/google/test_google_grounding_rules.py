"""Gemini grounding metadata onto citations: every rule of ``_shared_grounding`` on its own.

The segment's UTF-8 byte offsets become character offsets in the block that holds it (the
offsets first, the segment's text as a fallback when they do not match), a chunk without a
source object gives no citation, an index out of range is ignored, and a chunk no support
points to is a citation without a span on the last text block.
"""

from __future__ import annotations

from typing import Any

from pi_sdk_google._shared_grounding import apply_grounding

import pi_sdk
from pi_sdk import TextContent

WEB = {"web": {"uri": "https://a.example/page", "title": "A"}}
FILE = {"retrievedContext": {"text": "passage", "fileSearchStore": "stores/s1"}}


def _spans(block: TextContent) -> list[tuple[Any, ...]]:
    return [(c.type, c.url, c.title, c.cited_text, c.start_index, c.end_index)
            for c in block.citations or []]  # fmt: skip


def test_byte_offsets_become_character_offsets_in_the_block_that_holds_the_segment() -> None:
    first, second = TextContent(text="Zürich ist schön."), TextContent(text="Bern auch.")
    # "schön" starts at byte 12 (ü is two bytes) and character 11
    metadata = {
        "groundingChunks": [WEB],
        "groundingSupports": [
            {"segment": {"startIndex": 12, "endIndex": 18, "text": "schön"},
             "groundingChunkIndices": [0]},
            {"segment": {"startIndex": 0, "endIndex": 4, "text": "Bern"},
             "groundingChunkIndices": [0]},
        ],
    }  # fmt: skip
    apply_grounding(metadata, [first, second])
    assert _spans(first) == [("web", "https://a.example/page", "A", None, 11, 16)]
    assert _spans(second) == [("web", "https://a.example/page", "A", None, 0, 4)]


def test_offsets_that_do_not_match_fall_back_to_the_segments_text() -> None:
    block = TextContent(text="one two three")
    metadata = {
        "groundingChunks": [FILE],
        "groundingSupports": [
            {"segment": {"startIndex": 0, "endIndex": 3, "text": "three"},
             "groundingChunkIndices": [0]},
        ],
    }  # fmt: skip
    apply_grounding(metadata, [block])
    assert _spans(block) == [("retrievedContext", None, "stores/s1", "passage", 8, 13)]


def test_a_segment_found_nowhere_cites_the_last_block_without_a_span() -> None:
    first, last = TextContent(text="alpha"), TextContent(text="beta")
    metadata = {
        "groundingChunks": [WEB],
        "groundingSupports": [
            {"segment": {"endIndex": 99, "text": "gamma"}, "groundingChunkIndices": [0]},
        ],
    }  # fmt: skip
    apply_grounding(metadata, [first, pi_sdk.ThinkingContent(thinking="t"), last])
    assert first.citations is None
    assert _spans(last) == [("web", "https://a.example/page", "A", None, None, None)]


def test_bad_indexes_and_chunks_without_a_source_give_no_citation() -> None:
    block = TextContent(text="text")
    metadata = {
        "groundingChunks": [{"web": "not an object"}, {}, WEB],
        "groundingSupports": [
            {"segment": {"startIndex": 0, "endIndex": 4, "text": "text"},
             "groundingChunkIndices": [5, -1, True, "0", 0, 1]},
        ],
    }  # fmt: skip
    apply_grounding(metadata, [block])
    # chunks 0 and 1 have no source object; chunk 2, pointed to by no support, has no span
    assert _spans(block) == [("web", "https://a.example/page", "A", None, None, None)]


def test_nothing_happens_without_text_or_without_chunks() -> None:
    thinking = pi_sdk.ThinkingContent(thinking="t")
    apply_grounding({"groundingChunks": [WEB]}, [thinking])
    block = TextContent(text="x")
    apply_grounding({"groundingSupports": [{"groundingChunkIndices": [0]}]}, [block])
    assert block.citations is None
