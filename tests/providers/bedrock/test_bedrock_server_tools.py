"""Nova's code interpreter on Bedrock: its blocks kept whole and sent back as they came.

The recording (``../shared/conformance-next/bedrock-converse-stream``, ``servertool_nova_*``)
holds a ``toolUse`` of type ``server_tool_use`` and its ``toolResult`` in the reply; its
follow-up request sent both back (answered 200). A stream of the same blocks (hand-made, the
ConverseStream shapes) gives the same blocks; a server call whose input is not JSON ends in an
error with the content kept.
"""

from __future__ import annotations

import pytest
from _support.conformance import (
    Case,
    next_cases,
    replayed,
    reply_before,
    skip_without_next,
)
from pi_sdk_bedrock.converse import build_request
from test_bedrock_frames import frame
from test_bedrock_stream import START, delta, end, run

from pi_sdk import Context, ServerToolCall, ServerToolResult, StreamOptions, ToolCall, UserMessage

CASES = next_cases("bedrock-converse-stream", "servertool_")


def test_the_recording_is_there():
    skip_without_next(CASES)
    assert len(CASES) == 2


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_the_code_interpreters_call_and_result_are_blocks(case: Case):
    message, response = await replayed(case)
    call, result, client = message.content
    assert isinstance(call, ServerToolCall) and isinstance(result, ServerToolResult)
    assert isinstance(client, ToolCall) and message.stop_reason == "toolUse"
    (use,) = response["server_tool_uses"]
    assert (call.id, call.name, call.arguments) == (use["id"], use["name"], use["input"])
    (wanted,) = response["server_tool_results"]
    assert (result.tool_call_id, result.kind, result.content, result.error) == (
        wanted["tool_use_id"],
        wanted["type"],
        wanted["content"],
        None,
    )


FOLLOW_UPS = [c for c in CASES if c.index > 0]


@pytest.mark.parametrize("case", FOLLOW_UPS, ids=[c.id for c in FOLLOW_UPS])
async def test_the_blocks_go_back_as_recorded(case: Case):
    reply, model, body = await reply_before(case)
    (recorded,) = [m for m in body["messages"] if m["role"] == "assistant"]
    context = Context(messages=[UserMessage(content="q"), reply])
    (sent,) = [
        m
        for m in build_request(model, context, StreamOptions())["messages"]
        if m["role"] == "assistant"
    ]
    assert sent["content"][:2] == recorded["content"][:2]  # the server tool's two blocks


SERVER_USE = {"toolUseId": "tu_1", "name": "nova_code_interpreter", "type": "server_tool_use"}
RESULT = {
    "toolUseId": "tu_1",
    "type": "nova_code_interpreter_result",
    "status": "error",
    "content": [{"json": {"exitCode": 1, "isError": True, "stdErr": "boom", "stdOut": ""}}],
}


async def test_a_streamed_server_call_is_gathered_whole():
    body = START + frame(
        "contentBlockStart", {"contentBlockIndex": 0, "start": {"toolUse": SERVER_USE}}
    )
    body += delta(0, toolUse={"input": '{"snippet": "1/'}) + delta(0, toolUse={"input": '0"}'})
    body += frame("contentBlockStop", {"contentBlockIndex": 0})
    body += frame("contentBlockStart", {"contentBlockIndex": 1, "start": {"toolResult": RESULT}})
    body += frame("contentBlockStop", {"contentBlockIndex": 1})
    body += delta(2, text="Division by zero.") + frame("contentBlockStop", {"contentBlockIndex": 2})
    events, message, _ = await run(body + end())
    call, result, text = message.content
    assert isinstance(call, ServerToolCall) and call.arguments == {"snippet": "1/0"}
    assert call.raw == {"toolUse": {**SERVER_USE, "input": {"snippet": "1/0"}}}
    assert isinstance(result, ServerToolResult) and result.error == "error"
    assert result.raw == {"toolResult": RESULT}
    assert [e.type for e in events[1:3]] == ["servertool_call", "servertool_result"]
    assert message.stop_reason == "stop" and text.type == "text"


async def test_a_server_call_whose_input_is_not_json_is_an_error_with_the_content_kept():
    body = (
        START + delta(0, text="Running it.") + frame("contentBlockStop", {"contentBlockIndex": 0})
    )
    body += frame("contentBlockStart", {"contentBlockIndex": 1, "start": {"toolUse": SERVER_USE}})
    body += delta(1, toolUse={"input": '{"snippet": '}) + frame(
        "contentBlockStop", {"contentBlockIndex": 1}
    )
    _, message, _ = await run(body + end())
    assert message.stop_reason == "error"
    assert "server tool call's input is not a JSON object" in (message.error_message or "")
    assert [b.type for b in message.content] == ["text"]
