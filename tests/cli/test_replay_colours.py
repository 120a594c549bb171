"""``pi-sdk replay`` / ``demo`` on a terminal: the colour of every part of its lines.

With colour on (a terminal, or ``FORCE_COLOR``), the summary's first line is green with ✔ for
a message that ended normally and red with ✘ for an ``error`` or ``aborted`` one; labels are
bold, tool names cyan, ids and prices' details dim, the total cost yellow, a problem red; the
live lines open thinking in magenta and dim italics, tool calls in cyan, and reset at the
block's end. Each row is the whole output, codes included.
"""

from __future__ import annotations

import io

import pytest

from pi_sdk import AssistantMessage, Model
from pi_sdk._cli.common import Style
from pi_sdk._cli.replay import _header, _LivePrinter, _summary
from pi_sdk._stream.builder import MessageBuilder
from pi_sdk.types import TextContent, ThinkingContent, ToolCall, Usage

MODEL = Model(id="m-1", api="acme-api", provider="acme")
COLOUR = Style(True)


def c(codes: str, text: str) -> str:
    return f"\033[{codes}m{text}\033[0m"


USAGE = (
    "  "
    + c("1", "usage      ")
    + "input 3 · output 2 · cache read 0 · cache write 0 · total 5 tokens"
)
COST = (
    "  "
    + c("1", "cost       ")
    + c("33", "$0.000000")
    + c(
        "2",
        "  (input $0.000000, output $0.000000, cache read $0.000000, cache write $0.000000)",
    )
)


def _message(stop_reason: str, **fields: object) -> AssistantMessage:
    return AssistantMessage(
        api="acme-api",
        provider="acme",
        model="m-1",
        stop_reason=stop_reason,  # pyright: ignore[reportArgumentType]
        usage=Usage(input=3, output=2, total_tokens=5),
        **fields,  # pyright: ignore[reportArgumentType]
    )


@pytest.mark.parametrize(
    ("stop_reason", "mark"),
    [
        ("stop", c("32;1", "✔ ") + c("1", "stop reason ") + c("32", "stop")),
        ("toolUse", c("32;1", "✔ ") + c("1", "stop reason ") + c("32", "toolUse")),
        ("length", c("32;1", "✔ ") + c("1", "stop reason ") + c("32", "length")),
        ("error", c("31;1", "✘ ") + c("1", "stop reason ") + c("31", "error")),
        ("aborted", c("31;1", "✘ ") + c("1", "stop reason ") + c("31", "aborted")),
    ],
)
def test_the_first_summary_line_is_green_for_an_answer_and_red_for_a_failure(
    stop_reason: str, mark: str
):
    lines = _summary(_message(stop_reason, content=[TextContent(text="Hi")]), COLOUR)
    assert lines == [mark, "  " + c("1", "text       ") + "“Hi”", USAGE, COST]


def test_an_error_its_missing_text_and_a_call_s_bad_arguments_are_coloured():
    call = ToolCall(
        id="c1",
        name="look",
        arguments={},
        arguments_error="not JSON\n\nReceived arguments:\n{oops",
    )
    thinking = ThinkingContent(thinking="hmm", thinking_signature="sig")
    message = _message("error", content=[thinking, call], error_message="boom")
    assert _summary(message, COLOUR) == [
        c("31;1", "✘ ") + c("1", "stop reason ") + c("31", "error"),
        "  " + c("1", "error      ") + c("31", "boom"),
        "  " + c("1", "text       ") + c("2", "(none)"),
        "  " + c("1", "thinking   ") + "1 block, 3 chars, signature present",
        "  "
        + c("1", "tool call  ")
        + c("36", "look")
        + " {oops"
        + c("31", "  (arguments not valid: not JSON)")
        + c("2", "  (id c1)"),
        USAGE,
        COST,
    ]


def test_the_interaction_header_is_blue_with_the_request_dim():
    assert _header(2, MODEL, "POST", "https://acme.test/v1", COLOUR) == (
        c("34;1", "━━ interaction 2 ")
        + c("34", "acme-api · acme/m-1")
        + c("2", " · POST https://acme.test/v1")
    )


def test_live_lines_colour_thinking_and_tool_calls_and_reset_at_their_end():
    out = io.StringIO()
    printer = _LivePrinter(out, COLOUR)
    b = MessageBuilder(MODEL)
    events = [b.start(), *b.open_thinking(0), *b.append_thinking(0, "hmm")]
    events += b.end_thinking(0) + b.open_text(1) + b.append_text(1, "Hi") + b.end_text(1)
    events += b.open_tool_call(2, id="c1", name="look") + b.append_arguments(2, "{}")
    events += b.end_tool_call(2) + b.done("toolUse")
    for event in events:
        printer.event(event)
    assert out.getvalue() == (
        c("35;1", "thinking ")
        + "\033[2;3mhmm\033[0m\n"
        + "Hi\n"
        + c("36;1", "tool call ")
        + c("36", "look")
        + " \033[2m{}\033[0m\n"
        + "\033[0m\n"  # done: a reset, on a line of its own
    )
