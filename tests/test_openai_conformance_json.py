"""The non-streamed OpenAI conformance cassettes, served as JSON bodies to the streaming adapters.

pi-sdk always asks for a stream, but some OpenAI-compatible servers ignore ``stream: true`` and
answer with one JSON document; both adapters accept that (``feed_body``). The shared cassettes
recorded without a stream are exactly such documents, so they check that path against the same
``expect`` as the streamed ones (the generic runner skips them: vcrpy would not match them to a
streaming request).
"""

from __future__ import annotations

import pytest
from conformance_check import (
    CLIENT_FACTORIES,
    ChunkedTransport,
    ConformanceDirMissing,
    assert_valid_event_sequence,
    check_message,
    collect,
    conformance_dir,
    load_cases,
    model_for,
    recorded_reply,
)

import pi_sdk
from pi_sdk import StreamOptions
from pi_sdk.replay import load_cassette

try:
    ROOT = conformance_dir()
except ConformanceDirMissing:
    ROOT = None  # test_conformance.py reports it

APIS = ("openai-completions", "openai-responses")
CASES = [
    case
    for api in APIS
    for case in (load_cases(ROOT, api) if ROOT is not None else [])
    if not case.stream and case.status == 200
]


@pytest.mark.skipif(ROOT is None, reason="conformance folder absent")
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_non_streamed_body(case):
    model = model_for(case.api, load_cassette(case.cassette)[case.index])
    transport = ChunkedTransport([recorded_reply(case)], chunk_size=64)
    client = CLIENT_FACTORIES[case.api](transport, model.base_url)
    try:
        options = StreamOptions(max_retries=0, client=client)
        events, message = await collect(pi_sdk.stream(model, pi_sdk.Context(), options))
    finally:
        await client.close()
    assert_valid_event_sequence(events)
    problems = check_message(case.api, message, case.expect, events)
    assert not problems, "\n".join([case.id, *problems, *case.notes])
