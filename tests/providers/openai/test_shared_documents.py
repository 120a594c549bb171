"""OpenAI file parts of a document (``_shared_documents``): Chat ``file``, Responses ``input_file``.

A document with data is sent as a ``data:`` URL (its media type without parameters,
lower-cased) and a ``filename``: its ``name``, else ``document.<subtype>`` from its media type
(``document.bin`` when the type has no subtype). A file id or a URL is sent as it is.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai._shared_documents import chat_file_part, chat_media_part, input_file_part

import pi_sdk

DATA = "JVBERi0="


@pytest.mark.parametrize(
    ("mime", "name", "filename", "url_mime"),
    [
        ("application/pdf", "report.pdf", "report.pdf", "application/pdf"),
        ("application/pdf", None, "document.pdf", "application/pdf"),
        ("application/pdf; charset=binary", None, "document.pdf", "application/pdf"),
        ("Application/PDF ;x=1", None, "document.PDF", "application/pdf"),
        ("text/plain", None, "document.plain", "text/plain"),
        ("application/", None, "document.bin", "application/"),
        ("pdf", None, "document.pdf", "pdf"),
    ],
)
def test_a_document_with_data_gets_a_data_url_and_a_filename(
    mime: str, name: str | None, filename: str, url_mime: str
) -> None:
    document = pi_sdk.DocumentContent(data=DATA, mime_type=mime, name=name)
    data_url = f"data:{url_mime};base64,{DATA}"
    chat = {"type": "file", "file": {"file_data": data_url, "filename": filename}}
    assert chat_file_part(document) == chat
    assert chat_media_part(document) == chat
    assert input_file_part(document) == {
        "type": "input_file",
        "file_data": data_url,
        "filename": filename,
    }


@pytest.mark.parametrize(
    ("source", "chat", "responses"),
    [
        ({"file_id": "file-1"}, {"type": "file", "file": {"file_id": "file-1"}},
         {"type": "input_file", "file_id": "file-1"}),
        ({"file_id": "file-2", "mime_type": "application/pdf", "name": "a.pdf"},
         {"type": "file", "file": {"file_id": "file-2"}},
         {"type": "input_file", "file_id": "file-2"}),
        ({"url": "https://example.test/a.pdf"}, None,
         {"type": "input_file", "file_url": "https://example.test/a.pdf"}),
    ],
)  # fmt: skip
def test_a_file_id_or_url_is_sent_as_it_is(
    source: dict[str, Any], chat: dict[str, Any] | None, responses: dict[str, Any]
) -> None:
    document = pi_sdk.DocumentContent(**source)
    if chat is not None:
        assert chat_file_part(document) == chat
    assert input_file_part(document) == responses
