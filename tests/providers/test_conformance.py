"""Replay every shared conformance cassette through the registered adapters.

Parametrized over every ``<api>/<name>.yaml`` x interaction in the conformance folder
(``PI_SDK_CONFORMANCE_DIR``, default ``../shared/conformance``): the final message must match
the interaction's ``expect`` and the events must keep pi-spec §2's invariants.

Every interaction is played through the same streaming call, whether or not its recorded
request asked for a stream: pi-sdk always asks for one, and servers and proxies sometimes
ignore ``"stream": true`` and answer with one JSON document, which every adapter turns into the
normal event sequence. vcrpy serves the recorded document (matching ``:streamGenerateContent``
to a recorded ``:generateContent``, :func:`pi_sdk._testing.replay.same_endpoint`).

Also, for APIs with a client factory in ``conformance_check.CLIENT_FACTORIES``: every recorded
JSON document served in small chunks through the vendor client gives the same result, and every
successful body (SSE or JSON) cut at sampled byte offsets ends in one ``error`` event with the
partial content kept.

The recordings of ``../shared/conformance-next`` whose content kind has landed
(``conformance_check.LANDED_KINDS``) are part of the same parametrization.

Skips: only an API whose provider package is not installed (named in the message), or one with
no client factory for the transport tests. The folder absent: skip; ``PI_SDK_CONFORMANCE_DIR``
set to a missing folder: failure.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
from _support.conformance import (
    CLIENT_FACTORIES,
    PROVIDER_PACKAGES,
    Case,
    ChunkedTransport,
    ConformanceDirMissing,
    Reply,
    assert_valid_event_sequence,
    check_message,
    collect,
    conformance_dir,
    landed_next_cases,
    load_cases,
    model_for,
    provider_for,
    recorded_reply,
    run_interaction,
)

import pi_sdk
from pi_sdk import StreamOptions, TextContent, ThinkingContent, ToolCall
from pi_sdk._testing.replay import load_cassette

try:
    ROOT = conformance_dir()
    DIR_ERROR = None
except ConformanceDirMissing as exc:
    ROOT = None
    DIR_ERROR = str(exc)

CASES = load_cases(ROOT) if ROOT is not None else []
CASES += landed_next_cases()  # conformance-next recordings of the kinds pi-sdk models now


def test_conformance_folder_present():
    if DIR_ERROR is not None:
        pytest.fail(DIR_ERROR)
    if ROOT is None:
        pytest.skip("conformance folder absent (set PI_SDK_CONFORMANCE_DIR to require it)")
    assert CASES, f"no cassettes with .expected.json under {ROOT}"


def _require(case: Case) -> None:
    if provider_for(case.api) is None:
        package = PROVIDER_PACKAGES.get(case.api, f"a provider package for {case.api}")
        pytest.skip(f"API {case.api} not registered: install {package}")


def _factory(case: Case):
    _require(case)
    factory = CLIENT_FACTORIES.get(case.api)
    if factory is None:
        pytest.skip(f"no client factory for {case.api} in conformance_check.CLIENT_FACTORIES")
    return factory


async def _stream_with_client(factory: Any, transport: ChunkedTransport, model: Any):
    """``(events, message)`` of one stream through a vendor client made by ``factory`` on
    ``transport`` (no retry); the client is closed afterwards."""
    client = factory(transport, model.base_url)
    try:
        options = StreamOptions(api_key="test-key", max_retries=0, client=client)
        return await collect(pi_sdk.stream(model, pi_sdk.Context(), options))
    finally:
        await client.close()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_conformance(case: Case):
    _require(case)
    run = await run_interaction(case)
    assert_valid_event_sequence(run.events)
    problems = check_message(case.api, run.message, case.expect, run.events)
    assert not problems, "\n".join([case.id, *problems, *case.notes])
    assert run.played == 1, f"{case.id}: {run.played} interactions played (a retry?)"


WITH_IDS = [c for c in CASES if c.status == 200 and c.api != "bedrock-converse-stream"]


@pytest.mark.parametrize("case", WITH_IDS, ids=[c.id for c in WITH_IDS])
async def test_reply_keeps_the_vendors_response_id(case: Case):
    """pi-ai 0.73 ``responseId``: every recorded reply names itself, except on Bedrock (neither
    Converse nor ConverseStream sends an id or a model; ``responseModel`` is compared by
    :func:`check_message`)."""
    _require(case)
    message = (await run_interaction(case)).message
    assert isinstance(message.response_id, str) and message.response_id, case.id
    assert message.model_dump(mode="json")["responseId"] == message.response_id


# --- whole JSON documents in chunks -----------------------------------------------------------

DOCUMENTS = [c for c in CASES if not c.stream]


@pytest.mark.parametrize("case", DOCUMENTS, ids=[c.id for c in DOCUMENTS])
async def test_json_document_in_chunks_through_the_client(case: Case):
    """The same answer, arriving in 64-byte chunks through the vendor client, gives the same
    result (an adapter must read the whole document, not its first chunk)."""
    factory = _factory(case)
    model = model_for(case.api, load_cassette(case.cassette)[case.index])
    transport = ChunkedTransport([recorded_reply(case)], chunk_size=64)
    events, message = await _stream_with_client(factory, transport, model)
    assert_valid_event_sequence(events)
    problems = check_message(case.api, message, case.expect, events)
    assert not problems, "\n".join([case.id, *problems, *case.notes])
    assert len(transport.requests) == 1 and transport.closed == 1


# --- truncated bodies -------------------------------------------------------------------------

ANSWERS_200 = [c for c in CASES if c.status == 200]


def _offsets(body: bytes, count: int = 12) -> list[int]:
    """Cut points: start, inside a multi-byte UTF-8 character, mid-line, the very end, random."""
    rng = random.Random(len(body))
    picks = {0, 1, len(body) - 1}
    multibyte = [i for i, b in enumerate(body) if 0x80 <= b < 0xC0]  # continuation bytes
    picks.update(rng.sample(multibyte, min(2, len(multibyte))))
    data_lines = [i + len(b"data: ") + 3 for i in range(len(body)) if body.startswith(b"data: ", i)]
    picks.update(rng.sample(data_lines, min(3, len(data_lines))))
    while len(picks) < count:
        picks.add(rng.randrange(len(body)))
    return sorted(o for o in picks if 0 <= o < len(body))


async def _has_terminal_event(api: str, body: bytes) -> bool:
    """Whether ``body`` holds the API's terminal server-sent event, whole, or the reply's
    terminal information (stop reason and usage: issue 12) before the final marker."""

    async def chunks() -> AsyncIterator[bytes]:
        yield body

    stopped = usage = False
    async for sse in pi_sdk.provider.iter_sse(chunks()):
        if sse.data == "[DONE]":
            return True
        try:
            data = json.loads(sse.data)
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        event = cast(dict[str, Any], data)
        kind = event.get("type")
        if kind == "message_delta" and event.get("usage"):
            if cast(dict[str, Any], event.get("delta") or {}).get("stop_reason"):
                return True  # Anthropic: stop reason and usage arrived
        if api in ("openai-completions", "mistral-conversations"):
            usage = usage or bool(event.get("usage"))
            for choice in cast(list[Any], event.get("choices") or []):
                if isinstance(choice, dict):
                    fields = cast(dict[str, Any], choice)
                    stopped = stopped or bool(fields.get("finish_reason"))
                    usage = usage or bool(fields.get("usage"))
            if stopped and usage:
                return True  # Chat: finish reason and usage arrived, only [DONE] missing
        if kind in ("message_stop", "response.completed", "response.incomplete"):
            return True
        candidates = event.get("candidates")
        if api.startswith("google") and isinstance(candidates, list) and candidates:
            first = cast(list[Any], candidates)[0]
            if isinstance(first, dict) and cast(dict[str, Any], first).get("finishReason"):
                return True
    return False


def _prefix(short: str, full: str, what: str) -> None:
    assert full.startswith(short), f"{what}: {short!r} is not a prefix of {full!r}"


@pytest.mark.parametrize("case", ANSWERS_200, ids=[c.id for c in ANSWERS_200])
async def test_truncated_body_ends_in_one_error_event(case: Case):
    factory = _factory(case)
    reply = recorded_reply(case)
    model = model_for(case.api, load_cassette(case.cassette)[case.index])
    full_run = await run_interaction(case)
    full = full_run.message
    for offset in _offsets(reply.body):
        cut = Reply(status=200, body=reply.body[:offset], headers=reply.headers)
        # 7-byte reads over the last 2 KB before the cut, where the reply ends; the whole body in
        # small reads is test_conformance's (16 bytes) and the every-byte rule's (slow).
        transport = ChunkedTransport([cut], chunk_size=7, fine_tail=2048)
        events, message = await _stream_with_client(factory, transport, model)
        where = f"{case.id} cut at {offset}/{len(reply.body)}"
        if not reply.body[offset:].strip():
            # Only trailing whitespace was cut (a JSON body's final newline, the blank line
            # after the last event): that is the whole reply, not a truncation.
            assert [e.type for e in events] == [e.type for e in full_run.events], where
            assert message.content == full.content, where
            assert message.stop_reason == full.stop_reason, where
            assert transport.closed == 1, f"{where}: response not closed"
            continue
        if case.stream and await _has_terminal_event(case.api, reply.body[:offset]):
            # The vendor's terminal event arrived whole before the cut (OpenRouter's [DONE]
            # after response.completed was cut; a Gemini body cut after the lone CR that ends
            # its last event under the SSE rules): the reply is complete, what follows unread.
            assert events[-1].type == full_run.events[-1].type, where
            assert message.content == full.content, where
            assert transport.closed == 1, f"{where}: response not closed"
            continue
        assert [e.type for e in events].count("error") == 1, where
        assert events[-1].type == "error", where
        assert message.stop_reason == "error" and message.error_message, where
        assert_valid_event_sequence(events)
        assert transport.closed == 1, f"{where}: response not closed"
        # Partial content is kept: every block is a prefix of the full run's block.
        assert len(message.content) <= len(full.content), where
        for got, want in zip(message.content, full.content, strict=False):
            assert type(got) is type(want), where
            if isinstance(got, TextContent):
                _prefix(got.text, want.text, where)  # type: ignore[union-attr]
            elif isinstance(got, ThinkingContent):
                _prefix(got.thinking, want.thinking, where)  # type: ignore[union-attr]
            elif isinstance(got, ToolCall):
                assert (got.id, got.name) == (want.id, want.name), where  # type: ignore[union-attr]
        if not case.stream:
            assert not message.content, f"{where}: content from a cut JSON document"
        elif offset == len(reply.body) - 1:
            # Only the final blank line is missing: all content arrived, yet no message_stop.
            assert message.content == full.content, where
