"""A grammar tool's call on Chat Completions, piece by piece (``Decoder._custom_input``).

A ``custom`` call streams its free text in ``input`` pieces. Only a non-empty string is a
piece: any other value (a number, a list, an object, ``true``, ``null``, an empty string) is
no piece, and the call is the same as without it. The first entry of a call opens its
argument (``{"<prop>":"``) even when it has no piece, so the streamed deltas always add up to
the final arguments.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pi_sdk_openai.completions import Decoder

from pi_sdk import Model, ToolCall
from pi_sdk.provider import MessageBuilder

MODEL = Model(id="m", api="openai-completions", provider="openai")


def delta(finish: str | None = None, **fields: Any) -> dict[str, Any]:
    return {"id": "r", "model": "m", "choices": [{"index": 0, "delta": fields,
                                                  "finish_reason": finish}]}  # fmt: skip


def custom(**fields: Any) -> dict[str, Any]:
    return delta(tool_calls=[{"index": 0, "custom": fields}])


def replay(
    chunks: list[dict[str, Any]], grammar: dict[str, str] | None = None
) -> tuple[list[Any], list[str]]:
    """The message's content and the streamed argument deltas."""
    builder = MessageBuilder(MODEL)
    builder.start()
    decoder = Decoder(builder) if grammar is None else Decoder(builder, grammar=grammar)
    events = [e for c in chunks for e in decoder.feed(c)]
    events += decoder.finish(saw_done=True)
    return builder.message.content, [e.delta for e in events if e.type == "toolcall_delta"]


def call_of(*pieces: Any) -> list[dict[str, Any]]:
    first = delta(tool_calls=[{"index": 0, "id": "call_1", "type": "custom",
                               "custom": {"name": "set_date"}}])  # fmt: skip
    return [first, *(custom(input=p) for p in pieces), delta(finish="tool_calls")]


NO_PIECES = [5, 0, ["x"], [], {"a": 1}, {}, True, False, None, ""]


@pytest.mark.parametrize("other", NO_PIECES, ids=repr)
def test_an_input_that_is_no_non_empty_string_is_no_piece(other: Any) -> None:
    expected = replay(call_of("2026-", "12-05"), {"set_date": "date"})
    assert replay(call_of("2026-", other, "12-05"), {"set_date": "date"}) == expected
    assert expected == (
        [ToolCall(id="call_1", name="set_date", arguments={"date": "2026-12-05"})],
        ['{"date":"', "2026-", "12-05", '"}'],
    )


@pytest.mark.parametrize("other", NO_PIECES, ids=repr)
def test_a_first_entry_without_a_piece_still_opens_the_argument(other: Any) -> None:
    chunks = [
        delta(tool_calls=[{"index": 0, "id": "call_1", "custom": {"name": "t", "input": other}}]),
        custom(input='é"'),
        delta(finish="tool_calls"),
    ]
    assert replay(chunks, {"t": "text"}) == (
        [ToolCall(id="call_1", name="t", arguments={"text": 'é"'})],
        ['{"text":"', 'é\\"', '"}'],
    )


def test_a_call_with_no_piece_at_all_has_the_empty_text() -> None:
    assert replay(call_of(), {"set_date": "date"}) == (
        [ToolCall(id="call_1", name="set_date", arguments={"date": ""})],
        ['{"date":"', '"}'],
    )


@pytest.mark.parametrize("grammar", [None, {}, {"other": "x"}], ids=["none", "empty", "other"])
def test_a_tool_the_decoder_has_no_grammar_for_takes_its_text_as_input(
    grammar: dict[str, str] | None,
) -> None:
    content, deltas = replay(call_of("a", "b"), grammar)
    assert content == [ToolCall(id="call_1", name="set_date", arguments={"input": "ab"})]
    assert "".join(deltas) == json.dumps({"input": "ab"}, separators=(",", ":"))
