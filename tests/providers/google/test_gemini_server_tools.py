"""Gemini server-tool parts on real recordings (``../shared/conformance-next``, ``servertool_*``).

Every recorded reply gives one block per server-tool part (``future.response.part_kind_order``,
``executable_code``, ``code_execution_results``, Gemini 3 ``server_tool_calls``), and the parts
replayed to the same model are the ones the recorded follow-up sent back (answered 200),
``thoughtSignature`` included.
"""

from __future__ import annotations

import base64
from typing import Any, cast

import pytest
from _support.conformance import (
    Case,
    future_of,
    next_cases,
    replayed,
    reply_before,
)
from pi_sdk_google._shared_request import build_request

from pi_sdk import Context, ServerToolCall, ServerToolResult, StreamOptions, UserMessage

CASES = next_cases("google-generative-ai", "servertool_")
SERVER_PARTS = ("executableCode", "codeExecutionResult", "toolCall", "toolResponse")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_each_server_part_is_a_block(case: Case):
    message, response = await replayed(case)
    blocks = [b for b in message.content if isinstance(b, ServerToolCall | ServerToolResult)]
    kinds = [next(f for f in SERVER_PARTS if f in (b.raw or {})) for b in blocks]
    assert kinds == [k for k in response.get("part_kind_order", []) if k in SERVER_PARTS]
    code = [b for b in blocks if isinstance(b, ServerToolCall) and b.name == "code_execution"]
    assert [(c.id or None, c.arguments["code"]) for c in code] == [
        (w.get("id"), w["code"]) for w in response.get("executable_code", [])
    ]
    results = [
        b for b in blocks if isinstance(b, ServerToolResult) and b.kind == "codeExecutionResult"
    ]
    outputs = [(r.tool_call_id or None, cast(dict[str, Any], r.content)["output"]) for r in results]
    assert outputs == [
        (w.get("id"), w["output"]) for w in response.get("code_execution_results", [])
    ]
    searches = [b for b in blocks if isinstance(b, ServerToolCall) and b.name != "code_execution"]
    assert [(c.id, c.arguments) for c in searches] == [
        (w["id"], w["args"]) for w in response.get("server_tool_calls", [])
    ]


def _bytes(signature: str) -> bytes:
    return base64.urlsafe_b64decode(signature.replace("+", "-").replace("/", "_") + "==")


FOLLOW_UPS = [c for c in CASES if "model_parts_sent_back" in future_of(c)["request"]]


@pytest.mark.parametrize("case", FOLLOW_UPS, ids=[c.id for c in FOLLOW_UPS])
async def test_the_parts_go_back_as_recorded(case: Case):
    reply, model, body = await reply_before(case)
    (recorded,) = [c for c in body["contents"] if c["role"] == "model"]
    prompt = body["contents"][0]["parts"][0]["text"]
    ours = build_request(
        model, Context(messages=[UserMessage(content=prompt), reply]), StreamOptions()
    )
    (sent,) = [c for c in ours["contents"] if c["role"] == "model"]

    def server(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
        # one signature, two spellings: the recording's client sent it base64url-encoded
        return [
            {**p, "thoughtSignature": _bytes(p["thoughtSignature"])}
            if "thoughtSignature" in p
            else p
            for p in parts
            if any(f in p for f in SERVER_PARTS)
        ]

    assert server(recorded["parts"]) and server(sent["parts"]) == server(recorded["parts"])
