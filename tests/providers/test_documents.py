"""Document blocks: each API's request shape for a real small PDF, and bad input before a request.

The shapes are the vendors' documented ones (``docs/documents.md`` cites them; the recorded
requests of ``test_documents_recorded.py`` were answered with HTTP 200). A document a target
cannot take is a ``ConfigurationError`` naming the model, the kind and the block's place in the
history, raised while the payload is built: nothing is sent.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from pi_sdk_anthropic.messages import build_headers
from pi_sdk_anthropic.messages import build_request as anthropic_body
from pi_sdk_bedrock.converse._request import build_request as bedrock_body
from pi_sdk_google._shared_request import build_request as google_body
from pi_sdk_mistral.conversations._request import build_request as mistral_body
from pi_sdk_openai.completions import build_payload as chat_body
from pi_sdk_openai.responses import build_payload as responses_body

import pi_sdk
from pi_sdk import (
    AssistantMessage,
    ConfigurationError,
    Context,
    DocumentContent,
    StreamOptions,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)


def small_pdf(text: str = "Hello, PDF") -> bytes:
    """A valid one-page PDF 1.4 showing ``text`` (objects, xref table with exact offsets)."""
    stream = f"BT /F1 24 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets: list[int] = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


PDF = small_pdf()
PDF_B64 = base64.b64encode(PDF).decode()
PDF_DOC = DocumentContent(data=PDF_B64, mime_type="application/pdf", name="report.pdf")
OPTIONS = StreamOptions(api_key="test-key", cache_retention="none")


def test_the_generated_pdf_is_a_pdf():
    assert PDF.startswith(b"%PDF-1.4") and PDF.rstrip().endswith(b"%%EOF")
    xref = int(PDF.rsplit(b"startxref\n", 1)[1].split(b"\n", 1)[0])
    assert PDF[xref:].startswith(b"xref")


def _model(provider: str, model_id: str, **update: Any) -> pi_sdk.Model:
    model = pi_sdk.get_model(provider, model_id)
    return model.model_copy(update=update) if update else model


CLAUDE = _model("anthropic", "claude-sonnet-4-5")
GPT = _model("openai", "gpt-4o")
GPT_CHAT = _model("openai", "gpt-4o", api="openai-completions")
GEMINI = _model("google", "gemini-2.5-flash")
VERTEX = _model("google-vertex", "gemini-2.5-flash")
NOVA = _model("amazon-bedrock", "anthropic.claude-haiku-4-5-20251001-v1:0")
MISTRAL = _model("mistral", "mistral-medium-latest")
TEXT_ONLY_CHAT = _model("groq", "llama-3.1-8b-instant")


def _user(*blocks: Any) -> Context:
    return Context(messages=[UserMessage(content=[TextContent(text="Summarize:"), *blocks])])


def _tool_turn(*blocks: Any) -> Context:
    call = ToolCall(id="call_1", name="fetch", arguments={})
    assistant = AssistantMessage(
        content=[call], api="x", provider="x", model="x", stop_reason="toolUse"
    )
    result = ToolResultMessage(tool_call_id="call_1", tool_name="fetch", content=list(blocks))
    return Context(messages=[UserMessage(content="get it"), assistant, result])


# --- request shapes: data ---------------------------------------------------------------------


def test_anthropic_sends_a_base64_document_with_its_title():
    body = anthropic_body(CLAUDE, _user(PDF_DOC), OPTIONS)
    assert body["messages"][0]["content"][1] == {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
        "title": "report.pdf",
    }


def test_anthropic_sends_a_document_in_a_tool_result():
    body = anthropic_body(CLAUDE, _tool_turn(PDF_DOC), OPTIONS)
    result = body["messages"][-1]["content"][0]
    assert result["type"] == "tool_result"
    assert result["content"][0] == {"type": "text", "text": "(see attached document)"}
    assert result["content"][1]["type"] == "document"
    assert result["content"][1]["source"]["data"] == PDF_B64


def test_chat_completions_sends_a_file_part():
    body = chat_body(GPT_CHAT, _user(PDF_DOC), OPTIONS)
    part = body["messages"][0]["content"][1]
    assert part == {
        "type": "file",
        "file": {"file_data": f"data:application/pdf;base64,{PDF_B64}", "filename": "report.pdf"},
    }


def test_chat_completions_moves_tool_result_documents_to_a_user_message():
    body = chat_body(GPT_CHAT, _tool_turn(PDF_DOC), OPTIONS)
    tool, user = body["messages"][-2:]
    assert tool == {"role": "tool", "content": "(see attached document)", "tool_call_id": "call_1"}
    assert user["role"] == "user"
    assert user["content"][0] == {"type": "text", "text": "Attached document(s) from tool result:"}
    assert user["content"][1]["type"] == "file"


def test_responses_sends_an_input_file_in_the_message_and_in_a_function_output():
    body = responses_body(GPT, _user(PDF_DOC), OPTIONS)
    part = body["input"][-1]["content"][1]
    assert part == {
        "type": "input_file",
        "file_data": f"data:application/pdf;base64,{PDF_B64}",
        "filename": "report.pdf",
    }
    body = responses_body(GPT, _tool_turn(PDF_DOC), OPTIONS)
    output = body["input"][-1]
    assert output["type"] == "function_call_output"
    assert output["output"] == [part]


def test_gemini_sends_inline_data_and_vertex_too():
    for model in (GEMINI, VERTEX):
        body = google_body(model, _user(PDF_DOC), OPTIONS)
        part = body["contents"][0]["parts"][1]
        assert part == {"inlineData": {"mimeType": "application/pdf", "data": PDF_B64}}


def test_bedrock_sends_a_document_block_with_a_valid_name():
    body = bedrock_body(NOVA, _user(PDF_DOC), OPTIONS)
    block = body["messages"][0]["content"][1]
    # "." is not allowed in a Converse document name
    assert block == {
        "document": {"format": "pdf", "name": "report-pdf", "source": {"bytes": PDF_B64}}
    }
    unnamed = DocumentContent(data=PDF_B64, mime_type="application/pdf")
    body = bedrock_body(NOVA, _tool_turn(unnamed, unnamed), OPTIONS)
    content = body["messages"][-1]["content"][0]["toolResult"]["content"]
    assert [b["document"]["name"] for b in content] == ["Document 1", "Document 2"]


def test_mistral_sends_a_document_url_chunk():
    body = mistral_body(MISTRAL, _user(PDF_DOC), OPTIONS)
    assert body["messages"][-1]["content"][1] == {
        "type": "document_url",
        "document_url": f"data:application/pdf;base64,{PDF_B64}",
        "document_name": "report.pdf",
    }


# --- request shapes: URL and file id ------------------------------------------------------------

URL = "https://example.com/paper.pdf"


def test_url_documents():
    doc = DocumentContent(url=URL)
    part = anthropic_body(CLAUDE, _user(doc), OPTIONS)["messages"][0]["content"][1]
    assert part == {"type": "document", "source": {"type": "url", "url": URL}}
    part = responses_body(GPT, _user(doc), OPTIONS)["input"][-1]["content"][1]
    assert part == {"type": "input_file", "file_url": URL}
    with_type = DocumentContent(url=URL, mime_type="application/pdf")
    part = google_body(GEMINI, _user(with_type), OPTIONS)["contents"][0]["parts"][1]
    assert part == {"fileData": {"fileUri": URL, "mimeType": "application/pdf"}}
    gcs = DocumentContent(url="gs://bucket/paper.pdf", mime_type="application/pdf")
    part = google_body(VERTEX, _user(gcs), OPTIONS)["contents"][0]["parts"][1]
    assert part == {"fileData": {"fileUri": "gs://bucket/paper.pdf", "mimeType": "application/pdf"}}
    part = mistral_body(MISTRAL, _user(doc), OPTIONS)["messages"][-1]["content"][1]
    assert part == {"type": "document_url", "document_url": URL}
    s3 = DocumentContent(url="s3://bucket/paper.pdf")
    part = bedrock_body(NOVA, _user(s3), OPTIONS)["messages"][0]["content"][1]
    assert part["document"]["source"] == {"s3Location": {"uri": "s3://bucket/paper.pdf"}}
    assert part["document"]["format"] == "pdf"  # from the URL's extension


def test_file_id_documents():
    doc = DocumentContent(file_id="file-abc123")
    part = chat_body(GPT_CHAT, _user(doc), OPTIONS)["messages"][0]["content"][1]
    assert part == {"type": "file", "file": {"file_id": "file-abc123"}}
    part = responses_body(GPT, _user(doc), OPTIONS)["input"][-1]["content"][1]
    assert part == {"type": "input_file", "file_id": "file-abc123"}
    part = anthropic_body(CLAUDE, _user(doc), OPTIONS)["messages"][0]["content"][1]
    assert part == {"type": "document", "source": {"type": "file", "file_id": "file-abc123"}}
    part = mistral_body(MISTRAL, _user(doc), OPTIONS)["messages"][-1]["content"][1]
    assert part == {"type": "file", "file_id": "file-abc123"}


def test_anthropic_asks_for_the_files_beta_only_for_a_file_id():
    from pi_sdk_anthropic.messages._documents import uses_file_ids

    with_id = _user(DocumentContent(file_id="file_1"))
    assert uses_file_ids(with_id) and not uses_file_ids(_user(PDF_DOC))
    headers = build_headers(CLAUDE, OPTIONS, "sk-ant-test", has_files=True)
    assert "files-api-2025-04-14" in headers["anthropic-beta"].split(",")
    headers = build_headers(CLAUDE, OPTIONS, "sk-ant-test")
    assert "files-api" not in headers.get("anthropic-beta", "")


# --- text documents ---------------------------------------------------------------------------

NOTES = DocumentContent(
    data=base64.b64encode(b"# Notes\nKeep *this*.\n").decode(),
    mime_type="text/markdown",
    name="notes.md",
)
WRAPPED = '<document name="notes.md" type="text/markdown">\n# Notes\nKeep *this*.\n\n</document>'


def test_a_text_document_becomes_text_where_the_api_has_no_such_document():
    part = chat_body(GPT_CHAT, _user(NOTES), OPTIONS)["messages"][0]["content"][1]
    assert part == {"type": "text", "text": WRAPPED}
    part = anthropic_body(CLAUDE, _user(NOTES), OPTIONS)["messages"][0]["content"][1]
    assert part == {"type": "text", "text": WRAPPED}
    # a text-only model takes it too, as text
    part = chat_body(TEXT_ONLY_CHAT, _user(NOTES), OPTIONS)["messages"][0]["content"][1]
    assert part == {"type": "text", "text": WRAPPED}


def test_plain_text_goes_as_anthropics_text_source_and_markdown_as_a_bedrock_md_document():
    plain = DocumentContent(
        data=base64.b64encode(b"Dummy TXT file\n").decode(), mime_type="text/plain"
    )
    part = anthropic_body(CLAUDE, _user(plain), OPTIONS)["messages"][0]["content"][1]
    assert part["source"] == {
        "type": "text",
        "media_type": "text/plain",
        "data": "Dummy TXT file\n",
    }
    part = bedrock_body(NOVA, _user(NOTES), OPTIONS)["messages"][0]["content"][1]
    assert part["document"]["format"] == "md" and part["document"]["name"] == "notes-md"


# --- bad input: clear errors before the request ------------------------------------------------


def _error(build: Any, model: pi_sdk.Model, context: Context) -> str:
    with pytest.raises(ConfigurationError) as info:
        build(model, context, OPTIONS)
    return str(info.value)


def test_a_url_on_an_api_that_takes_only_bytes_names_the_place_the_model_and_the_kind():
    text = _error(chat_body, GPT_CHAT, _user(DocumentContent(url=URL)))
    assert "messages[0].content[1]" in text
    assert "openai/gpt-4o (openai-completions)" in text
    assert "by URL" in text
    text = _error(bedrock_body, NOVA, _user(DocumentContent(url=URL)))
    assert "messages[0].content[1]" in text and "s3:" in text


def test_a_file_id_bedrock_cannot_take():
    text = _error(bedrock_body, NOVA, _user(DocumentContent(file_id="file-1")))
    assert "by file id" in text and "amazon-bedrock" in text


def test_a_document_over_the_vendors_limit():
    big = base64.b64encode(PDF + b"\0" * 4_500_000).decode()
    doc = DocumentContent(data=big, mime_type="application/pdf", name="big.pdf")
    text = _error(bedrock_body, NOVA, _tool_turn(doc))
    assert "messages[2].content[0]" in text
    assert "'big.pdf'" in text and "4500000 bytes" in text and "Bedrock" in text
    # the same document is within Anthropic's limit
    anthropic_body(CLAUDE, _tool_turn(doc), OPTIONS)


def test_an_unknown_media_type():
    doc = DocumentContent(data=PDF_B64, mime_type="application/x-unknown")
    text = _error(anthropic_body, CLAUDE, _user(doc))
    assert "application/x-unknown" in text and "application/pdf" in text


def test_data_that_is_not_base64():
    doc = DocumentContent(data="not base64!", mime_type="application/pdf")
    assert "not base64" in _error(responses_body, GPT, _user(doc))


def test_a_pdf_to_a_model_without_vision():
    text = _error(chat_body, TEXT_ONLY_CHAT, _user(PDF_DOC))
    assert "groq/llama-3.1-8b-instant" in text and "does not take documents" in text


async def test_the_error_ends_the_stream_before_any_request():
    from _support.conformance import CLIENT_FACTORIES, ChunkedTransport, Reply, collect

    transport = ChunkedTransport([Reply(status=500, body=b"{}", headers={})])
    client = CLIENT_FACTORIES["bedrock-converse-stream"](transport, NOVA.base_url)
    try:
        options = StreamOptions(api_key="test-key", max_retries=0, client=client)
        context = _user(DocumentContent(url=URL))
        events, message = await collect(pi_sdk.stream(NOVA, context, options))
    finally:
        await client.close()
    assert transport.requests == []
    assert events[-1].type == "error" and message.stop_reason == "error"
    assert "messages[0].content[1]" in (message.error_message or "")


# --- the block itself -------------------------------------------------------------------------


def test_the_block_needs_one_source_and_a_media_type_with_data():
    with pytest.raises(ValueError, match="exactly one of data, url, fileId; got none"):
        DocumentContent()
    with pytest.raises(ValueError, match="got data, url"):
        DocumentContent(data=PDF_B64, mime_type="application/pdf", url=URL)
    with pytest.raises(ValueError, match="needs a mimeType"):
        DocumentContent(data=PDF_B64)


def test_the_json_is_pi_style_and_round_trips_in_messages():
    doc = DocumentContent(file_id="file-1", name="a.pdf")
    assert doc.model_dump() == {"type": "document", "fileId": "file-1", "name": "a.pdf"}
    message = UserMessage(content=[TextContent(text="see"), PDF_DOC], timestamp=1)
    again = UserMessage.model_validate_json(message.model_dump_json())
    assert again == message and again.content[1] == PDF_DOC  # type: ignore[index]
    result = ToolResultMessage(tool_call_id="c", tool_name="t", content=[doc], timestamp=1)
    assert ToolResultMessage.model_validate(result.model_dump()) == result


_VISION_APIS = [
    (chat_body, GPT_CHAT),
    (responses_body, GPT),
    (anthropic_body, CLAUDE),
    (mistral_body, MISTRAL),
]
_ANY_MODEL_APIS = [(google_body, GEMINI), (google_body, VERTEX), (bedrock_body, NOVA)]


@pytest.mark.parametrize(("build", "model"), _VISION_APIS)
def test_every_api_that_reads_documents_as_images_refuses_them_for_a_text_only_model(
    build: Any, model: pi_sdk.Model
):
    text_only = model.model_copy(update={"input": ["text"]})
    target = f"{model.provider}/{model.id} ({model.api})"
    assert _error(build, text_only, _user(PDF_DOC)) == (
        f"messages[0].content[1]: {target} does not take documents (its input is ['text']); "
        "cannot send a application/pdf document given as data"
    )
    # the same model with image input takes the PDF, and a text document as text either way
    build(model, _user(PDF_DOC), OPTIONS)
    build(text_only, _user(NOTES), OPTIONS)


@pytest.mark.parametrize(("build", "model"), _ANY_MODEL_APIS)
def test_apis_that_read_documents_natively_take_them_for_a_text_only_model(
    build: Any, model: pi_sdk.Model
):
    text_only = model.model_copy(update={"input": ["text"]})
    assert build(text_only, _user(PDF_DOC), OPTIONS) == build(model, _user(PDF_DOC), OPTIONS)
