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
from pi_sdk_google._shared_decode import _FINISH_EXPLANATIONS, GeminiDecoder

from pi_sdk import Model, TextContent
from pi_sdk.provider import MessageBuilder, ProviderError

MODEL = Model(id="gemini-x", api="google-generative-ai", provider="google")
MEANINGS = {  # a few, word for word; every other reason is checked for its shape below
    "SAFETY": "the response was flagged by the safety filters",
    "MALFORMED_FUNCTION_CALL": "the model produced a function call that could not be parsed",
    "MISSING_THOUGHT_SIGNATURE": "a function call in the request lacked its thought signature",
    "FINISH_REASON_UNSPECIFIED": "the model gave no finish reason",
}
ERROR_REASONS = sorted(_FINISH_EXPLANATIONS)  # pyright: ignore[reportPrivateUsage]


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
def test_error_reasons_say_what_they_mean(reason: str) -> None:
    _, error = _run(_candidate("x", reason))
    assert str(error) == f"Gemini stopped with finish reason {reason}: {MEANINGS[reason]}"


@pytest.mark.parametrize("reason", ERROR_REASONS)
def test_each_error_reason_ends_in_an_error_keeping_the_content(reason: str) -> None:
    assert len(ERROR_REASONS) >= 17
    builder, error = _run(_candidate("Once"), _candidate(" upon", reason))
    text = str(error)
    assert text.startswith(f"Gemini stopped with finish reason {reason}: ")
    assert len(text) > len(f"Gemini stopped with finish reason {reason}: ")
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
