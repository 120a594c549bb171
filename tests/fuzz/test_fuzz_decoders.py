"""Every wire decoder, fed mutations of the real recorded bodies (issue 15.7).

Each streamed ``200`` reply of ``../shared/conformance`` is damaged (a flipped byte, a cut,
an event duplicated or moved, a huge value, deep nesting, invalid UTF-8, garbage) and served in
16-byte chunks through the vendor client to the adapter. Whatever the damage: no exception
escapes the stream, the events keep the contract (``start`` first, exactly one terminal event,
last, its reason the message's), and the text that arrived before the damage is kept (the
reply's text starts with the text of the intact part before it). ``google-vertex`` and
``azure-openai-responses`` have no streamed recordings; their decoders are Gemini's and the
Responses one, fuzzed here through ``google-generative-ai`` and ``openai-responses``.
"""

from __future__ import annotations

import asyncio
from functools import cache
from typing import Any

import pytest
from _support.conformance import (
    CLIENT_FACTORIES,
    ChunkedTransport,
    Reply,
    collect,
    conformance_dir,
    load_cases,
    model_for,
    recorded_reply,
)
from _support.fuzz import TRIED, fuzz, mutated, segments
from _support.wire import APIS
from hypothesis import given
from hypothesis import strategies as st

import pi_sdk
from pi_sdk._testing.replay import load_cassette

ROOT = conformance_dir()
CASES = [c for c in load_cases(ROOT) if c.stream and c.status == 200] if ROOT else []


def _cases(api: str) -> list[Any]:
    return [c for c in CASES if c.api == api]


async def _run(api: str, model: Any, reply: Reply) -> tuple[list[Any], pi_sdk.AssistantMessage]:
    transport = ChunkedTransport([reply], chunk_size=256)
    client = CLIENT_FACTORIES[api](transport, model.base_url)
    try:
        options = pi_sdk.StreamOptions(api_key="test-key", max_retries=0, client=client)
        return await collect(pi_sdk.stream(model, pi_sdk.Context(), options))
    finally:
        await client.close()


BY_ID = {c.id: c for c in CASES}


@cache
def _model(case_id: str) -> Any:
    case = BY_ID[case_id]
    return model_for(case.api, load_cassette(case.cassette)[case.index])


@cache
def _reply(case_id: str) -> Reply:
    return recorded_reply(BY_ID[case_id])


@cache
def _text_before(case_id: str, boundary: int) -> str:
    """The text of the reply cut at ``boundary`` (an event boundary) of the intact body."""
    case = BY_ID[case_id]
    reply = _reply(case_id)
    cut = Reply(reply.status, reply.body[:boundary], reply.headers)
    _events, message = asyncio.run(_run(case.api, _model(case_id), cut))
    return message.text


def _contract(events: list[Any], message: pi_sdk.AssistantMessage) -> None:
    assert events and events[0].type == "start"
    terminal = [i for i, e in enumerate(events) if e.type in ("done", "error")]
    assert terminal == [len(events) - 1], [e.type for e in events]
    assert events[-1].reason == message.stop_reason


FUZZED_APIS = [api for api in APIS if api not in ("google-vertex", "azure-openai-responses")]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("api", FUZZED_APIS)
def test_a_damaged_recorded_body_never_breaks_the_stream(api: str) -> None:
    cases = _cases(api)
    if ROOT is None:
        pytest.skip("conformance folder absent")
    assert cases, f"no streamed 200 recordings for {api}"
    frames = api.startswith("bedrock")

    @fuzz()
    @given(st.data())
    def check(data: Any) -> None:
        TRIED[f"decoders[{api}]"] += 1
        case = data.draw(st.sampled_from(cases))
        reply = _reply(case.id)
        kind, damaged, first = data.draw(mutated(reply.body, frames))
        events, message = asyncio.run(
            _run(api, _model(case.id), Reply(reply.status, damaged, reply.headers))
        )
        _contract(events, message)
        assert message.stop_reason in ("stop", "length", "toolUse", "error"), kind
        boundary = 0
        for part in segments(reply.body, frames=frames):
            if boundary + len(part) > first:
                break
            boundary += len(part)
        before = _text_before(case.id, boundary)
        assert message.text.startswith(before), (kind, first, before[:80], message.text[:80])

    check()
