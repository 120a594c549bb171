"""Each of the conformance kit's verdicts, reached by a provider that earns exactly that one.

The toy provider (``scripted_provider``) plays a reply chosen in advance for each call, so a
test scripts the whole reply, then what each cut of the body gives, and reads the kit's exact
sentence. A correct script passes the rule, so each failure is the scripted fault's (issue 34:
the kit's own behaviour is pinned here, not only by the provider packages that run it).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from pi_sdk_pytest import ConformanceFailure, ProviderConformance, ProviderUnderTest
from pi_sdk_pytest.conformance import session as session_module
from pi_sdk_pytest.conformance.installed import provider_installed
from pi_sdk_pytest.conformance.loopback import LoopbackServer
from pi_sdk_pytest.conformance.rules.event_contract import check_event_contract
from pi_sdk_pytest.conformance.rules.release import check_release
from pi_sdk_pytest.conformance.rules.replay import check_replay
from pi_sdk_pytest.conformance.rules.retries import check_retries
from pi_sdk_pytest.conformance.rules.secrets import check_secrets
from pi_sdk_pytest.conformance.rules.truncation import check_truncation
from pi_sdk_pytest.conformance.session import FAKE_KEY, Session, run_rule
from scripted_provider import API, ToyPlugin, cut, play, reply, scripted, toy_subject
from test_conformance_kit import stream_anthropic_messages
from test_conformance_kit import subject as anthropic_subject

import pi_sdk
import pi_sdk.provider as kit

HELLO = reply("Hello")


def failure_of(check: Any, subject: ProviderUnderTest, *args: Any) -> str:
    with pytest.raises(ConformanceFailure) as caught:
        check(subject, *args)
    return str(caught.value)


def truncation_says(*replies: Any) -> str:
    return failure_of(check_truncation, toy_subject(scripted(*replies)))


# --- truncation -------------------------------------------------------------------------------


def test_truncation_passes_cuts_that_keep_a_growing_start_then_end_in_the_whole_reply() -> None:
    calls: list[Any] = []
    check_truncation(toy_subject(scripted(HELLO, cut(), cut("He"), HELLO, calls=calls)))
    assert len(calls) == 4  # the whole body, then one call per byte offset
    assert [options.max_retries for options in calls] == [0, 0, 0, 0]


def test_truncation_fails_an_error_after_a_shorter_cut_ended_in_done() -> None:
    says = truncation_says(HELLO, HELLO, cut("He"))
    assert says == (
        "conformance rule 'truncation' failed for toy (body 'abc'): cut at byte 1 of 3: ended "
        "in 'error' (cut short) although the shorter cut at byte 0 ended in 'done'"
    )


def test_truncation_fails_a_cut_reply_that_ends_as_aborted() -> None:
    says = truncation_says(HELLO, cut("He", stop="aborted"))
    assert says.endswith("(body 'abc'): cut at byte 0 of 3: stop_reason 'aborted', not 'error'")


def test_truncation_fails_kept_content_that_is_not_the_start_of_the_reply() -> None:
    says = truncation_says(HELLO, cut("Help"))
    assert says.endswith(
        "cut at byte 0 of 3: the partial content kept is not the reply's start: text block 0 "
        "'Help' does not begin 'Hello'"
    )


def test_truncation_fails_a_longer_cut_that_kept_less() -> None:
    says = truncation_says(HELLO, cut("Hel"), cut("He"))
    assert says.endswith(
        "cut at byte 1 of 3: kept less content (3) than a shorter cut (4): the partial content "
        "must be kept"
    )


# --- event contract ---------------------------------------------------------------------------


def test_event_contract_fails_a_recorded_body_that_ends_in_error() -> None:
    says = failure_of(check_event_contract, toy_subject(scripted(cut("He"))))
    assert says == (
        "conformance rule 'event contract' failed for toy (body 'abc'): the recorded body ended "
        "in 'error', not 'done': cut short"
    )


def test_event_contract_fails_a_direct_iteration_that_gives_another_reply() -> None:
    calls: list[Any] = []
    subject = toy_subject(scripted(HELLO, reply("Help"), HELLO, calls=calls))
    says = failure_of(check_event_contract, subject)
    assert says == (
        "conformance rule 'event contract' failed for toy (body 'abc'): the stream function "
        "iterated directly gives another reply than pi_sdk.stream: content [('text', 'Help', "
        "None)] != [('text', 'Hello', None)]"
    )
    assert len(calls) == 3  # through the core, directly, through the core again


class _CountingServer(LoopbackServer):
    """The kit's server, kept for the test to read what it received."""

    made: list[LoopbackServer] = []

    def __init__(self) -> None:
        super().__init__()
        self.made.append(self)


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> list[LoopbackServer]:
    _CountingServer.made = []
    monkeypatch.setattr(session_module, "LoopbackServer", _CountingServer)
    return _CountingServer.made


async def _fetching(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
    """A stream function that asks the kit's server, then plays ``Hello``."""
    async with httpx2.AsyncClient() as client:
        await client.get(model.base_url, headers={"x-api-key": str(options.api_key)})
    async for event in play(HELLO):
        yield event


def test_event_contract_iterates_a_stream_function_directly_but_not_a_call_plan(
    servers: list[LoopbackServer],
) -> None:
    check_event_contract(toy_subject(_fetching))
    [server] = servers
    assert len(server.received) == 3  # through the core, directly, through the core again

    from pi_sdk_anthropic.messages import call_anthropic_messages
    from test_conformance_kit import BODY as ANTHROPIC_BODY

    plan = ProviderUnderTest(
        name="plan",
        model=lambda url: pi_sdk.Model(
            id="claude-haiku-4-5", api=API, provider="anthropic", base_url=url
        ),
        bodies=[ANTHROPIC_BODY],
        plugin=ToyPlugin(call=call_anthropic_messages),
    )
    check_event_contract(plan)
    assert len(servers[1].received) == 1  # a call plan's events are the core's: not iterated


# --- the session ------------------------------------------------------------------------------


async def _hangs(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
    async for event in play(HELLO):
        yield event
        await asyncio.Event().wait()  # never set: the provider hangs after its first event


def test_a_call_that_does_not_end_fails_with_its_last_events() -> None:
    subject = toy_subject(_hangs, call_deadline_s=0.05)
    says = failure_of(check_event_contract, subject)
    assert says == (
        "conformance rule 'event contract' failed for toy (body 'abc'): the call did not end "
        "within 0.05 s (last events: ['start']); a provider must end its stream at the "
        "vendor's terminal event and on every failure"
    )


async def _hangs_late(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
    async for event in play(reply("abcdef")):  # start, text_start, 6 deltas, text_end, done
        yield event
        if event.type == "text_end":
            await asyncio.Event().wait()  # never set: it hangs before its terminal event


def test_a_hang_names_the_last_five_events_it_gave() -> None:
    says = failure_of(check_event_contract, toy_subject(_hangs_late, call_deadline_s=0.05))
    last = "['text_delta', 'text_delta', 'text_delta', 'text_delta', 'text_end']"
    assert says == (
        "conformance rule 'event contract' failed for toy (body 'abc'): the call did not end "
        f"within 0.05 s (last events: {last}); a provider must end its stream at the "
        "vendor's terminal event and on every failure"
    )


async def _never_ends(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
    """The reply, then its done event again and again: a generator that never ends."""
    seen_done = False
    while True:
        async for event in play(reply("Hi")):  # start, text_start, 2 deltas, text_end, done
            if event.type == "done" or not seen_done:
                yield event
        seen_done = True


def test_a_stream_function_that_never_ends_is_read_to_1000_events_past_the_reply() -> None:
    says = failure_of(check_event_contract, toy_subject(_never_ends))
    # pi_sdk.stream stops at the first done (6 events); the direct reading stops once it has
    # 6 + 1000 events past its first one: 1007 events, the first done at 5.
    terminals = [5, *range(6, 1007)]
    assert says.startswith(
        "conformance rule 'event contract' failed for toy (body 'abc'): the stream function "
        f"iterated directly: {len(terminals)} terminal events, at {terminals}; 1001 event(s) "
        "after the terminal 'done' at 5: ['done', 'done', 'done', 'done', 'done'] (events: "
    )


@pytest.mark.parametrize("before", [None, "the user's own key"])
def test_the_key_variable_holds_the_fake_key_during_the_rule_only(
    monkeypatch: pytest.MonkeyPatch, before: str | None
) -> None:
    name = "PI_SDK_KIT_TEST_KEY"
    if before is None:
        monkeypatch.delenv(name, raising=False)
    else:
        monkeypatch.setenv(name, before)
    during: list[str | None] = []

    async def check(session: Session) -> None:
        during.append(os.environ.get(name))
        assert session.options().api_key is None  # the provider reads the variable

    run_rule(toy_subject(scripted(HELLO), api_key_env=name), "environment", check)
    assert during == [FAKE_KEY]
    assert os.environ.get(name) == before


# --- no secret leaks --------------------------------------------------------------------------


async def _ask(model: Any, key: str | None) -> None:
    """Send the key to the kit's server as a vendor client would (its answer is not read)."""
    try:
        async with httpx2.AsyncClient() as client:
            await client.get(model.base_url, headers={"x-api-key": str(key)})
    except httpx2.HTTPError:
        pass  # the scenarios that reset the connection


def _echoing(where: str) -> Any:
    async def stream(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
        key = options.api_key or os.environ.get("PI_SDK_KIT_TEST_KEY")
        await _ask(model, key)
        if where == "response_id":
            message = reply("Hi")
            message.response_id = f"resp-{key}"
        elif where == "error_message":
            message = cut("He")
            message.error_message = f"invalid key {key}"
        else:
            if where == "log":
                logging.getLogger("toy-vendor").debug("sending with key %s", key)
            if where == "long log":
                logging.getLogger("toy-vendor").debug("sending with key %s %s", key, "x" * 300)
            message = HELLO
        async for event in play(message):
            yield event

    return stream


def test_a_key_in_the_final_message_fails_the_secrets_rule() -> None:
    says = failure_of(check_secrets, toy_subject(_echoing("response_id")))
    assert says == (
        "conformance rule 'no secret leaks' failed for toy: body 'abc': the API key is in repr "
        "of event 5 (done), the final message (repr or JSON)"
    )


def test_a_key_in_an_error_message_read_from_the_environment_fails_the_secrets_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PI_SDK_KIT_TEST_KEY", raising=False)
    subject = toy_subject(_echoing("error_message"), api_key_env="PI_SDK_KIT_TEST_KEY")
    says = failure_of(check_secrets, subject)
    assert says.startswith(
        "conformance rule 'no secret leaks' failed for toy: body 'abc': the API key is in "
    )
    assert says.endswith("the error_message, the final message (repr or JSON)")


def test_a_key_in_a_log_record_fails_the_secrets_rule() -> None:
    says = failure_of(check_secrets, toy_subject(_echoing("log")))
    assert says == (
        "conformance rule 'no secret leaks' failed for toy: the API key is in 4 log record(s), "
        f"e.g. 'toy-vendor DEBUG sending with key {FAKE_KEY}'"
    )


def test_a_long_log_record_with_the_key_is_shown_by_its_first_300_characters() -> None:
    says = failure_of(check_secrets, toy_subject(_echoing("long log")))
    line = f"toy-vendor DEBUG sending with key {FAKE_KEY} {'x' * 300}"
    assert says == (
        "conformance rule 'no secret leaks' failed for toy: the API key is in 4 log record(s), "
        f"e.g. {line[:300]!r}"
    )


def test_a_clean_provider_passes_the_secrets_rule() -> None:
    check_secrets(toy_subject(_echoing("nowhere-but-the-request-header")))


async def _keyless(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
    await _ask(model, "not-the-kit-key")
    async for event in play(HELLO):
        yield event


@pytest.mark.parametrize(
    ("api_key_env", "route"),
    [(None, "StreamOptions.api_key"), ("PI_SDK_KIT_TEST_KEY", "PI_SDK_KIT_TEST_KEY")],
)
def test_a_key_that_never_reaches_the_server_fails_naming_where_the_kit_put_it(
    api_key_env: str | None, route: str
) -> None:
    says = failure_of(check_secrets, toy_subject(_keyless, api_key_env=api_key_env))
    assert says == (
        "conformance rule 'no secret leaks' failed for toy: the key never reached the server, "
        f"so nothing was shown: the kit put it in {route}; declare the variable the provider "
        "reads (api_key_env)"
    )


# --- abort ------------------------------------------------------------------------------------


def test_an_abort_that_keeps_content_that_is_not_the_reply_start_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pi_sdk.stream keeps what the deltas said; a stream keeping something else would fail."""

    def keeps_a_wrong_copy(model: Any, context: Any, options: Any) -> Any:
        async def events() -> AsyncIterator[Any]:
            async for event in play(HELLO):
                yield event
                if options.signal is not None and options.signal.aborted:
                    kept = reply("Hx", stop="aborted", error="aborted")
                    yield pi_sdk.ErrorEvent(reason="aborted", error=kept)
                    return

        return events()

    monkeypatch.setattr(pi_sdk, "stream", keeps_a_wrong_copy)
    says = failure_of(check_release, toy_subject(scripted(HELLO)), "abort")
    assert says == (
        "conformance rule 'abort releases the connection' failed for toy (body 'abc'): aborted "
        "at event 0: the content kept is not the reply's start: text block 0 'Hx' does not "
        "begin 'Hello'"
    )


def test_a_stream_that_does_not_end_aborted_after_an_abort_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pi_sdk.stream ends an aborted call itself; a stream that did not would fail the rule."""

    def deaf_stream(model: Any, context: Any, options: Any) -> Any:
        return play(HELLO)  # ignores options.signal

    monkeypatch.setattr(pi_sdk, "stream", deaf_stream)
    says = failure_of(check_release, toy_subject(scripted(HELLO)), "abort")
    assert says == (
        "conformance rule 'abort releases the connection' failed for toy (body 'abc'): aborted "
        "at event 0: the stream ended in 'done' (stop), not one 'error' with reason 'aborted'"
    )


# --- retries (the Anthropic wire API, whose requests the kit's server counts) ---------------


async def retries_everything(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
    try:
        async for event in stream_anthropic_messages(model, context, options):
            yield event
    except kit.ProviderError as exc:
        raise kit.ProviderError(str(exc), status=exc.status, retryable=True) from None


async def adds_a_block_when_cut(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
    """After a failure once the reply began, reports a thinking block the vendor never sent."""
    last = None
    try:
        async for event in stream_anthropic_messages(model, context, options):
            last = event
            yield event
    except kit.ProviderError as exc:
        if last is None:
            raise  # before the reply began: the core retries it
        index = len(last.partial.content)
        blocks = [*last.partial.content, pi_sdk.ThinkingContent(thinking="hm")]
        update = {"content": blocks, "stop_reason": "error", "error_message": str(exc)}
        kept = last.partial.model_copy(update=update)
        yield pi_sdk.ThinkingStartEvent(content_index=index, partial=kept)
        yield pi_sdk.ThinkingDeltaEvent(content_index=index, delta="hm", partial=kept)
        yield pi_sdk.ThinkingEndEvent(content_index=index, content="hm", partial=kept)
        yield pi_sdk.ErrorEvent(reason="error", error=kept)


def test_a_retried_client_error_fails_the_retries_rule() -> None:
    says = failure_of(check_retries, anthropic_subject(retries_everything))
    assert says == (
        "conformance rule 'retries before the first byte' failed for retries-everything (body "
        "'text'): HTTP 400, max_retries=2: 2 request(s), 'stop'; it must end in 'error' after "
        "one request (not retried)"
    )


def test_the_retries_rule_runs_on_the_first_recorded_body_only() -> None:
    first = anthropic_subject(retries_everything)
    second = dataclasses.replace(first.bodies[0], name="second")
    subject = dataclasses.replace(first, bodies=[first.bodies[0], second])
    says = failure_of(check_retries, subject)
    assert says.startswith(
        "conformance rule 'retries before the first byte' failed for retries-everything (body "
        "'text'): HTTP 400"
    )


def test_content_kept_after_a_reset_that_is_not_the_reply_start_fails_the_retries_rule() -> None:
    says = failure_of(check_retries, anthropic_subject(adds_a_block_when_cut))
    assert says == (
        "conformance rule 'retries before the first byte' failed for adds-a-block-when-cut "
        "(body 'text'): the body's first half, then a connection reset, max_retries=2: the "
        "content kept is not the reply's start: block 0 is thinking, the whole reply's is text"
    )


# --- where the provider comes from, and the suite -----------------------------------------------


def test_a_declared_plugin_is_installed_alone_and_no_plugin_means_the_installed_ones() -> None:
    toy = toy_subject(scripted(HELLO))
    with provider_installed(toy):
        assert pi_sdk.get_api_provider(API).source_id == API
        with pytest.raises(pi_sdk.ProviderNotFoundError, match="anthropic-messages"):
            pi_sdk.get_api_provider("anthropic-messages")
    with provider_installed(dataclasses.replace(toy, plugin=None)):
        assert pi_sdk.get_api_provider("anthropic-messages").api == "anthropic-messages"
        with pytest.raises(pi_sdk.ProviderNotFoundError, match=API):
            pi_sdk.get_api_provider(API)


def test_the_suite_runs_the_truncation_rule_on_its_provider() -> None:
    class TestCutsReadAsComplete(ProviderConformance):
        provider = toy_subject(scripted(HELLO, HELLO, cut("He")))

    with pytest.raises(ConformanceFailure) as caught:
        TestCutsReadAsComplete().test_truncation_at_every_byte_ends_in_one_error()
    assert caught.value.rule == "truncation"
    assert "cut at byte 1 of 3: ended in 'error'" in str(caught.value)


# --- cassette replay --------------------------------------------------------------------------


def _recordable(*, key_in_body: bool = False, counter_in_body: bool = False, calls: Any = None):
    """A stream function that POSTs to the kit's server and answers with the body it read."""
    made: list[int] = [] if calls is None else calls

    async def stream(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
        made.append(1)
        payload: dict[str, Any] = {"ask": "hello"}
        if key_in_body:
            payload["credential"] = options.api_key
        if counter_in_body:
            payload["call"] = len(made)
        async with httpx2.AsyncClient() as client:
            headers = {} if key_in_body else {"x-api-key": options.api_key}
            answer = await client.post(f"{model.base_url}/v1/toy", json=payload, headers=headers)
        text = answer.text if answer.status_code == 200 else f"HTTP {answer.status_code}"
        async for event in play(reply(text + ("!" * (len(made) - 1) if calls is not None else ""))):
            yield event

    return stream


def test_a_recorded_call_that_replays_the_same_passes_the_replay_rule() -> None:
    check_replay(toy_subject(_recordable()))


def test_a_key_sent_where_no_scrubbing_rule_looks_fails_the_replay_rule() -> None:
    """Only in the JSON body, never in a header: nothing tells the recorder it is a secret."""
    says = failure_of(check_replay, toy_subject(_recordable(key_in_body=True)))
    assert says == (
        "conformance rule 'cassette replay' failed for toy (body 'abc'): the API key was "
        "written to the cassette"
    )


def test_a_request_that_changes_on_replay_fails_the_replay_rule_naming_the_miss() -> None:
    says = failure_of(check_replay, toy_subject(_recordable(counter_in_body=True)))
    assert says.startswith(
        "conformance rule 'cassette replay' failed for toy (body 'abc'): replay: request not in "
        "cassette "
    )
    assert "$.call: 2 != 1 (live != recorded)" in says


def test_a_replay_that_gives_another_reply_fails_the_replay_rule() -> None:
    says = failure_of(check_replay, toy_subject(_recordable(calls=[])))
    assert says == (
        "conformance rule 'cassette replay' failed for toy (body 'abc'): the replay gave other "
        "events (['start', 'text_start', 'text_delta', 'text_delta', 'text_delta', 'text_delta', "
        "'text_end', 'done']) or another reply (content [('text', 'abc!', None)] != [('text', "
        "'abc', None)]) than the recorded call"
    )
