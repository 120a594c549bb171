"""``pi_sdk._testing.replay``: endpoint matching; whole-JSON answers streamed; planning errors."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from _support.conformance import ConformanceDirMissing, conformance_dir

import pi_sdk
import pi_sdk.provider
from pi_sdk import ConfigurationError, Model, ProviderNotFoundError
from pi_sdk._testing import replay as replay_module
from pi_sdk._testing.replay import (
    RecordedInteraction,
    load_cassette,
    plan_replay,
    replay,
    replay_all,
    same_endpoint,
)


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


def _unrecognized() -> RecordedInteraction:
    return RecordedInteraction(
        index=0,
        method="POST",
        uri="https://nowhere.example/v9/frobnicate",
        body={"model": "x"},
        status=200,
        content_type="application/json",
    )


def test_a_request_no_provider_recognizes_names_the_registered_apis() -> None:
    with pytest.raises(ProviderNotFoundError) as caught:
        plan_replay([_unrecognized()])
    message = str(caught.value)
    assert message.startswith("interaction 0 (POST https://nowhere.example/v9/frobnicate)")
    assert "no registered API provider recognizes this request" in message
    assert "anthropic-messages" in message and "pass --api" in message


def test_a_request_the_chosen_api_does_not_recognize_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError) as caught:
        plan_replay([_unrecognized()], api="anthropic-messages")
    assert type(caught.value) is ConfigurationError  # the API exists: not "provider not found"
    assert str(caught.value) == (
        "interaction 0 (POST https://nowhere.example/v9/frobnicate):"
        " API 'anthropic-messages' does not recognize this request"
    )


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("empty.yaml", "", "the file is empty"),
        ("list.yaml", "- a\n- b\n", "no 'interactions' list at the top level"),
        ("other.yaml", "a: 1\n", "no 'interactions' list at the top level"),
        ("scalar.json", '{"interactions": 3}', "no 'interactions' list at the top level"),
        ("half.json", '{"interactions": [{"request": {}}]}', "interaction 0 has no 'response'"),
        (
            "fields.json",
            '{"interactions": [{"request": {}, "response": {}}]}',
            "interaction 0's request lacks 'body', 'headers', 'method', 'uri'",
        ),
    ],
)
def test_a_file_that_is_not_a_cassette_says_what_is_missing(
    tmp_path: Path, name: str, text: str, reason: str
) -> None:
    """The reason is the cassette's shape, never a Python error from inside vcrpy."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigurationError) as caught:
        load_cassette(path)
    assert str(caught.value) == f"not a vcrpy cassette: {path} ({reason})"


def _answering(api: str, provider: str | None) -> SimpleNamespace:
    """A registered API provider whose ``recognize`` answers a model of ``provider`` (or none)."""

    def recognize(method: str, uri: str, body: Any) -> Model | None:
        if provider is None:
            return None
        return Model(id=f"{api}-model", name="m", api=api, provider=provider)

    return SimpleNamespace(api=api, recognize=recognize)


@pytest.mark.parametrize(
    ("answers", "chosen"),
    [
        ([("a", "host.example"), ("b", "catalogued")], "b"),  # a catalog provider wins
        ([("a", "catalogued"), ("b", "catalogued")], "a"),  # the first catalog one
        ([("a", "host.example"), ("b", "elsewhere.example")], "a"),  # else the first answer
        ([("a", None), ("b", "host.example")], "b"),  # one that does not recognize is passed
        ([("a", "_no_recognize"), ("b", "host.example")], "b"),  # nor one that cannot
    ],
)
def test_plan_replay_prefers_the_first_model_naming_a_catalog_provider(
    monkeypatch: pytest.MonkeyPatch, answers: list[tuple[str, str | None]], chosen: str
) -> None:
    providers = []
    for api, provider in answers:
        entry = _answering(api, provider)
        if provider == "_no_recognize":
            entry.recognize = None
        providers.append(entry)
    monkeypatch.setattr(replay_module, "get_api_providers", lambda: providers)
    monkeypatch.setattr(replay_module, "get_providers", lambda: ["catalogued", "zz"])
    item = _unrecognized()
    [(planned, provider, model)] = plan_replay([item])
    assert planned is item and provider.api == chosen and model.api == chosen


def test_plan_replay_with_an_api_asks_that_provider_only(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    only = _answering("only", "host.example")
    monkeypatch.setattr(replay_module, "get_api_provider", lambda api: asked.append(api) or only)
    monkeypatch.setattr(replay_module, "get_api_providers", lambda: pytest.fail("asked all"))
    [(_, provider, model)] = plan_replay([_unrecognized(), _unrecognized()], api="only")[:1]
    assert asked == ["only"] and provider is only and model.provider == "host.example"


@pytest.mark.parametrize(
    ("status", "content_type", "whole"),
    [
        (200, "application/json", True),
        (399, "application/json; charset=utf-8", True),
        (400, "application/json", False),  # an error answer is not the call's reply
        (500, "application/json", False),
        (200, "text/event-stream", False),
        (200, "", False),
    ],
)
def test_a_whole_document_is_a_successful_json_answer(
    status: int, content_type: str, whole: bool
) -> None:
    item = dataclasses.replace(_unrecognized(), status=status, content_type=content_type)
    assert item.whole_document is whole


@pytest.mark.parametrize(
    ("uri", "shown"),
    [
        (
            "https://g.example/v1/models/x:generateContent?key=SECRET",
            "https://g.example/v1/models/x:generateContent",
        ),
        ("http://localhost:8080/v1/chat?a=1&b=2", "http://localhost:8080/v1/chat"),
        ("https://api.example/v1/messages", "https://api.example/v1/messages"),
    ],
)
def test_the_uri_shown_in_messages_leaves_out_the_query(
    monkeypatch: pytest.MonkeyPatch, uri: str, shown: str
) -> None:
    item = dataclasses.replace(_unrecognized(), uri=uri, index=3)
    assert item.display_uri == shown
    monkeypatch.setattr(replay_module, "get_api_providers", lambda: [_answering("x", None)])
    with pytest.raises(ProviderNotFoundError) as caught:
        plan_replay([item])
    assert str(caught.value).startswith(f"interaction 3 (POST {shown}): ")
    assert "(registered: x)" in str(caught.value) and "SECRET" not in str(caught.value)


def _transport_calls() -> tuple[Any, ...]:
    """What vcrpy patches for httpx2 (the providers' HTTP client), as they are now."""
    import httpx2

    return (httpx2.AsyncHTTPTransport.handle_async_request, httpx2.HTTPTransport.handle_request)


async def test_a_caller_that_stops_early_leaves_no_http_patch_behind() -> None:
    """vcrpy's patches are process-wide: none may outlive replay's own code, whatever the
    caller does with a yielded call (a break, an exception, a generator kept half-read)."""
    path = _shared("google-generative-ai/thinking_nonstream_then_followup.yaml")
    unpatched = _transport_calls()
    async for call in replay(path):
        assert _transport_calls() == unpatched  # the caller's code runs unpatched
        assert (await call.events.result()).stop_reason == "stop"
        break
    assert _transport_calls() == unpatched  # at once, not when the generator is collected
    with pytest.raises(KeyError):
        async for call in replay(path):
            raise KeyError(call.interaction.index)
    assert _transport_calls() == unpatched
    calls = replay(path)
    first = await anext(calls)
    assert _transport_calls() == unpatched and first.interaction.index == 0
    assert [c.interaction.index async for c in calls] == [1]  # the rest still plays
    await calls.aclose()


async def test_played_back_events_show_the_message_as_it_stood_at_each_event() -> None:
    path = _shared("anthropic-messages/thinking_stream_signature.yaml")
    [call] = [c async for c in replay(path)]
    events = [e async for e in call.events]
    deltas = [e for e in events if e.type == "thinking_delta"]
    assert len(deltas) > 3
    seen = ""
    for event in deltas:
        seen += event.delta
        block = event.partial.content[event.content_index]
        assert isinstance(block, pi_sdk.ThinkingContent) and block.thinking == seen
    message = await call.events.result()
    assert events[-1].type == "done" and events[-1].message is message
    assert message.content[deltas[0].content_index].thinking == seen  # type: ignore[union-attr]
    assert call.events.failure is None


async def test_a_played_back_call_keeps_its_failure_and_result_drains_it() -> None:
    path = _shared("openai-responses/error_400_invalid_request.yaml")
    [call] = [c async for c in replay(path)]
    message = await call.events.result()  # nothing iterated: result() reads it all
    assert message.stop_reason == "error" and message.error_message
    failure = call.events.failure
    assert isinstance(failure, pi_sdk.provider.ProviderError) and failure.status == 400
    assert [e async for e in call.events] == []  # drained by result(), as a live stream is
