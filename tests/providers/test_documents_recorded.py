"""Documents: the request pi-sdk sends carries the document as the recorded request did.

Each ``document_*`` recording of ``../shared/conformance-next`` is a real request with a
document that the vendor answered (HTTP 200). The document is read back from the recorded
request into a :class:`pi_sdk.DocumentContent`, sent through the real adapter and vendor client
(the recorded reply served by a :class:`ChunkedTransport`), and the document part of the body
pi-sdk sent must equal the recorded one: same keys (``file_uri`` and ``fileUri`` are one field
of the Gemini JSON), same bytes (base64 and base64url are one encoding of them). The reply must
meet the recording's ``expect``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any, cast

import pytest
from _support.conformance import (
    CLIENT_FACTORIES,
    Case,
    ChunkedTransport,
    ConformanceDirMissing,
    check_message,
    collect,
    conformance_next_dir,
    load_cases,
    model_for,
    recorded_reply,
    skip_without_next,
)

import pi_sdk
from pi_sdk import Context, DocumentContent, StreamOptions, TextContent, UserMessage
from pi_sdk._testing.replay import load_cassette

try:
    NEXT = conformance_next_dir()
    DIR_ERROR = None
except ConformanceDirMissing as exc:
    NEXT, DIR_ERROR = None, str(exc)

DOCUMENT_CASES = [
    c for c in (load_cases(NEXT) if NEXT is not None else []) if c.name.startswith("document_")
]


def _b64(data: str) -> str:
    """Standard base64 of base64 or base64url text."""
    raw = base64.urlsafe_b64decode(data.replace("+", "-").replace("/", "_") + "==")
    return base64.b64encode(raw).decode("ascii")


def _data_url(url: str) -> tuple[str, str]:
    head, data = url.split(",", 1)
    return head.removeprefix("data:").removesuffix(";base64"), data


# --- per API: find the document part of a body, and read it as a DocumentContent -------------


def _parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every content part of every message of a request body, in order."""
    out: list[dict[str, Any]] = []
    for message in body.get("messages") or body.get("input") or body.get("contents") or []:
        content = message.get("content", message.get("parts"))
        if isinstance(content, list):
            out.extend(cast(list[dict[str, Any]], content))
    return out


def _is_document(part: dict[str, Any]) -> bool:
    kind = part.get("type")
    return (
        kind in ("document", "file", "input_file", "document_url")
        or "document" in part
        or "inlineData" in part
        or "fileData" in part
    )


def _document_part(body: dict[str, Any]) -> dict[str, Any]:
    found = [p for p in _parts(body) if _is_document(p)]
    assert len(found) == 1, f"expected one document part, found {found}"
    return found[0]


def _anthropic(part: dict[str, Any]) -> DocumentContent:
    source = part["source"]
    if source["type"] == "url":
        return DocumentContent(url=source["url"])
    if source["type"] == "text":
        data = base64.b64encode(source["data"].encode()).decode()
        return DocumentContent(data=data, mime_type=source["media_type"])
    return DocumentContent(data=source["data"], mime_type=source["media_type"])


def _chat(part: dict[str, Any]) -> DocumentContent:
    mime, data = _data_url(part["file"]["file_data"])
    return DocumentContent(data=data, mime_type=mime, name=part["file"]["filename"])


def _responses(part: dict[str, Any]) -> DocumentContent:
    if "file_url" in part:
        return DocumentContent(url=part["file_url"])
    mime, data = _data_url(part["file_data"])
    return DocumentContent(data=data, mime_type=mime, name=part["filename"])


def _gemini(part: dict[str, Any]) -> DocumentContent:
    if "inlineData" in part:
        inline = part["inlineData"]
        return DocumentContent(data=_b64(inline["data"]), mime_type=inline["mimeType"])
    file = part["fileData"]
    uri = file.get("fileUri", file.get("file_uri"))
    return DocumentContent(url=uri, mime_type=file.get("mimeType", file.get("mime_type")))


def _bedrock(part: dict[str, Any]) -> DocumentContent:
    document = part["document"]
    assert document["format"] == "pdf"
    data = document["source"]["bytes"]
    return DocumentContent(data=data, mime_type="application/pdf", name=document["name"])


def _mistral(part: dict[str, Any]) -> DocumentContent:
    url = part["document_url"]
    if url.startswith("data:"):
        mime, data = _data_url(url)
        return DocumentContent(data=data, mime_type=mime, name=part.get("document_name"))
    return DocumentContent(url=url, name=part.get("document_name"))


READ: dict[str, Callable[[dict[str, Any]], DocumentContent]] = {
    "anthropic-messages": _anthropic,
    "openai-completions": _chat,
    "openai-responses": _responses,
    "google-generative-ai": _gemini,
    "google-vertex": _gemini,
    "bedrock-converse-stream": _bedrock,
    "mistral-conversations": _mistral,
}


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word.title() for word in rest)


def _normalized(value: Any, key: str = "") -> Any:
    """JSON with Gemini's snake_case keys in camelCase and base64 text as its bytes."""
    if isinstance(value, dict):
        return {_camel(k): _normalized(v, k) for k, v in cast(dict[str, Any], value).items()}
    if isinstance(value, list):
        return [_normalized(v) for v in cast(list[Any], value)]
    if isinstance(value, str) and key in ("data", "bytes") and len(value) > 64:
        return base64.b64decode(_b64(value))
    if isinstance(value, str) and value.startswith("data:") and ";base64," in value:
        mime, data = _data_url(value)
        return (mime, base64.b64decode(_b64(data)))
    return value


def _recorded(case: Case) -> dict[str, Any]:
    body = load_cassette(case.cassette)[case.index].body
    return cast(dict[str, Any], body if isinstance(body, dict) else json.loads(body))


SENT = [
    c
    for c in DOCUMENT_CASES
    if c.status == 200 and any(_is_document(p) for p in _parts(_recorded(c)))
]
"""The interactions that send a document (the Mistral recordings' first turn only calls a tool)."""


def test_the_document_recordings_are_there():
    if DIR_ERROR is not None:
        pytest.fail(DIR_ERROR)
    skip_without_next(NEXT)
    # one interaction of each recording sends its document
    assert len(SENT) == len({c.name for c in DOCUMENT_CASES}) >= 12


@pytest.mark.parametrize("case", SENT, ids=[c.id for c in SENT])
async def test_the_document_goes_out_as_recorded(case: Case):
    recorded = _document_part(_recorded(case))
    document = READ[case.api](recorded)
    model = model_for(case.api, load_cassette(case.cassette)[case.index])
    context = Context(messages=[UserMessage(content=[TextContent(text="Describe it."), document])])
    transport = ChunkedTransport([recorded_reply(case)], chunk_size=4096)
    client = CLIENT_FACTORIES[case.api](transport, model.base_url)
    try:
        options = StreamOptions(
            api_key="test-key", max_retries=0, client=client, cache_retention="none"
        )
        events, message = await collect(pi_sdk.stream(model, context, options))
    finally:
        await client.close()
    assert len(transport.requests) == 1, message.error_message
    sent = _document_part(json.loads(transport.requests[0].content))
    assert _normalized(sent) == _normalized(recorded)
    problems = check_message(case.api, message, case.expect, events)
    assert not problems, "\n".join([case.id, *problems])
