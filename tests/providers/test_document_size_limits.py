"""The document size limit of each OpenAI wire API and of Mistral: 50 MiB, the boundary itself.

A PDF of exactly 50 MiB (decoded) is sent; one byte more is refused before any I/O, with the
whole text naming the document, its size, the target and the vendor's documented limit.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pi_sdk_mistral.conversations import build_request as mistral_request
from pi_sdk_openai.completions import build_payload as chat_payload
from pi_sdk_openai.responses import build_payload as responses_payload

from pi_sdk import ConfigurationError, Context, DocumentContent, Model, StreamOptions, UserMessage

LIMIT = 50 * 1024 * 1024
OPENAI = "OpenAI file inputs: at most 50 MB per request"
MISTRAL = "Mistral Document QnA: at most 50 MB per document"
Build = Callable[[Model, Context, StreamOptions], Any]
APIS: dict[str, tuple[str, str, Build, str]] = {
    "chat": ("openai", "openai-completions", chat_payload, OPENAI),
    "responses": ("openai", "openai-responses", responses_payload, OPENAI),
    "mistral": ("mistral", "mistral-conversations", mistral_request, MISTRAL),
}


@functools.cache
def _context(size: int) -> tuple[Context, str]:
    data = base64.b64encode(b"%PDF-1.4\n" + b"\0" * (size - 9)).decode()
    document = DocumentContent(data=data, mime_type="application/pdf", name="big.pdf")
    return Context(messages=[UserMessage(content=[document])]), data


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():  # pyright: ignore[reportUnknownVariableType]
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:  # pyright: ignore[reportUnknownVariableType]
            yield from _strings(item)


@pytest.mark.parametrize("api", list(APIS))
def test_a_document_of_the_limit_is_sent_and_one_byte_more_is_refused(api: str) -> None:
    provider, wire, build, source = APIS[api]
    model = Model(id="m", api=wire, provider=provider, input=["text", "image"])
    context, data = _context(LIMIT)
    sent = [s for s in _strings(build(model, context, StreamOptions())) if s.endswith(data)]
    assert sent == [f"data:application/pdf;base64,{data}"]
    context, _ = _context(LIMIT + 1)
    with pytest.raises(ConfigurationError) as refused:
        build(model, context, StreamOptions())
    assert str(refused.value) == (
        f"messages[0].content[0]: the document 'big.pdf' is {LIMIT + 1} bytes; {provider}/m"
        f" ({wire}) takes at most {LIMIT} bytes per document ({source})"
    )
