"""Chat Completions ``annotations``: every field shape, and every place in the stream they come.

Each annotation becomes one :class:`pi_sdk.Citation` (``_annotations.citations_of``). A text
field (``type``, ``url``, ``title``, ``content``) is kept only when it is a non-empty string:
an empty string, a number, a list, ``null`` or a missing key is ``None``; a span index only when
it is an int (not a bool, a float or a digit string). The fields sit under the key the ``type``
names, else on the annotation itself; an annotation without a usable ``type`` is an
``"annotation"``. ``raw`` is the annotation as sent, whatever its fields.

In a stream, annotations go to the text block open when they come, else to the reply's last
text block at the end (OpenRouter sends them before the text they belong to).
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.decoding import decoded
from pi_sdk_openai.completions import Decoder
from pi_sdk_openai.completions._annotations import citations_of

from pi_sdk import Citation, Model, TextContent, ToolCall

URL = "https://example.org/a"
FULL = {"url": URL, "title": "A page", "content": "the excerpt", "start_index": 3, "end_index": 9}


def _annotation(**fields: Any) -> dict[str, Any]:
    return {"type": "url_citation", "url_citation": fields}


def _full_citation(raw: dict[str, Any]) -> Citation:
    """FULL's citation, with ``raw`` the annotation it came from."""
    return Citation(
        type="url_citation",
        url=URL,
        title="A page",
        cited_text="the excerpt",
        start_index=3,
        end_index=9,
        raw=raw,
    )


def test_a_full_url_citation() -> None:
    item = _annotation(**FULL)
    assert citations_of([item]) == [_full_citation(item)]


@pytest.mark.parametrize("value", ["", 0, 7, 1.5, True, None, [URL], {"href": URL}])
@pytest.mark.parametrize(
    ("key", "field"), [("url", "url"), ("title", "title"), ("content", "cited_text")]
)
def test_a_text_field_that_is_not_a_non_empty_string_is_none(key: str, field: str, value: Any):
    item = _annotation(**{**FULL, key: value})
    (citation,) = citations_of([item])
    assert citation == _full_citation(item).model_copy(update={field: None})


@pytest.mark.parametrize(
    ("key", "field"), [("url", "url"), ("title", "title"), ("content", "cited_text")]
)
def test_a_missing_text_field_is_none(key: str, field: str) -> None:
    fields = {k: v for k, v in FULL.items() if k != key}
    (citation,) = citations_of([_annotation(**fields)])
    assert getattr(citation, field) is None
    assert citation.url == (None if key == "url" else URL)


@pytest.mark.parametrize("value", [True, False, 3.0, "3", None, [3]])
@pytest.mark.parametrize("key", ["start_index", "end_index"])
def test_a_span_index_that_is_not_an_int_is_none(key: str, value: Any) -> None:
    (citation,) = citations_of([_annotation(**{**FULL, key: value})])
    spans = {"start_index": 3, "end_index": 9, key: None}
    assert (citation.start_index, citation.end_index) == (spans["start_index"], spans["end_index"])


@pytest.mark.parametrize(
    ("item", "kind"),
    [
        pytest.param({"url": URL, "title": "T"}, "annotation", id="type-missing"),
        pytest.param({"type": "", "url": URL, "title": "T"}, "annotation", id="type-empty"),
        pytest.param({"type": 5, "url": URL, "title": "T"}, "annotation", id="type-not-text"),
        pytest.param(
            {"type": "file_citation", "url": URL, "title": "T"}, "file_citation", id="no-body"
        ),
        pytest.param(
            {"type": "file_citation", "file_citation": "x", "url": URL, "title": "T"},
            "file_citation",
            id="body-not-an-object",
        ),
    ],
)
def test_fields_on_the_annotation_itself(item: dict[str, Any], kind: str) -> None:
    assert citations_of([item]) == [Citation(type=kind, url=URL, title="T", raw=item)]


def test_the_body_under_the_type_wins_over_the_top_level() -> None:
    item = {"type": "url_citation", "url": "https://top.example", "url_citation": {"url": URL}}
    assert citations_of([item]) == [Citation(type="url_citation", url=URL, raw=item)]


@pytest.mark.parametrize("annotations", [None, "x", 3, {"type": "url_citation"}, []])
def test_annotations_that_are_not_a_list_give_none(annotations: Any) -> None:
    assert citations_of(annotations) == []


def test_entries_that_are_not_objects_are_skipped_in_order() -> None:
    first, second = _annotation(url=URL), _annotation(url="https://example.org/b")
    found = citations_of([first, None, "x", 3, [first], second])
    assert [c.url for c in found] == [URL, "https://example.org/b"]


def test_raw_is_a_copy_of_the_annotation() -> None:
    item = _annotation(**FULL)
    (citation,) = citations_of([item])
    item["type"] = "changed"
    assert citation.raw == _annotation(**FULL)


# --- where they come in a stream ----------------------------------------------------------------

MODEL = Model(id="gpt-test", api="openai-completions", provider="openrouter", base_url="http://x")
CITED = _annotation(url=URL, title="A page")
CITATION = Citation(type="url_citation", url=URL, title="A page", raw=CITED)


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "c",
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _decode(*deltas: dict[str, Any]) -> list[Any]:
    return decoded(Decoder, MODEL, [*map(_chunk, deltas), _chunk({}, "stop")]).content


@pytest.mark.parametrize(
    "deltas",
    [
        pytest.param(
            [{"content": "", "annotations": [CITED]}, {"content": "Hel"}, {"content": "lo"}],
            id="before",
        ),
        pytest.param(
            [{"content": "Hel"}, {"content": "", "annotations": [CITED]}, {"content": "lo"}],
            id="during",
        ),
        pytest.param(
            [{"content": "Hel"}, {"content": "lo", "annotations": [CITED]}], id="with-text"
        ),
        pytest.param([{"content": "Hello"}, {"annotations": [CITED]}], id="after"),
    ],
)
def test_the_text_block_gets_the_citation_wherever_it_comes(deltas: list[dict[str, Any]]) -> None:
    assert _decode(*deltas) == [TextContent(text="Hello", citations=[CITATION])]


def test_citations_after_the_text_ended_go_to_the_last_text_block() -> None:
    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "f", "arguments": "{}"},
    }
    content = _decode({"content": "Hello"}, {"tool_calls": [call]}, {"annotations": [CITED]})
    assert content == [
        TextContent(text="Hello", citations=[CITATION]),
        ToolCall(id="call_1", name="f", arguments={}),
    ]


def test_citations_of_two_deltas_are_kept_in_order() -> None:
    other = _annotation(url="https://example.org/b")
    content = _decode(
        {"content": "", "annotations": [CITED]}, {"content": "Hello", "annotations": [other]}
    )
    assert content == [
        TextContent(
            text="Hello",
            citations=[
                CITATION,
                Citation(type="url_citation", url="https://example.org/b", raw=other),
            ],
        )
    ]


def test_citations_without_any_text_are_dropped() -> None:
    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "f", "arguments": "{}"},
    }
    assert _decode({"annotations": [CITED]}, {"tool_calls": [call]}) == [
        ToolCall(id="call_1", name="f", arguments={})
    ]
