"""``pi_sdk.testing._replay``: endpoint matching; whole-JSON answers played through streaming."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from _support.conformance import ConformanceDirMissing, conformance_dir

from pi_sdk.testing._replay import load_cassette, replay_all, same_endpoint


def _request(path: str) -> SimpleNamespace:
    return SimpleNamespace(path=path)


@pytest.mark.parametrize(
    ("recorded", "sent", "match"),
    [
        ("/v1beta/models/g:generateContent", "/v1beta/models/g:streamGenerateContent", True),
        ("/v1beta/models/g:streamGenerateContent", "/v1beta/models/g:streamGenerateContent", True),
        ("/v1beta/models/g:generateContent", "/v1beta/models/h:streamGenerateContent", False),
        ("/v1beta/models/g:countTokens", "/v1beta/models/g:streamGenerateContent", False),
        ("/v1/messages", "/v1/messages", True),
        ("/v1/messages", "/v1/chat/completions", False),
        ("/v1/streamline", "/v1/line", False),  # only an RPC method after ':' is renamed
    ],
)
def test_same_endpoint(recorded: str, sent: str, match: bool) -> None:
    assert same_endpoint(_request(sent), _request(recorded)) is match
    assert same_endpoint(_request(recorded), _request(sent)) is match


def _shared(name: str) -> Path:
    try:
        root = conformance_dir()
    except ConformanceDirMissing as exc:
        pytest.fail(str(exc))
    if root is None:
        pytest.skip("conformance folder absent")
    return root / name


async def test_gemini_answer_recorded_without_a_stream_is_played() -> None:
    path = _shared("google-generative-ai/thinking_nonstream_then_followup.yaml")
    interactions = load_cassette(path)
    assert all(i.whole_document and not i.streamed for i in interactions)
    results = await replay_all(path)
    assert len(results) == len(interactions)
    for result in results:
        assert result.message is not None and result.message.stop_reason == "stop"
        assert result.message.text and result.events[0].type == "start"


async def test_streamed_answer_is_not_a_whole_document() -> None:
    path = _shared("anthropic-messages/text_stream.yaml")
    [interaction] = load_cassette(path)
    assert interaction.streamed and not interaction.whole_document
