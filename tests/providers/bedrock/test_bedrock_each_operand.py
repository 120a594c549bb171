"""Bedrock fallbacks and rules of two conditions shown one operand at a time: the AWS profile,
the role of a whole Converse response read as stream events, and ``toolResult`` deltas (a
server result's, and a list)."""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_bedrock._client import _profile  # pyright: ignore[reportPrivateUsage]
from pi_sdk_bedrock.converse._decode import Decoder
from pi_sdk_bedrock.converse._response_events import response_as_events

from pi_sdk import Model, StreamOptions, TextContent, ToolCall
from pi_sdk.provider import MessageBuilder


@pytest.mark.parametrize(
    ("option", "environment", "profile"),
    [
        ("from-options", "from-env", "from-options"),
        (None, "from-env", "from-env"),  # AWS_PROFILE alone
        ("from-options", None, "from-options"),
        (None, None, None),
        ("", "", None),
    ],
)
def test_the_profile_comes_from_the_options_then_aws_profile(
    monkeypatch: pytest.MonkeyPatch,
    option: str | None,
    environment: str | None,
    profile: str | None,
) -> None:
    if environment is None:
        monkeypatch.delenv("AWS_PROFILE", raising=False)
    else:
        monkeypatch.setenv("AWS_PROFILE", environment)
    options = StreamOptions(provider_options={} if option is None else {"profile": option})
    assert _profile(options) == profile


@pytest.mark.parametrize(("role", "start"), [(None, "assistant"), ("assistant", "assistant")])
def test_a_whole_response_starts_as_the_assistants_message(role: str | None, start: str) -> None:
    message = {"content": []} if role is None else {"role": role, "content": []}
    events = list(response_as_events({"output": {"message": message}, "stopReason": "end_turn"}))
    assert events[0] == ("messageStart", {"role": start})


def _reply(*events: tuple[str, dict[str, Any]]) -> list[Any]:
    builder = MessageBuilder(
        Model(id="m", api="bedrock-converse-stream", provider="amazon-bedrock")
    )
    builder.start()
    decoder = Decoder(builder)
    for kind, data in events:
        decoder.feed(kind, data)
    decoder.feed("metadata", {"usage": {}})
    decoder.finish()
    return builder.message.content


RESULT = {"toolUseId": "tu_1", "type": "nova_code_interpreter_result", "status": "success"}


def test_tool_result_pieces_only_extend_a_server_result_and_only_as_a_list() -> None:
    pieces = [{"text": "4"}]
    # pieces for a block that is no server result: not pi content, no error
    assert (
        _reply(
            ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolResult": pieces}}),
            ("contentBlockStop", {"contentBlockIndex": 0}),
        )
        == []
    )
    start = ("contentBlockStart", {"contentBlockIndex": 0, "start": {"toolResult": RESULT}})
    stop = ("contentBlockStop", {"contentBlockIndex": 0})
    (alone,) = _reply(start, stop)
    (odd,) = _reply(
        start,
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolResult": {"text": "4"}}}),
        stop,
    )
    assert odd == alone  # a piece that is not a list is not the result's content
    (extended,) = _reply(
        start,
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolResult": pieces}}),
        stop,
    )
    assert (extended.content, extended.raw) == (
        pieces,
        {"toolResult": {**RESULT, "content": pieces}},
    )


def test_an_unknown_delta_leaves_an_open_block_open() -> None:
    def text(piece: str) -> tuple[str, dict[str, Any]]:
        return "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": piece}}

    future = ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"future": {"x": 1}}})
    stop = ("contentBlockStop", {"contentBlockIndex": 0})
    assert _reply(text("a"), future, text("b"), stop) == [TextContent(text="ab")]
    assert _reply(future, stop) == []  # on a block never opened: skipped, with its stop


def test_an_unknown_delta_keeps_an_open_tool_calls_later_input() -> None:
    start = {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t1", "name": "f"}}}
    future = {"contentBlockIndex": 0, "delta": {"future": {"x": 1}}}
    piece = {"contentBlockIndex": 0, "delta": {"toolUse": {"input": '{"a": 1}'}}}
    content = _reply(
        ("contentBlockStart", start),
        ("contentBlockDelta", future),
        ("contentBlockDelta", piece),
        ("contentBlockStop", {"contentBlockIndex": 0}),
    )
    assert content == [ToolCall(id="t1", name="f", arguments={"a": 1})]
