"""What ``/model`` says the history becomes for the new model, for every kind of block.

:func:`pi_sdk._cli.switch.carry_over`, each line whole: nothing to change (same source, empty
history); another source's thinking sent as text (not redacted or empty ones; every source
named); each block kind that carries a signature (thinking, text, tool call, image) counted
once when it has one; server-tool blocks, citations and images sent as text; failed and
aborted turns left out; missing tool results added; singular and plural of each.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.messages import assistant

import pi_sdk
from pi_sdk import (
    Citation,
    ImageContent,
    ServerToolCall,
    ServerToolResult,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_sdk._cli.switch import carry_over

CLAUDE = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")
GPT = pi_sdk.get_model("openai", "gpt-5")
GEMINI = pi_sdk.get_model("google", "gemini-2.5-flash")
TO_GPT = "history carried over to openai/gpt-5 (openai-responses)"


def _ask(text: str = "q") -> UserMessage:
    return UserMessage(content=text)


def _answer(call: ToolCall) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call.id, tool_name=call.name, content=[TextContent(text="ok")]
    )


def test_an_empty_history_has_nothing_to_carry():
    assert carry_over([], GPT) == f"{TO_GPT}: 0 messages"


def test_the_same_source_changes_nothing():
    turn = assistant(
        GPT,
        ThinkingContent(thinking="hmm", thinking_signature="sig"),
        TextContent(text="A", text_signature="t", citations=[Citation(type="url", url="u")]),
        stop="stop",
    )
    assert carry_over([_ask(), turn], GPT) == f"{TO_GPT}: 2 messages; nothing to change"


@pytest.mark.parametrize(
    ("blocks", "said"),
    [
        ([ThinkingContent(thinking="plan")], "1 thinking block from {src} sent as text"),
        (
            [ThinkingContent(thinking="plan"), ThinkingContent(thinking="more")],
            "2 thinking blocks from {src} sent as text",
        ),
        ([ThinkingContent(thinking="  "), ThinkingContent(thinking="x", redacted=True)], None),
    ],
)
def test_another_sources_thinking_is_sent_as_text_unless_redacted_or_empty(
    blocks: list[Any], said: str | None
):
    turn = assistant(CLAUDE, *blocks, TextContent(text="A"), stop="stop")
    expected = said.format(src="anthropic/claude-sonnet-4-5") if said else "nothing to change"
    assert carry_over([_ask(), turn], GPT) == f"{TO_GPT}: 2 messages; {expected}"


def test_thinking_from_several_sources_names_each_once_in_order():
    turns = [
        _ask(),
        assistant(GEMINI, ThinkingContent(thinking="g"), TextContent(text="A"), stop="stop"),
        _ask(),
        assistant(CLAUDE, ThinkingContent(thinking="c"), TextContent(text="B"), stop="stop"),
        _ask(),
        assistant(CLAUDE, ThinkingContent(thinking="d"), TextContent(text="C"), stop="stop"),
    ]
    assert carry_over(turns, GPT) == (
        f"{TO_GPT}: 6 messages; 3 thinking blocks from anthropic/claude-sonnet-4-5,"
        " google/gemini-2.5-flash sent as text"
    )


IMAGE_AS_TEXT = "1 image the model made sent as text"


@pytest.mark.parametrize(
    ("block", "said"),
    [
        (TextContent(text="A", text_signature="t"), "1 signature dropped"),
        (TextContent(text="A"), "nothing to change"),
        (ToolCall(id="c1", name="f", arguments={}, thought_signature="s"), "1 signature dropped"),
        (ToolCall(id="c1", name="f", arguments={}), "nothing to change"),
        (
            ImageContent(data="aGk=", mime_type="image/png", thought_signature="s"),
            f"{IMAGE_AS_TEXT}, 1 signature dropped",
        ),
        (ImageContent(data="aGk=", mime_type="image/png"), IMAGE_AS_TEXT),
        (
            ThinkingContent(thinking="", thinking_signature="s", redacted=True),
            "1 signature dropped",
        ),
        (ThinkingContent(thinking="", redacted=True), "nothing to change"),
    ],
)
def test_every_block_kind_that_carries_a_signature_counts_it(block: Any, said: str):
    content = (
        [block] if isinstance(block, ToolCall | ImageContent) else [block, TextContent(text="A")]
    )
    history: list[Any] = [_ask(), assistant(GEMINI, *content, stop="stop")]
    if isinstance(block, ToolCall):
        history.append(_answer(block))
    assert carry_over(history, GPT) == f"{TO_GPT}: {len(history)} messages; {said}"


def test_every_signature_of_a_turn_is_counted():
    call = ToolCall(id="c1", name="f", arguments={}, thought_signature="s1")
    turn = assistant(
        GEMINI,
        ThinkingContent(thinking="", thinking_signature="s0", redacted=True),
        TextContent(text="A", text_signature="s2"),
        call,
        ImageContent(data="aGk=", mime_type="image/png", thought_signature="s3"),
    )
    assert carry_over([_ask(), turn, _answer(call)], GPT) == (
        f"{TO_GPT}: 3 messages; 1 image the model made sent as text, 4 signatures dropped"
    )


def test_server_tool_blocks_citations_and_images_are_counted_in_the_singular_and_plural():
    server = [
        ServerToolCall(id="ws_1", name="web_search", arguments={"query": "q"}),
        ServerToolResult(tool_call_id="ws_1", kind="web_search_tool_result", content=[]),
    ]
    one = assistant(
        CLAUDE,
        server[0],
        TextContent(text="A", citations=[Citation(type="url", url="https://a.example/")]),
        ImageContent(data="aGk=", mime_type="image/png"),
        stop="stop",
    )
    assert carry_over([_ask(), one], GPT) == (
        f"{TO_GPT}: 2 messages; 1 server-tool block sent as text, 1 citation sent as a list of"
        " sources, 1 image the model made sent as text"
    )
    many = assistant(
        CLAUDE,
        *server,
        TextContent(
            text="A",
            citations=[Citation(type="url", url="https://a.example/"), Citation(type="doc")],
        ),
        ImageContent(data="aGk=", mime_type="image/png"),
        ImageContent(data="aGk=", mime_type="image/png"),
        stop="stop",
    )
    assert carry_over([_ask(), many], GPT) == (
        f"{TO_GPT}: 2 messages; 2 server-tool blocks sent as text, 2 citations sent as a list of"
        " sources, 2 images the model made sent as text"
    )


def test_failed_and_aborted_turns_are_left_out():
    failed = assistant(GPT, TextContent(text="partial"), stop="error")
    aborted = assistant(GPT, stop="aborted")
    assert carry_over([_ask(), failed], GPT) == (
        f"{TO_GPT}: 1 message; 1 failed or aborted turn left out"
    )
    assert carry_over([_ask(), failed, _ask(), aborted, _ask()], GPT) == (
        f"{TO_GPT}: 3 messages; 2 failed or aborted turns left out"
    )


def test_calls_that_never_got_a_result_get_error_results():
    calls = [ToolCall(id=f"c{n}", name="f", arguments={}) for n in (1, 2)]
    one = [_ask(), assistant(GPT, calls[0]), _ask("next")]
    assert carry_over(one, GPT) == f"{TO_GPT}: 4 messages; 1 missing tool result added as errors"
    two = [_ask(), assistant(GPT, *calls), _ask("next")]
    assert carry_over(two, GPT) == f"{TO_GPT}: 5 messages; 2 missing tool results added as errors"


def test_a_turn_left_empty_is_not_called_failed():
    """Another source's redacted reasoning alone: the transform leaves the turn out, empty."""
    emptied = assistant(
        GEMINI, ThinkingContent(thinking="", thinking_signature="s", redacted=True), stop="stop"
    )
    failed = assistant(GPT, TextContent(text="partial"), stop="error")
    assert carry_over([_ask(), emptied], GPT) == (
        f"{TO_GPT}: 1 message; 1 signature dropped, 1 empty turn left out"
    )
    assert carry_over([_ask(), emptied, _ask(), failed, _ask(), emptied, _ask()], GPT) == (
        f"{TO_GPT}: 4 messages; 2 signatures dropped, 1 failed or aborted turn left out,"
        " 2 empty turns left out"
    )
