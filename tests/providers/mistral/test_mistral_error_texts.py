"""Mistral's error texts asserted whole where they are made, non-ASCII kept as it came (issue 34).

Mistral answers in the user's language (French validation messages, accented field names);
every text built from its JSON keeps those characters as they are, never as ``\\u00e9``
escapes, and names the parts pi-sdk documents: ``"<status> <reason>: <type>: <message>"`` for
an HTTP error, ``"<type>: <message>"`` for a stream error event, the event itself when it has no
message.
"""

from __future__ import annotations

import json

import pytest
from pi_sdk_mistral._client import status_error
from pi_sdk_mistral.conversations._decode import Decoder, error_text

from pi_sdk import Model
from pi_sdk.provider import MessageBuilder, ProviderError


@pytest.mark.parametrize(
    ("status", "reason", "body", "text"),
    [
        (
            422,
            "Unprocessable Entity",
            {"message": {"detail": [{"msg": "requis é"}]}, "type": "invalid"},
            '422 Unprocessable Entity: invalid: {"detail": [{"msg": "requis é"}]}',
        ),
        (401, "Unauthorized", {"detail": "Non autorisé"}, "401 Unauthorized: Non autorisé"),
        (400, None, {"message": "plain", "code": "3001"}, "400 Bad Request: 3001: plain"),
    ],
)
def test_http_error_texts(status: int, reason: str | None, body: object, text: str) -> None:
    error = status_error(status, reason, json.dumps(body), {})
    assert str(error) == text


def test_an_http_error_page_that_is_not_json_is_quoted() -> None:
    error = status_error(502, "Bad Gateway", "<html>passerelle é</html>", {})
    assert str(error) == "502 Bad Gateway: passerelle é"
    assert error.retryable is True


@pytest.mark.parametrize(
    ("event", "text"),
    [
        (
            {"object": "error", "message": "trop de requêtes", "type": "rate"},
            "rate: trop de requêtes",
        ),
        ({"message": "sans type"}, "sans type"),
        ({"message": {"champ": "é"}, "code": 3}, '3: {"champ": "é"}'),
        (
            {"object": "error", "message": "", "note": "é"},
            'stream error event: {"object": "error", "message": "", "note": "é"}',
        ),
    ],
)
def test_stream_error_event_texts(event: dict[str, object], text: str) -> None:
    assert error_text(event) == text


def test_a_stream_error_event_without_message_is_cut_at_500_characters() -> None:
    text = error_text({"object": "error", "note": "é" * 600})
    assert text.startswith('stream error event: {"object": "error", "note": "éé')
    assert len(text) == len("stream error event: ") + 500


def test_a_whole_body_that_is_not_a_chat_completion_is_quoted() -> None:
    decoder = Decoder(MessageBuilder(Model(id="m", api="mistral-conversations", provider="m")))
    with pytest.raises(ProviderError) as caught:
        decoder.feed_document({"résumé": "é"})
    assert str(caught.value) == (
        'unexpected JSON response (not a chat completion): \'{"résumé": "é"}\''
    )
    with pytest.raises(ProviderError) as caught:
        decoder.feed_document({"object": "error", "message": "modèle inconnu", "type": "x"})
    assert str(caught.value) == "x: modèle inconnu"
