"""Malformed replies end in an error; they never pass for an empty success (per-API cases).

QA trials t02/t08: an Anthropic delta sent before its ``content_block_start`` was silently
dropped; a 200 JSON body that is not a reply passed for success (that case, on every API, is in
``test_contract.py``). Legitimate edge cases stay successes: a Chat Completions stream ending
with ``[DONE]`` without a finish reason (conformance rule), a Responses reply cut by the token
limit before any output, Anthropic server-tool blocks.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.loopback import Step, complete_once, sse_step


async def test_a_chat_stream_without_any_choice_is_an_error() -> None:
    message = await complete_once("openai-completions", sse_step([b"data: [DONE]\n\n"]))
    assert message.stop_reason == "error"
    assert "no choices" in (message.error_message or "")


async def test_a_chat_stream_without_finish_reason_is_still_stop() -> None:
    chunk = {"choices": [{"index": 0, "delta": {"content": "Hello"}}]}
    message = await complete_once("openai-completions", sse_step([chunk, b"data: [DONE]\n\n"]))
    assert (message.stop_reason, message.text) == ("stop", "Hello")


def _responses(status: str, output: list[Any]) -> Step:
    response = {"id": "r", "status": status, "output": output}
    if status == "incomplete":
        response["incomplete_details"] = {"reason": "max_output_tokens"}
    return sse_step(
        [
            {"type": "response.created", "response": {"id": "r"}},
            {"type": f"response.{status}", "response": response},
        ]
    )


async def test_a_completed_response_without_output_is_an_error() -> None:
    message = await complete_once("openai-responses", _responses("completed", []))
    assert message.stop_reason == "error"
    assert "no output items" in (message.error_message or "")


async def test_an_incomplete_response_without_output_is_length() -> None:
    message = await complete_once("openai-responses", _responses("incomplete", []))
    assert message.stop_reason == "length", message.error_message


def _anthropic(*events: dict[str, Any]) -> Step:
    start = {"type": "message_start", "message": {"usage": {"input_tokens": 1}}}
    end = [
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    ]
    return sse_step([start, *events, *end])


def _text_start(index: int) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": {"type": "text"}}


def _text_delta(index: int, text: str) -> dict[str, Any]:
    delta = {"type": "text_delta", "text": text}
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


@pytest.mark.parametrize(
    "events",
    [
        # a delta before its block starts
        [_text_delta(0, "Hel"), _text_start(0), _text_delta(0, "lo"), _stop(0)],
        # a delta after its block stopped
        [_text_start(0), _text_delta(0, "Hel"), _stop(0), _text_delta(0, "lo")],
        # a stop for a block that never started
        [_text_start(0), _text_delta(0, "Hello"), _stop(0), _stop(1)],
        # a block started twice
        [_text_start(0), _text_delta(0, "Hel"), _text_start(0), _text_delta(0, "lo"), _stop(0)],
    ],
    ids=["delta-before-start", "delta-after-stop", "stop-without-start", "started-twice"],
)
async def test_anthropic_block_events_out_of_order_are_errors(events: list[Any]) -> None:
    message = await complete_once("anthropic-messages", _anthropic(*events))
    assert message.stop_reason == "error"
    assert "malformed stream: content_block_" in (message.error_message or "")


async def test_anthropic_server_tool_blocks_and_their_deltas_are_skipped() -> None:
    server_tool = {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}}
    delta = {"type": "input_json_delta", "partial_json": '{"q": 1}'}
    message = await complete_once(
        "anthropic-messages",
        _anthropic(
            {"type": "content_block_start", "index": 0, "content_block": server_tool},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            _stop(0),
            _text_start(1),
            _text_delta(1, "Hello"),
            _stop(1),
        ),
    )
    assert (message.stop_reason, message.text) == ("stop", "Hello")
