"""How a Gemini reply ends, for every ``finishReason`` (Gemini API reference, ``FinishReason``).

``STOP`` is ``stop`` and ``MAX_TOKENS`` is ``length``; every other reason ends the reply in an
error ``"Gemini stopped with finish reason <R>: <what it means>"`` plus ``(<finishMessage>)``
when the candidate gives one, the content kept; an unknown reason is named without an
explanation. A whole document without a reason is complete (``stop``); a stream without one was
cut short. The raw reason is kept either way.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_google._shared_decode import GeminiDecoder

from pi_sdk import Model, TextContent
from pi_sdk.provider import MessageBuilder, ProviderError

MODEL = Model(id="gemini-x", api="google-generative-ai", provider="google")
MEANINGS = {
    "SAFETY": "the response was flagged by the safety filters",
    "RECITATION": "the response was flagged for reciting training data",
    "LANGUAGE": "the response is in an unsupported language",
    "BLOCKLIST": "the response contained a blocklisted term",
    "PROHIBITED_CONTENT": "the response was flagged for prohibited content",
    "SPII": "the response was flagged for sensitive personally identifiable information",
    "MALFORMED_FUNCTION_CALL": "the model produced a function call that could not be parsed",
    "UNEXPECTED_TOOL_CALL": "the model called a tool although no tools are enabled",
    "TOO_MANY_TOOL_CALLS": "the model made too many consecutive tool calls",
    "MISSING_THOUGHT_SIGNATURE": "a function call in the request lacked its thought signature",
    "IMAGE_SAFETY": "the generated image was flagged by the safety filters",
    "IMAGE_PROHIBITED_CONTENT": "the generated image was flagged for prohibited content",
    "IMAGE_RECITATION": "the generated image was flagged for recitation",
    "IMAGE_OTHER": "image generation stopped for another reason",
    "NO_IMAGE": "the model was expected to produce an image but did not",
    "OTHER": "the model stopped for an unspecified reason",
    "FINISH_REASON_UNSPECIFIED": "the model gave no finish reason",
}


def _run(
    *chunks: dict[str, Any], document: bool = False
) -> tuple[MessageBuilder, Exception | None]:
    builder = MessageBuilder(MODEL)
    builder.start()
    decoder = GeminiDecoder(builder)
    try:
        if document:
            decoder.feed_document(list(chunks))
        else:
            for chunk in chunks:
                decoder.feed(chunk)
        list(decoder.finish(saw_done=False))
    except ProviderError as exc:
        return builder, exc
    return builder, None


def _candidate(text: str, reason: str | None = None, **fields: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}, **fields}
    if reason is not None:
        candidate["finishReason"] = reason
    return {"candidates": [candidate]}


@pytest.mark.parametrize("reason", list(MEANINGS))
def test_each_error_reason_says_what_it_means(reason: str) -> None:
    builder, error = _run(_candidate("Once"), _candidate(" upon", reason))
    assert str(error) == f"Gemini stopped with finish reason {reason}: {MEANINGS[reason]}"
    assert builder.message.content == [TextContent(text="Once upon")]
    assert builder.message.raw_stop_reason == reason


def test_the_finish_message_follows_and_an_unknown_reason_is_named() -> None:
    _, error = _run(_candidate("x", "SAFETY", finishMessage="Blocked: harassment"))
    assert str(error) == (
        f"Gemini stopped with finish reason SAFETY: {MEANINGS['SAFETY']} (Blocked: harassment)"
    )
    _, error = _run(_candidate("x", "BRAND_NEW"))
    assert str(error) == "Gemini stopped with finish reason BRAND_NEW"
    _, error = _run(_candidate("x", "BRAND_NEW", finishMessage="why"))
    assert str(error) == "Gemini stopped with finish reason BRAND_NEW (why)"


@pytest.mark.parametrize(("reason", "stop"), [("STOP", "stop"), ("MAX_TOKENS", "length")])
def test_normal_ends(reason: str, stop: str) -> None:
    builder, error = _run(_candidate("a"), _candidate("b", reason))
    assert error is None
    assert builder.message.stop_reason == stop and builder.message.raw_stop_reason == reason


def test_without_a_reason_a_document_is_complete_and_a_stream_is_cut() -> None:
    builder, error = _run(_candidate("whole"), document=True)
    assert error is None and builder.message.stop_reason == "stop"
    builder, error = _run(_candidate("part"))
    assert str(error) == (
        "the Gemini stream ended before a finish reason arrived (incomplete response)"
    )
    assert builder.message.content == [TextContent(text="part")]
