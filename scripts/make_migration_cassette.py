"""Write tests/cassettes/test_migration/migration_session.yaml: a cross-provider migration.

The conversation is ``tests/_support/migration.py``, run through the real Agent and the real
provider adapters. Only the vendors are scripted: this script answers each request with a
response written here in that vendor's streaming wire format (Anthropic Messages SSE, OpenAI
Responses SSE, Gemini ``streamGenerateContent?alt=sse``, OpenAI Chat Completions chunks as
DeepSeek sends them), following the vendors' documented event shapes. Ids, signatures and
encrypted reasoning are deterministic stand-ins (base64 of hashed bytes), not real ones. Requests
are recorded as the adapters sent them, through pi-sdk's own recorder
(:func:`pi_sdk.testing._cassette.open_cassette`, which scrubs keys), so the replay test can check
every request body the adapters send after conversion against this recording.

How the responses are served: before vcrpy is imported, ``httpx2.AsyncHTTPTransport``'s request
method is replaced by :func:`_scripted_vendor`; vcrpy then treats it as the "real" transport and
records what it returns. No socket is opened.

Run after a deliberate change to what the adapters send:
``uv run python scripts/make_migration_cassette.py``, then review the diff.
"""

# pyright: basic
# (imports the test scenario through sys.path, which pyright cannot follow)

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def _b64(label: str, size: int) -> str:
    raw = b"".join(hashlib.sha256(f"{label}:{i}".encode()).digest() for i in range(size // 32 + 1))
    return base64.b64encode(raw[:size]).decode()


def _sse(events: list[tuple[str | None, dict[str, Any]]]) -> bytes:
    lines: list[str] = []
    for name, data in events:
        if name:
            lines.append(f"event: {name}")
        lines.append("data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")))
        lines.append("")
    return ("\n".join(lines) + "\n").encode("utf-8")


# --- Anthropic Messages -------------------------------------------------------------------------

ANTHROPIC_MODEL = "claude-sonnet-4-5-20250929"
ANTHROPIC_SIGNATURE = _b64("anthropic-thinking-signature", 240)


def _anthropic(
    message_id: str, blocks: list[dict[str, Any]], stop: str, usage: tuple[int, int]
) -> bytes:
    events: list[tuple[str | None, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": ANTHROPIC_MODEL,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": usage[0],
                        "cache_creation_input_tokens": 0,
                        "cache_read_input_tokens": 0,
                        "output_tokens": 2,
                    },
                },
            },
        ),
        ("ping", {"type": "ping"}),
    ]
    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": p} for p in block["parts"]]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "text":
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in block["parts"]]
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in block["parts"]]
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        for delta in deltas:
            events.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": usage[1]},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return _sse(events)


ANTHROPIC_1 = _anthropic(
    "msg_01MigrationParisA",
    [
        {
            "type": "thinking",
            "parts": [
                "The user asks for the current weather in Paris.",
                " I have get_weather(city); call it with Paris.",
            ],
            "signature": ANTHROPIC_SIGNATURE,
        },
        {"type": "text", "parts": ["Let me check ", "Paris for you."]},
        {
            "type": "tool_use",
            "id": "toolu_01MigParis4hKq9xWz",
            "name": "get_weather",
            "parts": ['{"ci', 'ty": "Pa', 'ris"}'],
        },
    ],
    "tool_use",
    (612, 96),
)
ANTHROPIC_2 = _anthropic(
    "msg_01MigrationParisB",
    [{"type": "text", "parts": ["It's 18 °C and sunny ", "in Paris right now. ☀️"]}],
    "end_turn",
    (731, 21),
)

# --- OpenAI Responses ---------------------------------------------------------------------------

RESPONSES_MODEL = "gpt-5-2025-08-07"
RS_ID = "rs_0d1f9e2c3b4a59687786a1b2c3d4e5f60718293a4b5c6d7e"
FC_ID = "fc_0d1f9e2c3b4a59687786a1b2c3d4e5f6071829aa9b8c7d6e"
CALL_ID = "call_M1gR0meW3atherQ7x2Lk9p"
MSG_ID = "msg_0d1f9e2c3b4a59687786a1b2c3d4e5f60718bb1c2d3e4f5a"
ENCRYPTED = "gAAAAAB" + _b64("responses-encrypted-reasoning", 300)


class _Seq:
    def __init__(self) -> None:
        self.n = -1

    def __call__(self, data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        self.n += 1
        return data["type"], {**data, "sequence_number": self.n}


def _response(rid: str, status: str, output: list[Any], usage: Any) -> dict[str, Any]:
    return {
        "id": rid,
        "object": "response",
        "created_at": 1764500000,
        "status": status,
        "model": RESPONSES_MODEL,
        "output": output,
        "parallel_tool_calls": True,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "store": False,
        "usage": usage,
    }


def _responses_usage(
    input_tokens: int, *, cached: int, output: int, reasoning: int
) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": input_tokens + output,
    }


def _responses_1() -> bytes:
    rid = "resp_0d1f9e2c3b4a5968778601"
    seq = _Seq()
    summary = ["**Checking Rome**\n\nThe user wants Rome's weather", "; call get_weather."]
    args = ['{"city"', ':"Ro', 'me"}']
    reasoning_done = {
        "id": RS_ID,
        "type": "reasoning",
        "encrypted_content": ENCRYPTED,
        "summary": [{"type": "summary_text", "text": "".join(summary)}],
    }
    call_done = {
        "id": FC_ID,
        "type": "function_call",
        "status": "completed",
        "arguments": "".join(args),
        "call_id": CALL_ID,
        "name": "get_weather",
    }
    usage = _responses_usage(402, cached=0, output=84, reasoning=64)
    events = [
        seq({"type": "response.created", "response": _response(rid, "in_progress", [], None)}),
        seq({"type": "response.in_progress", "response": _response(rid, "in_progress", [], None)}),
        seq(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**reasoning_done, "summary": []},
            }
        ),
        seq(
            {
                "type": "response.reasoning_summary_part.added",
                "item_id": RS_ID,
                "output_index": 0,
                "summary_index": 0,
                "part": {"type": "summary_text", "text": ""},
            }
        ),
        *[
            seq(
                {
                    "type": "response.reasoning_summary_text.delta",
                    "item_id": RS_ID,
                    "output_index": 0,
                    "summary_index": 0,
                    "delta": piece,
                }
            )
            for piece in summary
        ],
        seq(
            {
                "type": "response.reasoning_summary_text.done",
                "item_id": RS_ID,
                "output_index": 0,
                "summary_index": 0,
                "text": "".join(summary),
            }
        ),
        seq(
            {
                "type": "response.reasoning_summary_part.done",
                "item_id": RS_ID,
                "output_index": 0,
                "summary_index": 0,
                "part": {"type": "summary_text", "text": "".join(summary)},
            }
        ),
        seq({"type": "response.output_item.done", "output_index": 0, "item": reasoning_done}),
        seq(
            {
                "type": "response.output_item.added",
                "output_index": 1,
                "item": {**call_done, "status": "in_progress", "arguments": ""},
            }
        ),
        *[
            seq(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": FC_ID,
                    "output_index": 1,
                    "delta": piece,
                }
            )
            for piece in args
        ],
        seq(
            {
                "type": "response.function_call_arguments.done",
                "item_id": FC_ID,
                "output_index": 1,
                "arguments": "".join(args),
            }
        ),
        seq({"type": "response.output_item.done", "output_index": 1, "item": call_done}),
        seq(
            {
                "type": "response.completed",
                "response": _response(rid, "completed", [reasoning_done, call_done], usage),
            }
        ),
    ]
    return _sse(list(events))


def _responses_2() -> bytes:
    rid = "resp_0d1f9e2c3b4a5968778602"
    seq = _Seq()
    pieces = ["Rome is at 24 °C", " with clear skies."]
    text = "".join(pieces)
    part = {"type": "output_text", "annotations": [], "text": text}
    message = {
        "id": MSG_ID,
        "type": "message",
        "status": "completed",
        "content": [part],
        "phase": "final_answer",
        "role": "assistant",
    }
    usage = _responses_usage(520, cached=384, output=12, reasoning=0)
    common = {"item_id": MSG_ID, "output_index": 0, "content_index": 0}
    events = [
        seq({"type": "response.created", "response": _response(rid, "in_progress", [], None)}),
        seq(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**message, "status": "in_progress", "content": []},
            }
        ),
        seq({"type": "response.content_part.added", **common, "part": {**part, "text": ""}}),
        *[
            seq({"type": "response.output_text.delta", **common, "delta": p, "logprobs": []})
            for p in pieces
        ],
        seq({"type": "response.output_text.done", **common, "text": text, "logprobs": []}),
        seq({"type": "response.content_part.done", **common, "part": part}),
        seq({"type": "response.output_item.done", "output_index": 0, "item": message}),
        seq(
            {
                "type": "response.completed",
                "response": _response(rid, "completed", [message], usage),
            }
        ),
    ]
    return _sse(list(events))


# --- Gemini -------------------------------------------------------------------------------------

GEMINI_SIGNATURE = _b64("gemini-thought-signature", 180)


def _gemini_chunk(
    parts: list[Any], response_id: str, finish: str | None, usage: dict[str, int]
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {
        "candidates": [candidate],
        "usageMetadata": usage,
        "modelVersion": "gemini-2.5-flash",
        "responseId": response_id,
    }


def _gemini_1() -> bytes:
    rid = "mIgR4tIoNgEmInI1"
    usage_1 = {"promptTokenCount": 480, "totalTokenCount": 536, "thoughtsTokenCount": 56}
    usage_2 = {
        "promptTokenCount": 480,
        "candidatesTokenCount": 18,
        "totalTokenCount": 554,
        "thoughtsTokenCount": 56,
    }
    thought = {
        "text": "**Two cities at once**\n\nThe user wants Berlin and Vienna;"
        " call get_weather twice.",
        "thought": True,
    }
    calls = [
        {
            "functionCall": {"name": "get_weather", "args": {"city": "Berlin"}},
            "thoughtSignature": GEMINI_SIGNATURE,
        },
        {"functionCall": {"name": "get_weather", "args": {"city": "Vienna"}}},
    ]
    return _sse(
        [
            (None, _gemini_chunk([thought], rid, None, usage_1)),
            (None, _gemini_chunk(calls, rid, "STOP", usage_2)),
        ]
    )


def _gemini_2() -> bytes:
    rid = "mIgR4tIoNgEmInI2"
    pieces = ["Berlin: 12 °C with light rain.", " Vienna: 15 °C and cloudy."]
    usage = {"promptTokenCount": 590, "candidatesTokenCount": 17, "totalTokenCount": 607}
    return _sse(
        [
            (None, _gemini_chunk([{"text": pieces[0]}], rid, None, usage)),
            (None, _gemini_chunk([{"text": pieces[1]}], rid, "STOP", usage)),
        ]
    )


# --- DeepSeek (OpenAI Chat Completions) ---------------------------------------------------------


def _chat_envelope(cid: str, choices: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": 1764500100,
        "model": "deepseek-reasoner",
        "system_fingerprint": "fp_mig_0001",
        "choices": choices,
    }


def _chat_chunk(cid: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    return _chat_envelope(cid, [choice])


def _chat_usage(cid: str, prompt: int, completion: int, reasoning: int) -> dict[str, Any]:
    return {
        **_chat_envelope(cid, []),
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": reasoning},
        },
    }


def _chat(
    cid: str,
    reasoning: list[str],
    tail: list[dict[str, Any]],
    finish: str,
    usage: tuple[int, int, int],
) -> bytes:
    chunks = [_chat_chunk(cid, {"role": "assistant", "content": None, "reasoning_content": ""})]
    chunks += [_chat_chunk(cid, {"reasoning_content": r}) for r in reasoning]
    chunks += [_chat_chunk(cid, delta) for delta in tail]
    chunks.append(_chat_chunk(cid, {}, finish))
    chunks.append(_chat_usage(cid, *usage))
    body = _sse([(None, c) for c in chunks])
    return body + b"data: [DONE]\n\n"


CHAT_CALL_ID = "call_0_3f6c2a1e-9b8d-4c7e-a5f4-1d2e3b4c5a69"
CHAT_1 = _chat(
    "8c1d2e3f-0000-4a5b-9c6d-migration001",
    ["So far: Paris 18, Rome 24,", " Berlin 12, Vienna 15.", " Lisbon is unknown; call the tool."],
    [
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": CHAT_CALL_ID,
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"city":'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": ' "Lisbon"}'}}]},
    ],
    "tool_calls",
    (690, 61, 38),
)
CHAT_2 = _chat(
    "8c1d2e3f-0000-4a5b-9c6d-migration002",
    ["Lisbon 26 beats Rome 24."],
    [{"content": "Lisbon is warmest"}, {"content": " at 26 °C, then Rome at 24 °C."}],
    "stop",
    (760, 24, 9),
)

# --- serving ------------------------------------------------------------------------------------

SSE_HEADERS = [("content-type", "text/event-stream; charset=utf-8"), ("cache-control", "no-cache")]
SCRIPT: list[tuple[str, bytes, list[tuple[str, str]]]] = [
    ("api.anthropic.com/v1/messages", ANTHROPIC_1, [*SSE_HEADERS, ("request-id", "req_mig_a1")]),
    ("api.anthropic.com/v1/messages", ANTHROPIC_2, [*SSE_HEADERS, ("request-id", "req_mig_a2")]),
    ("api.openai.com/v1/responses", _responses_1(), [*SSE_HEADERS, ("x-request-id", "req_mig_r1")]),
    ("api.openai.com/v1/responses", _responses_2(), [*SSE_HEADERS, ("x-request-id", "req_mig_r2")]),
    (
        "generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent",
        _gemini_1(),
        [("content-type", "text/event-stream")],
    ),
    (
        "generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent",
        _gemini_2(),
        [("content-type", "text/event-stream")],
    ),
    ("api.deepseek.com/chat/completions", CHAT_1, [*SSE_HEADERS, ("x-ds-trace-id", "mig6")]),
    ("api.deepseek.com/chat/completions", CHAT_2, [*SSE_HEADERS, ("x-ds-trace-id", "mig7")]),
]


def _script() -> Iterator[tuple[str, bytes, list[tuple[str, str]]]]:
    yield from SCRIPT


_replies = _script()


async def _scripted_vendor(self: Any, request: httpx2.Request) -> httpx2.Response:
    target, body, headers = next(_replies)
    where = f"{request.url.host}{request.url.path}"
    if where != target:
        raise AssertionError(f"scenario sent {request.method} {where}, script expected {target}")
    return httpx2.Response(200, headers=headers, stream=httpx2.ByteStream(body), request=request)


def _drop_client_fingerprints(request: Any) -> Any:
    """Leave out headers that describe this machine (SDK, OS, Python versions)."""
    for name in list(request.headers):
        lowered = str(name).lower()
        if lowered.startswith("x-stainless-") or lowered in ("user-agent", "x-goog-api-client"):
            del request.headers[name]
    return request


def main() -> None:
    httpx2.AsyncHTTPTransport.handle_async_request = _scripted_vendor
    for variable in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "DEEPSEEK_API_KEY"):
        os.environ[variable] = "generator-fake-key-not-a-secret"

    from migration_scenario import (  # pyright: ignore[reportMissingImports]
        CASSETTE,
        run_migration,
    )

    from pi_sdk.testing._cassette import open_cassette  # after the patch: it imports vcrpy

    with tempfile.TemporaryDirectory() as folder:
        with open_cassette(
            CASSETTE, recording=True, before_record_request=_drop_client_fingerprints
        ) as session:
            asyncio.run(run_migration(Path(folder)))
    leftover = list(_replies)
    if leftover:
        raise SystemExit(
            f"the scenario made {len(SCRIPT) - len(leftover)} of {len(SCRIPT)} requests"
        )
    print(f"wrote {CASSETTE.relative_to(ROOT)} ({len(session.cassette.requests)} interactions)")


if __name__ == "__main__":
    main()
