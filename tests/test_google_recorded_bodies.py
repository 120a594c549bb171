"""Recorded non-streamed Gemini / Vertex responses, fed to the stream normalizer.

pi-sdk only streams, so the conformance runner skips interactions whose recorded request was
``:generateContent``. Their bodies are single ``GenerateContentResponse`` objects, the same shape
as one stream chunk: feeding each to :class:`ResponseNormalizer` (as a one-chunk, non-streamed
reply) checks the normalization rules (cached-token usage, parallel calls with signatures,
MAX_TOKENS without parts, blocked prompts) against real vendor responses and their ``expect``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from conformance_check import (
    Case,
    ConformanceDirMissing,
    assert_valid_event_sequence,
    check_message,
    collect,
    conformance_dir,
    load_cases,
    recorded_reply,
)
from pi_sdk_google._stream import ResponseNormalizer
from pi_sdk_google.generative_ai import recognize_generative_ai
from pi_sdk_google.vertex import recognize_vertex

import pi_sdk
from pi_sdk import AssistantMessageEvent, Model, StartEvent
from pi_sdk.replay import load_cassette

try:
    ROOT = conformance_dir()
except ConformanceDirMissing:
    ROOT = None  # test_conformance.py reports the misconfiguration

CASES = [
    case
    for api in ("google-generative-ai", "google-vertex")
    for case in (load_cases(ROOT, api) if ROOT is not None else [])
    if not case.stream and case.status == 200
]


def _model(case: Case) -> Model:
    recorded = load_cassette(case.cassette)[case.index]
    recognize = recognize_vertex if case.api == "google-vertex" else recognize_generative_ai
    model = recognize(recorded.method, recorded.uri, recorded.body)
    assert model is not None, recorded.uri
    return model


async def _replay_body(
    model: Model, body: dict[str, object]
) -> AsyncIterator[AssistantMessageEvent]:
    output = pi_sdk.new_assistant_message(model)
    normalizer = ResponseNormalizer(model, output)
    try:
        yield StartEvent(partial=output)
        for event in normalizer.feed(body):
            yield event
        for event in normalizer.finish(streamed=False):
            yield event
    finally:
        normalizer.price_usage()


def test_recorded_bodies_found() -> None:
    if ROOT is None:
        pytest.skip("conformance folder absent")
    assert len(CASES) >= 10


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_recorded_body_matches_expect(case: Case) -> None:
    model = _model(case)
    body = json.loads(recorded_reply(case).body)
    stream = pi_sdk.AssistantMessageEventStream(lambda: _replay_body(model, body), model=model)
    events, message = await collect(stream)
    assert_valid_event_sequence(events)
    problems = check_message(case.api, message, case.expect, events)
    assert not problems, "\n".join([case.id, *problems, *case.notes])
    if case.expect["stop_reason"] == "error" and case.expect["error"] is None:
        # Blocked prompt: the message names the block reason (conformance notes).
        assert "MODEL_ARMOR" in (message.error_message or "")
