"""Write tests/cassettes/test_migration/migration_session.yaml: a cross-provider migration.

The conversation is ``tests/_support/migration.py``, run through the real Agent and the real
provider adapters. Only the vendors are scripted: this script answers each request with a
response written here in that vendor's streaming wire format (Anthropic Messages SSE, OpenAI
Responses SSE, Gemini ``streamGenerateContent?alt=sse``, OpenAI Chat Completions chunks as
DeepSeek sends them, Bedrock ConverseStream binary event-stream frames, Mistral chat chunks with
magistral ``thinking`` chunks and ``p`` padding, Azure OpenAI Responses SSE with Azure's
``content_filters``), following the vendors' documented event shapes. Ids, signatures and
encrypted reasoning are deterministic stand-ins (base64 of hashed bytes), not real ones. Requests
are recorded as the adapters sent them, through pi-sdk's own recorder
(:func:`pi_sdk_pytest.open_cassette`, which scrubs keys), so the replay test can check
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


class _Seq:
    def __init__(self) -> None:
        self.n = -1

    def __call__(self, data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        self.n += 1
        return data["type"], {**data, "sequence_number": self.n}


def _response(
    rid: str, status: str, output: list[Any], usage: Any, model: str, extra: dict[str, Any]
) -> dict[str, Any]:
    return {
        "id": rid,
        "object": "response",
        "created_at": 1764500000,
        "status": status,
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "store": False,
        "usage": usage,
        **extra,
    }


def _usage(prompt: int, cached: int, output: int, reasoning: int) -> dict[str, Any]:
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": prompt + output,
    }


def _responses_call(
    rid: str,
    ids: tuple[str, str, str],
    encrypted: str,
    summary: list[str],
    args: list[str],
    usage: dict[str, Any],
    *,
    model: str = RESPONSES_MODEL,
    completed: dict[str, Any] | None = None,
) -> bytes:
    """A reasoning item (summary + encrypted content), then one ``function_call``.

    ``ids``: the reasoning item's, the function call item's and its ``call_id``; ``completed``:
    extra fields of the final response object (Azure's ``content_filters``).
    """
    rs_id, fc_id, call_id = ids
    seq = _Seq()

    def response(status: str, output: list[Any], usage: Any, extra: dict[str, Any]) -> Any:
        return _response(rid, status, output, usage, model, extra)

    reasoning_done = {
        "id": rs_id,
        "type": "reasoning",
        "encrypted_content": encrypted,
        "summary": [{"type": "summary_text", "text": "".join(summary)}],
    }
    call_done = {
        "id": fc_id,
        "type": "function_call",
        "status": "completed",
        "arguments": "".join(args),
        "call_id": call_id,
        "name": "get_weather",
    }
    summary_at = {"item_id": rs_id, "output_index": 0, "summary_index": 0}
    events = [
        seq({"type": "response.created", "response": response("in_progress", [], None, {})}),
        seq({"type": "response.in_progress", "response": response("in_progress", [], None, {})}),
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
                **summary_at,
                "part": {"type": "summary_text", "text": ""},
            }
        ),
        *[
            seq({"type": "response.reasoning_summary_text.delta", **summary_at, "delta": piece})
            for piece in summary
        ],
        seq(
            {
                "type": "response.reasoning_summary_text.done",
                **summary_at,
                "text": "".join(summary),
            }
        ),
        seq(
            {
                "type": "response.reasoning_summary_part.done",
                **summary_at,
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
                    "item_id": fc_id,
                    "output_index": 1,
                    "delta": piece,
                }
            )
            for piece in args
        ],
        seq(
            {
                "type": "response.function_call_arguments.done",
                "item_id": fc_id,
                "output_index": 1,
                "arguments": "".join(args),
            }
        ),
        seq({"type": "response.output_item.done", "output_index": 1, "item": call_done}),
        seq(
            {
                "type": "response.completed",
                "response": response(
                    "completed", [reasoning_done, call_done], usage, completed or {}
                ),
            }
        ),
    ]
    return _sse(list(events))


def _responses_text(
    rid: str,
    msg_id: str,
    pieces: list[str],
    usage: dict[str, Any],
    *,
    model: str = RESPONSES_MODEL,
    completed: dict[str, Any] | None = None,
) -> bytes:
    """One assistant ``message`` item streamed as ``output_text`` deltas."""
    seq = _Seq()
    text = "".join(pieces)
    part = {"type": "output_text", "annotations": [], "text": text}
    message = {
        "id": msg_id,
        "type": "message",
        "status": "completed",
        "content": [part],
        "phase": "final_answer",
        "role": "assistant",
    }
    common = {"item_id": msg_id, "output_index": 0, "content_index": 0}
    created = _response(rid, "in_progress", [], None, model, {})
    done = _response(rid, "completed", [message], usage, model, completed or {})
    events = [
        seq({"type": "response.created", "response": created}),
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
        seq({"type": "response.completed", "response": done}),
    ]
    return _sse(list(events))


RESPONSES_1 = _responses_call(
    "resp_0d1f9e2c3b4a5968778601",
    (
        "rs_0d1f9e2c3b4a59687786a1b2c3d4e5f60718293a4b5c6d7e",
        "fc_0d1f9e2c3b4a59687786a1b2c3d4e5f6071829aa9b8c7d6e",
        "call_M1gR0meW3atherQ7x2Lk9p",
    ),
    "gAAAAAB" + _b64("responses-encrypted-reasoning", 300),
    ["**Checking Rome**\n\nThe user wants Rome's weather", "; call get_weather."],
    ['{"city"', ':"Ro', 'me"}'],
    _usage(402, 0, 84, 64),
)
RESPONSES_2 = _responses_text(
    "resp_0d1f9e2c3b4a5968778602",
    "msg_0d1f9e2c3b4a59687786a1b2c3d4e5f60718bb1c2d3e4f5a",
    ["Rome is at 24 °C", " with clear skies."],
    _usage(520, 384, 12, 0),
)


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


def _chat_head(cid: str) -> dict[str, Any]:
    """The fields every DeepSeek chunk of reply ``cid`` starts with."""
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": 1764500100,
        "model": "deepseek-reasoner",
        "system_fingerprint": "fp_mig_0001",
    }


def _chat_chunk(cid: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        **_chat_head(cid),
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def _chat_usage(cid: str, prompt: int, completion: int, reasoning: int) -> dict[str, Any]:
    return {
        **_chat_head(cid),
        "choices": [],
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

# --- Amazon Bedrock (ConverseStream, Claude Sonnet 4.5) ----------------------------------------

BEDROCK_SIGNATURE = _b64("bedrock-reasoning-signature", 240)
BEDROCK_TOOL_USE_ID = "tooluse_Mg7dQz2RSe6kVb0yXh1N4w"


def _bedrock(blocks: list[dict[str, Any]], stop: str, usage: tuple[int, int, int]) -> bytes:
    """A ConverseStream body: event-stream frames (``_support.wire.event_frame``).

    ``blocks``: ``reasoning`` (text pieces, then the signature), ``text`` (pieces; neither has
    a ``contentBlockStart``) or ``tool`` (``contentBlockStart.toolUse``, then ``input``
    fragments). ``usage``: input, output and cache-read tokens of ``metadata``.
    """
    from _support.wire import event_frame  # pyright: ignore[reportMissingImports]

    frames = [event_frame("messageStart", {"role": "assistant"})]
    for index, block in enumerate(blocks):
        at = {"contentBlockIndex": index}
        if block["type"] == "tool":
            start = {"toolUse": {"toolUseId": block["id"], "name": block["name"]}}
            frames.append(event_frame("contentBlockStart", {**at, "start": start}))
            deltas = [{"toolUse": {"input": p}} for p in block["parts"]]
        elif block["type"] == "reasoning":
            deltas = [{"reasoningContent": {"text": p}} for p in block["parts"]]
            deltas.append({"reasoningContent": {"signature": block["signature"]}})
        else:
            deltas = [{"text": p} for p in block["parts"]]
        frames += [event_frame("contentBlockDelta", {**at, "delta": d}) for d in deltas]
        frames.append(event_frame("contentBlockStop", at))
    frames.append(event_frame("messageStop", {"stopReason": stop}))
    tokens = {
        "inputTokens": usage[0],
        "outputTokens": usage[1],
        "totalTokens": sum(usage),
        "cacheReadInputTokens": usage[2],
        "cacheWriteInputTokens": 0,
    }
    frames.append(event_frame("metadata", {"usage": tokens, "metrics": {"latencyMs": 812}}))
    return b"".join(frames)


def _bedrock_replies() -> tuple[bytes, bytes]:
    first = _bedrock(
        [
            {
                "type": "reasoning",
                "parts": ["Madrid is new; the others are known.", " Call get_weather."],
                "signature": BEDROCK_SIGNATURE,
            },
            {"type": "text", "parts": ["Checking ", "Madrid."]},
            {
                "type": "tool",
                "id": BEDROCK_TOOL_USE_ID,
                "name": "get_weather",
                "parts": ['{"city": ', '"Madrid"}'],
            },
        ],
        "tool_use",
        (930, 88, 0),
    )
    second = _bedrock(
        [{"type": "text", "parts": ["Madrid is at 22 °C ", "and sunny."]}],
        "end_turn",
        (46, 14, 1012),
    )
    return first, second


# --- Mistral (magistral, chat completions) -------------------------------------------------------

MISTRAL_MODEL = "magistral-medium-2509"
MISTRAL_CALL_IDS = ("Xk3pQ9rTz", "b7Hn2LwQe")


def _mistral_chunk(cid: str, delta: dict[str, Any], **fields: Any) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": fields.pop("finish", None)}
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": 1764500200,
        "model": MISTRAL_MODEL,
        "choices": [choice],
        **fields,
    }


def _mistral(cid: str, deltas: list[dict[str, Any]], finish: str, usage: tuple[int, int]) -> bytes:
    """A Mistral chat stream: ``role`` first, the deltas, then ``finish_reason`` with usage."""
    chunks = [_mistral_chunk(cid, {"role": "assistant", "content": ""})]
    chunks += [_mistral_chunk(cid, d, p="abcdefghij"[: 3 + i % 7]) for i, d in enumerate(deltas)]
    tokens = {
        "prompt_tokens": usage[0],
        "completion_tokens": usage[1],
        "total_tokens": sum(usage),
    }
    chunks.append(_mistral_chunk(cid, {"content": ""}, finish=finish, usage=tokens))
    return _sse([(None, c) for c in chunks]) + b"data: [DONE]\n\n"


def _mistral_replies() -> tuple[bytes, bytes]:
    thinking = ["Oslo and Athens are both new.", " Two get_weather calls."]
    calls = [
        {
            "tool_calls": [
                {
                    "id": call_id,
                    "function": {"name": "get_weather", "arguments": json.dumps({"city": city})},
                    "index": index,
                }
            ]
        }
        for index, (call_id, city) in enumerate(
            zip(MISTRAL_CALL_IDS, ("Oslo", "Athens"), strict=True)
        )
    ]
    first = _mistral(
        "4f2b8c1e9a7d4e3fb6a5c0d1e2f3a4b5",
        [
            {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": t}]}]}
            for t in thinking
        ]
        + calls,
        "tool_calls",
        (1104, 71),
    )
    second = _mistral(
        "9e8d7c6b5a4f4e3d2c1b0a9f8e7d6c5b",
        [{"content": "Oslo: 6 °C, windy."}, {"content": " Athens: 28 °C, hot and sunny."}],
        "stop",
        (1260, 19),
    )
    return first, second


# --- Azure OpenAI Responses (a deployment endpoint) ---------------------------------------------

AZURE_HOST = "pi-mig-eastus2.openai.azure.com"
AZURE_DEPLOYMENT = "gpt5-travel"
AZURE_PATH = f"{AZURE_HOST}/openai/deployments/{AZURE_DEPLOYMENT}/responses"
_SAFE = {"filtered": False, "severity": "safe"}
AZURE_FILTERS = {
    "content_filters": [
        {
            "blocked": False,
            "source_type": source,
            "content_filter_results": {
                "hate": _SAFE,
                "self_harm": _SAFE,
                "sexual": _SAFE,
                "violence": _SAFE,
            },
        }
        for source in ("prompt", "completion")
    ]
}
"""What Azure adds to the final response object: its content-filter verdicts (none blocked)."""


def _azure_replies() -> tuple[bytes, bytes]:
    first = _responses_call(
        rid="resp_0a2e4c6b8d0f1a3c5e7b9d1f00",
        ids=(
            "rs_0a2e4c6b8d0f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d5f",
            "fc_0a2e4c6b8d0f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d60",
            "call_Az9DubL1nW3ath3rQ2mX7kR",
        ),
        encrypted="gAAAAAB" + _b64("azure-encrypted-reasoning", 300),
        summary=["**Coldest so far**\n\nOslo at 6 °C", "; Dublin is unknown, call get_weather."],
        args=['{"city":', ' "Dub', 'lin"}'],
        usage=_usage(1380, 1024, 96, 72),
        completed=AZURE_FILTERS,
    )
    second = _responses_text(
        "resp_0a2e4c6b8d0f1a3c5e7b9d1f01",
        "msg_0a2e4c6b8d0f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d61",
        ["Oslo is coldest at 6 °C;", " Dublin is 9 °C and drizzly."],
        _usage(1502, 1280, 18, 0),
        model=RESPONSES_MODEL,
        completed=AZURE_FILTERS,
    )
    return first, second


# --- serving ------------------------------------------------------------------------------------

SSE_HEADERS = [("content-type", "text/event-stream; charset=utf-8"), ("cache-control", "no-cache")]
SCRIPT: list[tuple[str, bytes, list[tuple[str, str]]]] = [
    ("api.anthropic.com/v1/messages", ANTHROPIC_1, [*SSE_HEADERS, ("request-id", "req_mig_a1")]),
    ("api.anthropic.com/v1/messages", ANTHROPIC_2, [*SSE_HEADERS, ("request-id", "req_mig_a2")]),
    ("api.openai.com/v1/responses", RESPONSES_1, [*SSE_HEADERS, ("x-request-id", "req_mig_r1")]),
    ("api.openai.com/v1/responses", RESPONSES_2, [*SSE_HEADERS, ("x-request-id", "req_mig_r2")]),
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
BEDROCK_PATH = (
    "bedrock-runtime.us-east-1.amazonaws.com"
    "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
)
BEDROCK_HEADERS = [("content-type", "application/vnd.amazon.eventstream")]
SCRIPT += [
    (BEDROCK_PATH, body, [*BEDROCK_HEADERS, ("x-amzn-requestid", f"mig-bedrock-{n}")])
    for n, body in enumerate(_bedrock_replies(), 8)
]
SCRIPT += [
    ("api.mistral.ai/v1/chat/completions", body, [*SSE_HEADERS, ("x-kong-request-id", f"mig{n}")])
    for n, body in enumerate(_mistral_replies(), 10)
]
SCRIPT += [
    (AZURE_PATH, body, [*SSE_HEADERS, ("apim-request-id", f"mig-azure-{n}")])
    for n, body in enumerate(_azure_replies(), 12)
]


def _script() -> Iterator[tuple[str, bytes, list[tuple[str, str]]]]:
    yield from SCRIPT


_replies = _script()


async def _scripted_vendor(self: Any, request: httpx2.Request) -> httpx2.Response:
    target, body, headers = next(_replies)
    where = f"{request.url.host}{request.url.raw_path.decode().partition('?')[0]}"
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
    from _support.migration import (  # pyright: ignore[reportMissingImports]
        CASSETTE,
        ISOLATED_ENV,
        run_migration,
    )

    for variable in ISOLATED_ENV:
        os.environ.pop(variable, None)
    for variable in (
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "GEMINI_API_KEY",
        "DEEPSEEK_API_KEY",
        "AWS_BEARER_TOKEN_BEDROCK",
        "MISTRAL_API_KEY",
        "AZURE_OPENAI_API_KEY",
    ):
        os.environ[variable] = "generator-fake-key-not-a-secret"

    from pi_sdk_pytest import open_cassette  # after the patch: it imports vcrpy

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
