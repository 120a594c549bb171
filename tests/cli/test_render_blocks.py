"""Every kind of content block in every rendering of the CLI, each line asserted whole.

:mod:`pi_sdk._cli.render`: a tool result's text (text, image, document with and without a
name), a finished tool's line (ok, failed, blocked; cut at its limit), the usage line and the
session's totals (with and without cache tokens, estimated usage, thousands), a server tool's
call and result lines, the replay of a continued session (``transcript_lines``: every block of
every role) and what :class:`TurnPrinter` prints for every event kind of a model call.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from rich.console import Console

import pi_sdk
from pi_sdk import events
from pi_sdk._cli.render import (
    Totals,
    TurnPrinter,
    result_text,
    server_block_line,
    short,
    tool_outcome,
    transcript_lines,
    usage_line,
)
from pi_sdk._wire.agent_types import MessageEndEvent, MessageUpdateEvent
from pi_sdk.types import (
    AssistantMessage,
    Cost,
    DocumentContent,
    ImageContent,
    ServerToolCall,
    ServerToolResult,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

IMAGE = ImageContent(data="aGk=", mime_type="image/png")
NAMED = DocumentContent(url="https://a.example/report.pdf", name="report.pdf")
UNNAMED = DocumentContent(file_id="file-1")
SEARCH = ServerToolCall(id="ws_1", name="web_search", arguments={"query": "café prices"})
FOUND = ServerToolResult(
    tool_call_id="ws_1",
    kind="web_search_tool_result",
    content=[{"url": f"https://s{n}.example/", "title": f"Source {n}"} for n in range(1, 11)],
)
FAILED_SEARCH = ServerToolResult(
    tool_call_id="ws_2", kind="web_search_tool_result", error="max_uses_exceeded"
)
EMPTY_SEARCH = ServerToolResult(tool_call_id="ws_3", kind="web_fetch_tool_result", content=[])


def _usage(
    input: int, output: int, cache_read: int = 0, cache_write: int = 0, cost: float = 0.0
) -> Usage:
    return Usage(
        input=input,
        output=output,
        cache_read=cache_read,
        cache_write=cache_write,
        cost=Cost(total=cost),
    )


def _reply(*content: Any, **fields: Any) -> AssistantMessage:
    return AssistantMessage(
        api="anthropic-messages",
        provider="anthropic",
        model="claude-sonnet-4-5",
        content=list(content),
        **fields,
    )


# --- a tool result's text and its line -------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "text"),
    [
        ([], ""),
        ([TextContent(text="fine")], "fine"),
        ([IMAGE], "[image]"),
        ([NAMED], "[document: report.pdf]"),
        ([UNNAMED], "[document]"),
        (
            [TextContent(text="see"), IMAGE, NAMED, UNNAMED, TextContent(text="end")],
            "see [image] [document: report.pdf] [document] end",
        ),
    ],
)
def test_a_tool_results_text_shows_every_kind_of_block(content: list[Any], text: str):
    assert result_text(content) == text


@pytest.mark.parametrize(
    ("details", "is_error", "line", "style"),
    [
        (None, False, "✔ look → [document: report.pdf] [image]", "green"),
        ({}, True, "✘ look failed: [document: report.pdf] [image]", "red"),
        ({"blocked": True}, True, "⊘ look blocked: [document: report.pdf] [image]", "yellow"),
        ({"blocked": True}, False, "✔ look → [document: report.pdf] [image]", "green"),
    ],
)
def test_a_finished_tools_line_for_each_outcome(
    details: Any, is_error: bool, line: str, style: str
):
    assert tool_outcome("look", [NAMED, IMAGE], details, is_error) == (line, style)


def test_a_long_result_is_cut_to_the_limit_on_one_line():
    content = [TextContent(text="a  b\n" + "x" * 20)]
    assert tool_outcome("t", content, None, False, limit=10) == ("✔ t → a b xxxxx…", "green")
    assert tool_outcome("t", content, None, False, limit=24) == (
        "✔ t → a b " + "x" * 20,
        "green",
    )
    assert short("x" * 11, 10) == "x" * 9 + "…" and short("x" * 10, 10) == "x" * 10


# --- usage and totals ------------------------------------------------------------------------


def test_totals_count_every_call_and_describe_them():
    totals = Totals()
    assert totals.describe() == "0 calls · 0 in · 0 out · $0.000000"
    totals.add(_usage(10, 6, cost=0.000096))
    assert totals == Totals(calls=1, input=10, output=6, cost=0.000096)
    assert totals.describe() == "1 call · 10 in · 6 out · $0.000096"
    totals.add(_usage(1_200, 30, cache_read=5_000, cache_write=7, cost=0.5))
    assert totals == Totals(
        calls=2, input=1_210, output=36, cache_read=5_000, cache_write=7, cost=0.500096
    )
    assert totals.describe() == (
        "2 calls · 1,210 in · 36 out · cache 5,000 read, 7 written · $0.500096"
    )


@pytest.mark.parametrize(
    ("usage", "estimated", "line"),
    [
        (
            _usage(10, 6, cost=0.000096),
            False,
            "anthropic/claude-sonnet-4-5 · 10 in · 6 out · $0.000096"
            "  │  session: 3 calls · 100 in · 60 out · $0.001000",
        ),
        (
            _usage(2_000, 6, cache_write=1_500, cost=0.01),
            True,
            "anthropic/claude-sonnet-4-5 · 2,000 in · 6 out · cache 0 read, 1,500 written"
            " (estimated) · $0.010000"
            "  │  session: 3 calls · 100 in · 60 out · $0.001000",
        ),
    ],
)
def test_the_usage_line_of_a_call(usage: Usage, estimated: bool, line: str):
    message = _reply(TextContent(text="hi"), usage=usage, usage_estimated=estimated)
    totals = Totals(calls=3, input=100, output=60, cost=0.001)
    assert usage_line(message, totals) == line


# --- server tools ----------------------------------------------------------------------------


def test_each_server_tool_block_has_its_line():
    assert server_block_line(SEARCH) == '⌕ web_search {"query": "café prices"}'
    assert server_block_line(FOUND) == "⌕ web_search_tool_result: 10 sources"
    assert server_block_line(FAILED_SEARCH) == "⌕ web_search_tool_result: error max_uses_exceeded"
    assert server_block_line(EMPTY_SEARCH) == "⌕ web_fetch_tool_result"
    one = ServerToolResult(
        tool_call_id="x", kind="web_fetch_tool_result", content={"url": "https://a.example/"}
    )
    assert server_block_line(one) == "⌕ web_fetch_tool_result: 1 source"
    long = ServerToolCall(id="c", name="code", arguments={"code": "x" * 300})
    expected = short(json.dumps(long.arguments), 200)
    assert server_block_line(long) == f"⌕ code {expected}" and expected.endswith("x…")


# --- the replay of a continued session -------------------------------------------------------


def test_a_replayed_transcript_has_a_line_for_every_block_of_every_role():
    messages = [
        UserMessage(content="Plan a  trip\nto Paris"),
        UserMessage(content=[TextContent(text="and this:"), IMAGE, NAMED, UNNAMED]),
        _reply(
            ThinkingContent(thinking="Let me think about it."),
            TextContent(text="Searching."),
            SEARCH,
            FOUND,
            FAILED_SEARCH,
            ToolCall(id="c1", name="book", arguments={"city": "Paris"}),
            IMAGE,
        ),
        ToolResultMessage(
            tool_call_id="c1", tool_name="book", content=[TextContent(text="booked")]
        ),
        ToolResultMessage(
            tool_call_id="c2", tool_name="pay", content=[NAMED], is_error=True, details={}
        ),
        ToolResultMessage(
            tool_call_id="c3",
            tool_name="rm",
            content=[TextContent(text="not allowed")],
            is_error=True,
            details={"blocked": True},
        ),
    ]
    sources = [(f"  Source {n} https://s{n}.example/", "dim") for n in range(1, 9)]
    assert transcript_lines(messages) == [
        ("you › Plan a trip to Paris", "bold"),
        ("you › and this: [image] [document: report.pdf] [document]", "bold"),
        ("▸ thinking: 5 words", "dim italic"),
        ("claude-sonnet-4-5 › Searching.", ""),
        ('⌕ web_search {"query": "café prices"}', "dim cyan"),
        ("⌕ web_search_tool_result: 10 sources", "dim cyan"),
        *sources,
        ("⌕ web_search_tool_result: error max_uses_exceeded", "dim cyan"),
        ("→ book", "cyan"),
        ("🖼 image/png image", "cyan"),
        ("✔ book → booked", "dim"),
        ("✘ pay failed: [document: report.pdf]", "red"),
        ("⊘ rm blocked: not allowed", "yellow"),
    ]


# --- live: what the printer prints for each event --------------------------------------------


def _update(inner: Any) -> MessageUpdateEvent:
    return MessageUpdateEvent(message=inner.partial, assistant_message_event=inner)


def test_the_printer_prints_every_event_of_a_model_call():
    out = io.StringIO()
    printer = TurnPrinter(Console(file=out, width=300, highlight=False, color_system=None))
    cited = TextContent(
        text="Paris is nice.",
        citations=[pi_sdk.Citation(type="url", url="https://p.example/", title="Paris")],
    )
    final = _reply(
        ThinkingContent(thinking="Let me see now."),
        cited,
        SEARCH,
        FOUND,
        ToolCall(id="c1", name="book", arguments={"city": "Paris"}),
        usage=_usage(10, 6, cost=0.000096),
        stop_reason="toolUse",
    )
    inner: list[Any] = [
        events.ThinkingStartEvent(content_index=0, partial=final),
        events.ThinkingDeltaEvent(content_index=0, delta="Let me ", partial=final),
        events.ThinkingDeltaEvent(content_index=0, delta="see now.", partial=final),
        events.ThinkingEndEvent(content_index=0, content="Let me see now.", partial=final),
        events.TextStartEvent(content_index=1, partial=final),
        events.TextDeltaEvent(content_index=1, delta="Paris ", partial=final),
        events.TextDeltaEvent(content_index=1, delta="is nice.", partial=final),
        events.TextEndEvent(content_index=1, content="Paris is nice.", partial=final),
        events.ServerToolCallEvent(content_index=2, server_tool_call=SEARCH, partial=final),
        events.ServerToolResultEvent(content_index=3, server_tool_result=FOUND, partial=final),
        events.ToolCallEndEvent(content_index=4, tool_call=final.content[4], partial=final),  # type: ignore[arg-type]
        events.ImageEvent(content_index=5, image=IMAGE, partial=final),
    ]
    for event in inner:
        printer(_update(event))
    printer(MessageEndEvent(message=final))
    assert out.getvalue().splitlines() == [
        "▸ thinking: 4 words (/thinking shows it)",
        "Paris is nice.",
        "  [source] Paris https://p.example/",
        '⌕ web_search {"query": "café prices"}',
        "⌕ web_search_tool_result: 10 sources",
        *[f"  Source {n} https://s{n}.example/" for n in range(1, 9)],
        '→ book {"city": "Paris"}',
        "🖼 image/png image, 0 KiB (kept in the transcript)",
        "anthropic/claude-sonnet-4-5 · 10 in · 6 out · $0.000096"
        "  │  session: 1 call · 10 in · 6 out · $0.000096",
    ]
    assert printer.last_thinking == "Let me see now."
    assert printer.totals == Totals(calls=1, input=10, output=6, cost=0.000096)


@pytest.mark.parametrize(
    ("fields", "line"),
    [
        ({"stop_reason": "error", "error_message": "overloaded"}, "✘ error: overloaded"),
        ({"stop_reason": "error"}, "✘ error: unknown error"),
        ({"stop_reason": "aborted"}, "✘ the answer was aborted"),
    ],
)
def test_a_call_that_failed_or_was_aborted_says_so_before_its_usage(
    fields: dict[str, Any], line: str
):
    out = io.StringIO()
    printer = TurnPrinter(Console(file=out, width=300, highlight=False, color_system=None))
    printer(MessageEndEvent(message=_reply(**fields)))
    assert out.getvalue().splitlines() == [
        line,
        "anthropic/claude-sonnet-4-5 · 0 in · 0 out · $0.000000"
        "  │  session: 1 call · 0 in · 0 out · $0.000000",
    ]


def test_sources_cited_only_in_the_final_message_are_printed_at_its_end_once():
    """Gemini sends grounding after the text ended: the sources come with the message's end."""
    out = io.StringIO()
    printer = TurnPrinter(Console(file=out, width=300, highlight=False, color_system=None))
    plain = _reply(TextContent(text="Paris is nice."))
    cited = TextContent(
        text="Paris is nice.",
        citations=[pi_sdk.Citation(type="url", url="https://p.example/", title="Paris")],
    )
    for event in (
        events.TextStartEvent(content_index=0, partial=plain),
        events.TextDeltaEvent(content_index=0, delta="Paris is nice.", partial=plain),
        events.TextEndEvent(content_index=0, content="Paris is nice.", partial=plain),
    ):
        printer(_update(event))
    printer(MessageEndEvent(message=_reply(cited, usage=_usage(1, 2, cost=0.0))))
    assert out.getvalue().splitlines() == [
        "Paris is nice.",
        "  [source] Paris https://p.example/",
        "anthropic/claude-sonnet-4-5 · 1 in · 2 out · $0.000000"
        "  │  session: 1 call · 1 in · 2 out · $0.000000",
    ]


@pytest.mark.parametrize(("size", "cut"), [(160, False), (161, True)])
def test_a_replayed_transcript_cuts_each_line_s_text_at_160_characters(size: int, cut: bool):
    text = "x" * size
    kept = "x" * 159 + "…" if cut else text
    messages = [
        UserMessage(content=text),
        _reply(TextContent(text=text)),
        ToolResultMessage(tool_call_id="c1", tool_name="t", content=[TextContent(text=text)]),
    ]
    assert transcript_lines(messages) == [
        (f"you › {kept}", "bold"),
        (f"claude-sonnet-4-5 › {kept}", ""),
        (f"✔ t → {kept}", "dim"),
    ]


@pytest.mark.parametrize(("size", "cut"), [(200, False), (201, True)])
def test_a_live_tool_outcome_is_cut_at_200_characters(size: int, cut: bool):
    line, _ = tool_outcome("t", [TextContent(text="y" * size)], None, False)
    assert line == "✔ t → " + ("y" * 199 + "…" if cut else "y" * size)
