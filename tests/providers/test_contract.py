"""The provider contract: one list of scenarios, run against every wire API we speak.

Each scenario is said in each vendor's wire format by :mod:`_support.wire` (the one list of
APIs: :data:`_support.wire.WIRES`) and served over real HTTP on 127.0.0.1
(:mod:`_support.loopback`) through the real adapters and vendor SDK clients. Only behaviour
visible through :func:`pi_sdk.stream` is asserted; on every call the events keep pi-spec §2's
contract (``start`` first, exactly one terminal event, per content index ``*_start`` ->
``*_delta``* -> ``*_end``, deltas that add up to the final content:
:func:`_support.conformance.assert_valid_event_sequence`).

Matrix (``-`` = not applicable, the reason is the wire's ``not_applicable`` entry):

==============================  =========  =====  =========  ======  ======  =====  =======  =======
scenario (variants)             anthropic  chat   responses  gemini  vertex  azure  mistral  bedrock
==============================  =========  =====  =========  ======  ======  =====  =======  =======
text                            x          x      x          x       x       x      x        x
thinking and signature          x          x (1)  x          x       x       x      x        x
one tool call                   x          x      x          x       x       x      x        x
two tool calls                  x          x      x          x       x       x      x        x
interleaved tool calls          x          x      x          -       -       x      x        x
usage and cost                  x          x      x          x       x       x      x        x
token limit                     x          x      x          x       x       x      x        x
whole JSON answer (+ streamed)  x          x      x          x       x       x      x        x
http error (4, HTML, 404)       x          x      x          x       x       x      x        x
on_response                     x          x      x          x       x       x      x        x
in-stream error                 x          x      x          x       x       x      x        x
truncation (4 cuts)             x          x      x          x       x       x      x        x
abort                           x          x      x          x       x       x      x        x
malformed event (4)             x          x      x          x       x       x      x        -
SSE noise                       x          x      x          x       x       x      x        -
terminal event (2)              x          x      x          x       x       x      x        x
dropped before the reply (1)    x          x      x          x       x       x      x        x
JSON that is not a reply        x          x      x          x       x       x      x        x
==============================  =========  =====  =========  ======  ======  =====  =======  =======

(1) Chat Completions (``chat``) has no reasoning signature; pi-sdk records the delta field the
reasoning came in (``reasoning_content``) as the signature, as pi-mono does. ``azure`` is
``azure-openai-responses`` (the Responses wire on Azure's v1 endpoint), ``mistral``
``mistral-conversations`` (thinking as content chunks with a ``signature``, 9-char call ids),
``bedrock`` ``bedrock-converse-stream`` (binary event-stream frames, an API key as bearer).

Folded in: ``test_terminal_event.py`` (QA trials t18/t08: the reply ends at the vendor's
terminal event, nothing after it is merged), ``test_connection_retry.py`` (QA trial t04: a
connection dropped before the reply is retried; since issue 26 the conformance kit's retry
rule, which every package runs: ``tests/providers/<vendor>/test_<vendor>_conformance_kit.py``),
``tests/core/test_sse_robustness.py`` (QA trial t03), the cross-API case of
``test_malformed_replies.py`` (QA trials t02/t08: a 200 JSON body that is not a reply is an
error) and the cross-API cases of ``tests/core/test_error_text.py`` (QA trials t02/t04: one
wording for the same failure on every API).
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, TypeVar

import pytest
from _support.conformance import assert_valid_event_sequence
from _support.events import block_types, reply_types
from _support.loopback import HTML_ERROR_PAGE, LoopbackServer, Step, json_step, sse_step
from _support.wire import OPENING_TOKENS, WIRES, Block, Call, Calls, Text, Thinking, Tokens, Wire

import pi_sdk
from pi_sdk import (
    AbortController,
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    StreamOptions,
    TextContent,
    ThinkingContent,
    UserMessage,
)
from pi_sdk.provider import body_excerpt

KEY = "contract-key-123"
CONTEXT = Context(messages=[UserMessage(content="hi")])

WEATHER = Call("call_a", "get_weather", ('{"city": ', '"Paris", ', '"days": 2}'))
CLOCK = Call("call_b", "get_time", ('{"zone"', ': "CET"}'))
MIXED: list[Block] = [
    Thinking(("Let me ", "think."), "sig-9"),
    Text(("Hel", "lo")),
    Calls((WEATHER,)),
]
"""A reply with one block of each kind."""

SCENARIOS: list[str] = []
"""Every scenario name, in order (filled by :func:`scenario`)."""

_F = TypeVar("_F", bound=Callable[..., Any])


def scenario(name: str) -> Callable[[_F], _F]:
    """Run the test on every wire that does not declare ``name`` not applicable."""
    if name not in SCENARIOS:
        SCENARIOS.append(name)
    wires = [wire for wire in WIRES if name not in wire.not_applicable]
    return pytest.mark.parametrize("wire", wires, ids=[wire.api for wire in wires])


# --- running a call ----------------------------------------------------------------------------


@dataclass
class Outcome:
    """One call's events, final message, and the requests the server saw."""

    events: list[AssistantMessageEvent]
    message: AssistantMessage
    requests: list[tuple[str, str, bytes]]

    @property
    def types(self) -> list[str]:
        return [event.type for event in self.events]

    def deltas(self, kind: str) -> list[Any]:
        name = f"{kind}_delta"
        return [e.delta for e in self.events if e.type == name]  # pyright: ignore[reportAttributeAccessIssue]


async def call(
    wire: Wire,
    steps: list[Step],
    *,
    retries: int = 0,
    abort_at: str | None = None,
    on_response: Callable[[int, Any], object] | None = None,
) -> Outcome:
    """Stream one call to a loopback server serving ``steps``; check the event contract.

    ``abort_at``: abort the call (:class:`pi_sdk.AbortController`) on the first event of that
    type.
    """
    controller = AbortController()
    signal = controller.signal if abort_at is not None else None
    events: list[AssistantMessageEvent] = []
    async with LoopbackServer(steps) as server:
        options = StreamOptions(
            api_key=KEY,
            max_retries=retries,
            max_retry_delay_ms=1,
            signal=signal,
            on_response=on_response,
        )
        stream = pi_sdk.stream(wire.model(server.url), CONTEXT, options)

        async def consume() -> None:
            async for event in stream:
                events.append(event)
                if event.type == abort_at:
                    controller.abort()

        # The guard only turns a hang (a bug) into a failure instead of a stuck test run.
        await asyncio.wait_for(consume(), 30)
        message = await stream.result()
        requests = list(server.requests)
    assert assert_valid_event_sequence(events) is message
    assert KEY not in (message.error_message or "")
    return Outcome(events, message, requests)


def streamed(wire: Wire, blocks: list[Block], tokens: Tokens | None = None, **kwargs: Any) -> Step:
    """A streamed reply made of ``blocks`` (default usage: 5 input, 3 output tokens)."""
    body, terminal = wire.events(blocks, tokens or Tokens())
    return sse_step(body + terminal, **kwargs)


def assert_partial_usage_kept(wire: Wire, message: AssistantMessage, *, cut: bool = True) -> None:
    """A failed reply keeps (and prices) the usage the wire had reported before it failed.

    A cut or aborted reply (``cut``) on a wire that reports usage only at its end gets an
    estimate instead, marked as one (``usage_estimated``, issue 12): never a silent 0. A vendor's
    error event is not a cut: nothing is estimated.
    """
    if not cut and not wire.early_usage:
        expected_input = 0
        assert message.usage.input == 0 and message.usage_estimated is None
    elif wire.early_usage:
        expected_input = OPENING_TOKENS.input
        assert message.usage.input == expected_input
    else:
        expected_input = message.usage.input
        assert message.usage_estimated is True and expected_input > 0
        assert message.diagnostics and message.diagnostics[-1].type == "usage_estimated"
    price = wire.model("http://unused").cost.input
    assert message.usage.cost.input == pytest.approx(price * expected_input / 1e6)


def content(message: AssistantMessage) -> list[tuple[Any, ...]]:
    """The message's blocks as comparable tuples (signatures and tool-call ids included)."""
    out: list[tuple[Any, ...]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            out.append(("text", block.text))
        elif isinstance(block, ThinkingContent):
            out.append(("thinking", block.thinking, block.thinking_signature))
        else:
            out.append(("toolCall", block.id, block.name, block.arguments))
    return out


def expected(wire: Wire, blocks: list[Block]) -> list[tuple[Any, ...]]:
    """What :func:`content` of the reply made of ``blocks`` must be on ``wire``."""
    ids = iter(wire.call_ids(blocks))
    out: list[tuple[Any, ...]] = []
    for block in blocks:
        if isinstance(block, Text):
            out.append(("text", block.text))
        elif isinstance(block, Thinking):
            out.append(("thinking", block.text, wire.signature(block)))
        else:
            out += [("toolCall", next(ids), c.name, c.arguments) for c in block.calls]
    return out


# --- successful replies ------------------------------------------------------------------------


@scenario("text")
async def test_text(wire: Wire) -> None:
    outcome = await call(wire, [streamed(wire, [Text(("Hel", "lo"))])])
    message = outcome.message
    assert outcome.types == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    assert outcome.deltas("text") == ["Hel", "lo"]
    assert content(message) == [("text", "Hello")]
    assert (message.stop_reason, message.error_message) == ("stop", None)
    assert (message.api, message.model) == (wire.api, wire.model_id)
    assert (message.usage.input, message.usage.output) == (5, 3)
    assert [(method, target) for method, target, _ in outcome.requests] == [("POST", wire.path)]


@scenario("thinking and signature")
async def test_thinking_and_signature(wire: Wire) -> None:
    blocks: list[Block] = [Thinking(("Let me ", "think."), "sig-1"), Text(("Hi",))]
    outcome = await call(wire, [streamed(wire, blocks)])
    assert outcome.types == reply_types(block_types("thinking", deltas=2), block_types("text"))
    assert outcome.deltas("thinking") == ["Let me ", "think."]
    assert content(outcome.message) == expected(wire, blocks)
    assert outcome.message.stop_reason == "stop"


@scenario("one tool call")
async def test_one_tool_call(wire: Wire) -> None:
    blocks: list[Block] = [Text(("Checking.",)), Calls((WEATHER,))]
    outcome = await call(wire, [streamed(wire, blocks)])
    assert content(outcome.message) == expected(wire, blocks)
    assert outcome.message.content[1].model_dump()["arguments"] == {"city": "Paris", "days": 2}
    assert outcome.message.stop_reason == "toolUse"
    assert outcome.types[-2:] == ["toolcall_end", "done"]


@scenario("two tool calls")
async def test_two_tool_calls(wire: Wire) -> None:
    blocks: list[Block] = [Calls((WEATHER, CLOCK))]
    outcome = await call(wire, [streamed(wire, blocks)])
    assert content(outcome.message) == expected(wire, blocks)
    ids = [block.model_dump()["id"] for block in outcome.message.content]
    assert len(set(ids)) == 2
    assert outcome.message.stop_reason == "toolUse"
    starts = [e.content_index for e in outcome.events if e.type == "toolcall_start"]
    assert starts == [0, 1]


@scenario("interleaved tool calls")
async def test_interleaved_tool_calls(wire: Wire) -> None:
    blocks: list[Block] = [Calls((WEATHER, CLOCK), interleaved=True)]
    outcome = await call(wire, [streamed(wire, blocks)])
    assert content(outcome.message) == expected(wire, blocks)
    assert outcome.message.stop_reason == "toolUse"
    # The fragments reached the call their index named, in the order they came.
    indexes = [e.content_index for e in outcome.events if e.type == "toolcall_delta"]
    assert indexes == [0, 1, 0, 1, 0]
    assert outcome.deltas("toolcall") == [
        WEATHER.pieces[0],
        CLOCK.pieces[0],
        WEATHER.pieces[1],
        CLOCK.pieces[1],
        WEATHER.pieces[2],
    ]


@scenario("usage and cost")
async def test_usage_and_cost(wire: Wire) -> None:
    tokens = Tokens(input=80, output=50, cache_read=20)
    outcome = await call(wire, [streamed(wire, [Text(("Hello",))], tokens)])
    usage = outcome.message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (80, 50, 20, 0)
    assert usage.total_tokens == 150
    prices = wire.model("http://unused").cost
    assert prices.input > 0 and prices.output > 0 and prices.cache_read > 0
    cost = usage.cost
    assert cost.input == pytest.approx(prices.input * 80 / 1e6)
    assert cost.output == pytest.approx(prices.output * 50 / 1e6)
    assert cost.cache_read == pytest.approx(prices.cache_read * 20 / 1e6)
    assert cost.cache_write == 0
    assert cost.total == pytest.approx(cost.input + cost.output + cost.cache_read)


@scenario("token limit")
async def test_a_reply_stopped_by_the_token_limit_is_length(wire: Wire) -> None:
    outcome = await call(wire, [sse_step(wire.at_token_limit(Text(("Hel", "lo"))))])
    message = outcome.message
    assert outcome.types[-1] == "done"
    assert (message.stop_reason, message.error_message) == ("length", None)
    assert content(message) == [("text", "Hello")]


@pytest.mark.parametrize("delivery", ["streamed", "whole JSON"])
@scenario("whole JSON answer")
async def test_whole_json_answer_reads_as_the_stream(wire: Wire, delivery: str) -> None:
    """A server that ignores ``stream: true`` answers with one JSON document: same message."""
    tokens = Tokens(input=80, output=50, cache_read=20)
    if delivery == "streamed":
        step = streamed(wire, MIXED, tokens)
    else:
        step = json_step(200, wire.document(MIXED, tokens))
    outcome = await call(wire, [step])
    message = outcome.message
    assert content(message) == expected(wire, MIXED)
    assert (message.stop_reason, message.error_message) == ("toolUse", None)
    assert (message.usage.input, message.usage.output, message.usage.cache_read) == (80, 50, 20)
    assert message.usage.cost.total > 0
    kinds = [t for t in outcome.types if t.endswith("_start") or t in ("start", "done")]
    assert kinds == ["start", "thinking_start", "text_start", "toolcall_start", "done"]


# --- failures ----------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [400, 429, 500, 503])
@scenario("http error")
async def test_http_error(wire: Wire, status: int) -> None:
    body, code = wire.http_error(status, "Slow down")
    failed = await call(wire, [json_step(status, body)])
    message = failed.message
    assert failed.types == ["start", "error"]
    assert message.stop_reason == "error" and message.content == []
    reason = HTTPStatus(status).phrase
    assert message.error_message == f"{status} {reason}: {code}: Slow down"
    assert len(failed.requests) == 1
    # Which statuses are retried: the conformance kit's retry rule, run by every package.


@scenario("http error")
async def test_an_html_error_page_reads_the_same_on_every_api(wire: Wire) -> None:
    outcome = await call(wire, [json_step(500, HTML_ERROR_PAGE)])
    expected = f"500 Internal Server Error: {body_excerpt(HTML_ERROR_PAGE)}"
    assert outcome.message.error_message == expected


@scenario("http error")
async def test_a_json_error_body_of_another_shape_is_shown_as_it_came(wire: Wire) -> None:
    outcome = await call(wire, [json_step(404, {"error": "no route /v1"})])
    assert outcome.message.error_message == '404 Not Found: {"error": "no route /v1"}'


@scenario("on_response")
async def test_on_response_sees_status_and_headers_before_the_body(wire: Wire) -> None:
    """pi-ai 0.73 ``onResponse(status, headers)``: once, before the body is read."""
    seen: list[tuple[int, str | None]] = []

    async def hook(status: int, headers: Any) -> None:
        seen.append((status, headers.get("x-ratelimit-remaining-requests")))

    step = streamed(wire, [Text(("Hi",))])
    step = dataclasses.replace(
        step, headers={**step.headers, "x-ratelimit-remaining-requests": "7"}
    )
    outcome = await call(wire, [step], on_response=hook)
    assert outcome.message.stop_reason == "stop" and outcome.message.text == "Hi"
    assert seen == [(200, "7")]

    def refuse(status: int, headers: Any) -> None:
        raise RuntimeError("quota policy says no")

    refused = await call(wire, [streamed(wire, [Text(("Hi",))])], on_response=refuse)
    assert refused.message.stop_reason == "error" and refused.message.text == ""  # body unread
    assert "quota policy says no" in (refused.message.error_message or "")


@scenario("in-stream error")
async def test_in_stream_error(wire: Wire) -> None:
    event, text = wire.stream_error("The server is overloaded")
    outcome = await call(wire, [sse_step([*wire.opening("Hel"), event])], retries=2)
    message = outcome.message
    assert outcome.types[-1] == "error" and message.stop_reason == "error"
    assert message.error_message == text
    assert content(message) == [("text", "Hel")]  # the partial content is kept
    assert_partial_usage_kept(wire, message, cut=False)
    assert len(outcome.requests) == 1  # the reply had started: not retried


CUTS = {
    # the body ends cleanly, at an event boundary, before the vendor's terminal event
    "before-terminal": lambda wire: sse_step(wire.opening("Hel")),
    # the body ends in the middle of an event
    "mid-event": lambda wire: sse_step([*wire.opening("Hel"), wire.partial_event()]),
    # the server closes the connection in the middle of the chunked body
    "connection-closed": lambda wire: sse_step(wire.opening("Hel"), end="close"),
    # the connection is reset (TCP RST) in the middle of the body
    "connection-reset": lambda wire: sse_step(wire.opening("Hel"), end="rst"),
}


@pytest.mark.parametrize("cut", sorted(CUTS))
@scenario("truncation")
async def test_a_cut_stream_ends_in_one_error_with_the_partial_content(
    wire: Wire, cut: str
) -> None:
    outcome = await call(wire, [CUTS[cut](wire)], retries=2)
    message = outcome.message
    assert outcome.types.count("error") == 1 and outcome.types[-1] == "error"
    assert "done" not in outcome.types
    assert message.stop_reason == "error"
    assert content(message) == [("text", "Hel")]
    assert_partial_usage_kept(wire, message)
    assert len(outcome.requests) == 1
    text = message.error_message or ""
    if cut == "connection-closed":
        assert text.startswith("connection lost while reading the response: "), text
    elif cut == "connection-reset":
        assert text.startswith("connection lost while reading the response: ReadError"), text
        assert "reset" in text.lower()  # the OS error, not just "ReadError"
    elif cut == "before-terminal":
        assert f"stream ended before {wire.terminal_name}" in text, text
    else:  # Chat Completions, Responses, Bedrock say where the body was cut; the others do not
        assert wire.cut_text in text or f"stream ended before {wire.terminal_name}" in text, text


@scenario("abort")
async def test_abort_mid_stream(wire: Wire) -> None:
    outcome = await call(wire, [sse_step(wire.opening("Hel"), end="hang")], abort_at="text_delta")
    message = outcome.message
    assert outcome.types == ["start", "text_start", "text_delta", "error"]
    assert outcome.events[-1].reason == "aborted"  # pyright: ignore[reportAttributeAccessIssue]
    assert (message.stop_reason, message.error_message) == ("aborted", "Request was aborted")
    assert content(message) == [("text", "Hel")]
    assert_partial_usage_kept(wire, message)


# --- malformed streams (folded from tests/core/test_error_text.py, test_sse_robustness.py) ------


@scenario("malformed event")
async def test_bad_json_in_the_stream_names_the_event(wire: Wire) -> None:
    body, terminal = wire.events([Text(("Hel", "lo"))], Tokens())
    outcome = await call(wire, [sse_step([body[0], b"data: {nope\n\n", *body[1:], *terminal])])
    text = outcome.message.error_message or ""
    assert text.startswith("malformed stream event #2 ("), text
    assert "Expecting property name" in text and text.endswith("data: '{nope'")


@pytest.mark.parametrize("data", [b"data: [1, 2]\n\n", b"data: null\n\n", b'data: "x"\n\n'])
@scenario("malformed event")
async def test_an_event_that_is_not_a_json_object_is_an_error(wire: Wire, data: bytes) -> None:
    body, terminal = wire.events([Text(("Hel", "lo"))], Tokens())
    outcome = await call(wire, [sse_step([body[0], data, *body[1:], *terminal])])
    text = outcome.message.error_message or ""
    assert text.startswith("malformed stream event #2 (") and "not a JSON object" in text, text


NOISE = [b"data:\n\n", b"data: \n\n", b"data:\r\n\r\n", b"data:  \t\n\n", b": ping\n\n", b"\n\n"]
"""QA trial t03: an empty ``data:`` line (a proxy's keep-alive) ended the stream in an error."""


@scenario("SSE noise")
async def test_empty_data_events_comments_and_blank_lines_are_skipped(wire: Wire) -> None:
    body, terminal = wire.events([Text(("Hel", "lo"))], Tokens())
    events = [*NOISE, body[0], *NOISE, *body[1:], *NOISE, *terminal]
    outcome = await call(wire, [sse_step(events)])
    assert outcome.message.stop_reason == "stop", outcome.message.error_message
    assert content(outcome.message) == [("text", "Hello")]


# --- the end of a reply (folded from test_terminal_event.py) -----------------------------------


@scenario("terminal event")
async def test_the_reply_ends_at_the_terminal_event_when_the_server_keeps_the_connection(
    wire: Wire,
) -> None:
    outcome = await call(wire, [streamed(wire, [Text(("Hel", "lo"))], end="hang")])
    message = outcome.message
    assert outcome.types[-1] == "done", message.error_message
    assert message.stop_reason == "stop"
    assert content(message) == [("text", "Hello")]
    assert message.usage.output == 3  # usage of the terminal event (Gemini: its chunk) is kept


@scenario("terminal event")
async def test_content_after_the_terminal_event_is_not_merged(wire: Wire) -> None:
    body, terminal = wire.events([Text(("Hel", "lo"))], Tokens())
    outcome = await call(wire, [sse_step(body + terminal + body + terminal)])
    assert outcome.types.count("text_start") == 1 and outcome.types[-1] == "done"
    assert content(outcome.message) == [("text", "Hello")]


# --- a connection dropped before the reply (retried: the conformance kit's retry rule) ---------


@scenario("dropped before the reply")
async def test_the_error_says_the_server_closed_the_connection(wire: Wire) -> None:
    outcome = await call(wire, [Step(end="rst")])  # reset after the headers
    text = outcome.message.error_message or ""
    assert outcome.message.stop_reason == "error" and len(outcome.requests) == 1
    assert text.startswith("connection closed by the server before the response: "), text
    assert "reset" in text.lower() or "closed" in text.lower()


# --- malformed replies (folded from test_malformed_replies.py) ---------------------------------


@scenario("JSON that is not a reply")
async def test_a_json_body_that_is_not_a_reply_is_an_error(wire: Wire) -> None:
    outcome = await call(wire, [json_step(200, {"hello": "proxy"})])
    text = outcome.message.error_message or ""
    assert outcome.message.stop_reason == "error"
    assert wire.not_a_reply in text, text
    assert "proxy" in text  # an excerpt of what came instead


# --- the matrix itself -------------------------------------------------------------------------


def _documented_matrix() -> dict[str, list[bool]]:
    """The module docstring's matrix: scenario -> applicable per column (``WIRES`` order)."""
    lines = (__doc__ or "").splitlines()
    rules = [i for i, line in enumerate(lines) if line.startswith("=====")]
    rows: dict[str, list[bool]] = {}
    for line in lines[rules[1] + 1 : rules[2]]:
        cells = re.split(r"\s{2,}", line.strip())
        name = re.sub(r" \(.*\)$", "", cells[0])
        rows[name] = [not cell.startswith("-") for cell in cells[1:]]
    return rows


def test_the_documented_matrix_is_the_one_that_runs() -> None:
    documented = _documented_matrix()
    assert list(documented) == SCENARIOS
    for name, applicable in documented.items():
        assert applicable == [name not in wire.not_applicable for wire in WIRES], name


def test_every_cell_runs_or_says_why_not() -> None:
    assert len({wire.api for wire in WIRES}) == len(WIRES)
    for wire in WIRES:
        for name, reason in wire.not_applicable.items():
            assert name in SCENARIOS, f"{wire.api}: unknown scenario {name!r}"
            assert len(reason) > 20, f"{wire.api}: say why {name!r} does not apply"
