"""Document rules, one row per rule of :func:`prepare_document` (issue 34).

The provider tests send documents through each vendor's table; here the rules themselves are
read against a table of their own: sources, URL schemes (and their default), media types, the
size limit at its exact boundary, the text conversion, and the ``vision`` rule.
"""

from __future__ import annotations

import base64

import pytest

from pi_sdk import DocumentContent, Model, TextContent
from pi_sdk._wire.documents import (
    DocumentRules,
    document_as_text,
    is_text_type,
    media_type,
    prepare_document,
)
from pi_sdk.errors import ConfigurationError

VISION = Model(id="m", api="doc-api", provider="p", input=["text", "image"])
TEXT_ONLY = Model(id="m", api="doc-api", provider="p", input=["text"])
WHERE = "messages[3].content[1]"
PDF = base64.b64encode(b"%PDF-1.4 four").decode()  # 13 bytes decoded
RULES: DocumentRules = {
    "sources": ("data", "url", "fileId"),
    "mime_types": ("application/pdf",),
    "max_bytes": 13,
}


def _data(mime: str = "application/pdf", data: str = PDF, name: str | None = None):
    return DocumentContent(data=data, mime_type=mime, name=name)


@pytest.mark.parametrize(
    ("mime", "normal"),
    [
        ("application/PDF", "application/pdf"),
        ("text/plain; charset=utf-8", "text/plain"),
        (" Text/CSV ;x=1", "text/csv"),
        (None, ""),
    ],
)
def test_media_type_is_lower_case_without_parameters(mime: str | None, normal: str) -> None:
    block = DocumentContent(url="https://x.test/a", mime_type=mime)
    assert media_type(block) == normal


@pytest.mark.parametrize(
    ("mime", "text"),
    [
        ("text/plain", True),
        ("text/markdown", True),
        ("application/json", True),
        ("application/xml", True),
        ("application/x-yaml", True),
        ("application/pdf", False),
        ("image/png", False),
        ("application/jsonl", False),
        ("texts/plain", False),
    ],
)
def test_text_types(mime: str, text: bool) -> None:
    assert is_text_type(mime) is text


def test_document_as_text_keeps_name_type_and_text() -> None:
    data = base64.b64encode("héllo".encode()).decode()
    named = document_as_text(_data("text/plain; charset=utf-8", data, "a.txt"))
    assert named == TextContent(
        text='<document name="a.txt" type="text/plain">\nhéllo\n</document>'
    )
    assert document_as_text(_data("text/plain", data)).text.startswith(
        '<document type="text/plain">'
    )


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ("not base64!", "is not base64"),
        ("data:text/plain;base64,aGk=", "is not base64"),
        ("aGVsbG8=é", "is not base64"),  # not ASCII: base64 raises ValueError, not binascii's
        (base64.b64encode(b"\xff\xfe").decode(), "the text/plain document is not UTF-8 text"),
    ],
)
def test_document_as_text_refuses_bad_data_naming_the_place(data: str, words: str) -> None:
    with pytest.raises(ConfigurationError, match=words) as caught:
        document_as_text(_data("text/plain", data), WHERE)
    assert str(caught.value).startswith(f"{WHERE}: ")


@pytest.mark.parametrize(
    ("block", "rules", "words"),
    [
        (_data(), None, "does not take a application/pdf document given as data"),
        (_data(), {"sources": ("url",)}, "does not take a application/pdf document given as data"),
        (
            DocumentContent(url="https://x.test/a.pdf"),
            {"sources": ("data",)},
            "does not take a document given by URL (https:)",
        ),
        (
            DocumentContent(file_id="file-1"),
            {"sources": ("data", "url")},
            "does not take a document given by file id",
        ),
        (
            DocumentContent(url="gs://bucket/a.pdf"),
            {"sources": ("url",)},
            "given by URL (gs:); it fetches https:, http: URLs",
        ),
        (
            DocumentContent(url="HTTPS://x.test/a.pdf"),
            {"sources": ("url",), "url_schemes": ("s3",)},
            "it fetches s3: URLs",
        ),
        (
            DocumentContent(url="no-scheme"),
            {"sources": ("url",)},
            "it fetches https:, http: URLs",
        ),
        (_data("image/png"), RULES, "it takes application/pdf"),
        (_data("image/png"), {"sources": ("data",)}, "it takes no data documents"),
        (
            _data(),
            {"sources": ("data",), "mime_types": ("image/png", "application/pdf"), "max_bytes": 12},
            "is 13 bytes; p/m (doc-api) takes at most 12 bytes per document",
        ),
        (_data(data="%%%"), RULES, "is not base64"),
    ],
)
def test_each_refusal_names_the_place_the_target_and_the_rule(
    block: DocumentContent, rules: DocumentRules | None, words: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        prepare_document(block, rules, VISION, WHERE)
    text = str(caught.value)
    assert text.startswith(f"{WHERE}: ")
    assert words in text


@pytest.mark.parametrize(
    "block",
    [
        _data(),  # exactly at the size limit
        _data("Application/PDF; v=1"),
        DocumentContent(url="https://x.test/a.pdf"),
        DocumentContent(url="HTTP://x.test/a.pdf"),  # schemes compare lower case
        DocumentContent(file_id="file-1"),
    ],
)
def test_what_the_rules_take_is_returned_unchanged(block: DocumentContent) -> None:
    assert prepare_document(block, RULES, VISION, WHERE) is block


def test_the_size_error_names_the_document_and_the_source_of_the_limit() -> None:
    rules: DocumentRules = {**RULES, "max_bytes": 5, "limit_source": "vendor docs"}
    with pytest.raises(ConfigurationError) as caught:
        prepare_document(_data(name="r.pdf"), rules, VISION, WHERE)
    assert "the document 'r.pdf' is 13 bytes" in str(caught.value)
    assert str(caught.value).endswith("per document (vendor docs)")
    unnamed = {**RULES, "max_bytes": 5}
    with pytest.raises(ConfigurationError) as caught:
        prepare_document(_data(), unnamed, VISION, WHERE)
    assert "the document is 13 bytes" in str(caught.value)
    assert str(caught.value).endswith("per document")


TEXT = base64.b64encode(b"a,b\n1,2").decode()


@pytest.mark.parametrize(
    ("rules", "model", "native"),
    [
        (None, VISION, False),  # no rules: text still goes, as text
        ({"sources": ("data",), "mime_types": ("text/csv",)}, VISION, True),
        ({"sources": ("data",), "mime_types": ("text/plain",)}, VISION, False),
        ({"sources": ("data",), "mime_types": ("text/csv",), "vision": True}, VISION, True),
        ({"sources": ("data",), "mime_types": ("text/csv",), "vision": True}, TEXT_ONLY, False),
        ({"sources": ("data",), "mime_types": ("text/csv",), "vision": False}, TEXT_ONLY, True),
    ],
)
def test_a_text_document_goes_natively_only_where_taken_else_as_text(
    rules: DocumentRules | None, model: Model, native: bool
) -> None:
    block = _data("text/csv", TEXT, "t.csv")
    out = prepare_document(block, rules, model, WHERE)
    if native:
        assert out is block
    else:
        assert out == TextContent(
            text='<document name="t.csv" type="text/csv">\na,b\n1,2\n</document>'
        )


def test_a_bad_text_document_is_refused_even_where_taken_natively() -> None:
    rules: DocumentRules = {"sources": ("data",), "mime_types": ("text/plain",)}
    with pytest.raises(ConfigurationError, match="not UTF-8"):
        prepare_document(
            _data("text/plain", base64.b64encode(b"\xff").decode()), rules, VISION, WHERE
        )


@pytest.mark.parametrize(
    ("block", "kind"),
    [
        (_data(), "a application/pdf document given as data"),
        (DocumentContent(url="https://x.test/a.pdf"), "a document given by URL (https:)"),
        (DocumentContent(file_id="file-1"), "a document given by file id"),
    ],
)
def test_vision_rules_refuse_every_non_text_document_for_a_text_only_model(
    block: DocumentContent, kind: str
) -> None:
    rules: DocumentRules = {**RULES, "vision": True}
    with pytest.raises(ConfigurationError) as caught:
        prepare_document(block, rules, TEXT_ONLY, WHERE)
    assert f"{WHERE}: p/m (doc-api) does not take documents (its input is ['text'])" in str(
        caught.value
    )
    assert str(caught.value).endswith(f"cannot send {kind}")
    assert prepare_document(block, rules, VISION, WHERE) is block
    assert prepare_document(block, {**RULES, "vision": False}, TEXT_ONLY, WHERE) is block
