"""Each wire API's streamed body for a workload, shaped as the vendor sends it.

``body(api, workload)`` returns ``(bytes, content type)``. Shapes: OpenAI Chat Completions
chunks (``chat``; ``azure`` adds Azure's ``prompt_filter_results`` first chunk and
``content_filter_results`` per choice; ``mistral`` adds the random ``p`` padding), Anthropic
Messages events (``messages``), OpenAI Responses events (``responses``), Gemini
``GenerateContentResponse`` chunks (``gemini``: a function call arrives whole, as Gemini sends
it, so its arguments are one event, not 16-byte deltas) and Bedrock ConverseStream event-stream
frames (``bedrock``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from _eventstream import frame
from _memory_transport import DONE, sse_data
from _workloads import Workload

SSE = "text/event-stream"
MODELS = {
    "chat": "gpt-4o-mini",
    "azure": "gpt-4o",
    "mistral": "mistral-large-latest",
    "messages": "claude-sonnet-4-5",
    "responses": "gpt-5-mini",
    "gemini": "gemini-2.5-flash",
    "bedrock": "us.anthropic.claude-sonnet-4-20250514-v1:0",
}


def _named(event: str, payload: dict[str, Any]) -> bytes:
    return f"event: {event}\n".encode() + sse_data(payload)


def _completions(workload: Workload, flavor: str) -> bytes:
    safe = {"filtered": False, "severity": "safe"}
    filters = {"hate": safe, "self_harm": safe, "sexual": safe, "violence": safe}
    extra: dict[str, Any] = {"content_filter_results": {}} if flavor == "azure" else {}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish, **extra}
        data: dict[str, Any] = {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1731368641,
            "model": MODELS[flavor],
            "system_fingerprint": "fp_9b78b61c52",
            "choices": [choice],
        }
        if flavor == "mistral":
            data["p"] = "abcdefghij"[: len(delta) % 9 + 1]
        return sse_data(data)

    out: list[bytes] = []
    if flavor == "azure":
        prompt = [{"prompt_index": 0, "content_filter_results": filters}]
        first = {"choices": [], "created": 0, "id": "", "model": "", "object": ""}
        out.append(sse_data({**first, "prompt_filter_results": prompt}))
    out.append(chunk({"role": "assistant", "content": ""}))
    out += [chunk({"content": piece}) for piece in workload.text]
    for index, call in enumerate(workload.calls):
        function = {"name": call.name, "arguments": ""}
        opening = {"index": index, "id": call.id, "type": "function", "function": function}
        out.append(chunk({"tool_calls": [opening]}))
        for piece in call.pieces():
            fragment: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
            if flavor == "mistral":  # the mistralai SDK requires a name on every entry
                fragment = {"index": index, "function": {"name": call.name, "arguments": piece}}
            out.append(chunk({"tool_calls": [fragment]}))
    out.append(chunk({}, "tool_calls" if workload.calls else "stop"))
    usage = {"prompt_tokens": 20, "completion_tokens": workload.deltas, "total_tokens": 0}
    ending = {"id": "chatcmpl-bench", "model": MODELS[flavor], "choices": [], "usage": usage}
    out.append(sse_data(ending))
    out.append(DONE)
    return b"".join(out)


def _messages(workload: Workload) -> bytes:
    message = {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": MODELS["messages"],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 1},
    }
    out = [_named("message_start", {"type": "message_start", "message": message})]

    def block(index: int, start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        opening = {"type": "content_block_start", "index": index, "content_block": start}
        out.append(_named("content_block_start", opening))
        for delta in deltas:
            event = {"type": "content_block_delta", "index": index, "delta": delta}
            out.append(_named("content_block_delta", event))
        out.append(_named("content_block_stop", {"type": "content_block_stop", "index": index}))

    index = 0
    if workload.text:
        pieces = [{"type": "text_delta", "text": piece} for piece in workload.text]
        block(0, {"type": "text", "text": ""}, pieces)
        index = 1
    for call in workload.calls:
        start = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        pieces = [{"type": "input_json_delta", "partial_json": p} for p in call.pieces()]
        block(index, start, pieces)
        index += 1
    stop = "tool_use" if workload.calls else "end_turn"
    ending = {
        "type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": None},
        "usage": {"output_tokens": workload.deltas},
    }
    out.append(_named("message_delta", ending))
    out.append(_named("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def _responses(workload: Workload) -> bytes:
    numbers = iter(range(10**9))
    out: list[bytes] = []

    def event(kind: str, **fields: Any) -> None:
        out.append(_named(kind, {"type": kind, "sequence_number": next(numbers), **fields}))

    def response(status: str, output: list[Any], **extra: Any) -> dict[str, Any]:
        fixed = {"id": "resp_bench", "object": "response", "created_at": 1}
        return {**fixed, "status": status, "model": MODELS["responses"], "output": output, **extra}

    event("response.created", response=response("in_progress", []))
    items: list[dict[str, Any]] = []
    if workload.text:
        message = {"id": "msg_bench", "type": "message", "role": "assistant", "status": "completed"}
        event("response.output_item.added", output_index=0, item={**message, "content": []})
        at = {"item_id": "msg_bench", "output_index": 0, "content_index": 0}
        part = {"type": "output_text", "text": "", "annotations": []}
        event("response.content_part.added", **at, part=part)
        for piece in workload.text:
            event("response.output_text.delta", **at, delta=piece, logprobs=[])
        text = "".join(workload.text)
        event("response.output_text.done", **at, text=text, logprobs=[])
        done_part = {**part, "text": text}
        event("response.content_part.done", **at, part=done_part)
        items.append({**message, "content": [done_part]})
        event("response.output_item.done", output_index=0, item=items[-1])
    for call in workload.calls:
        index = len(items)
        item_id = f"fc_{call.id}"
        item = {"id": item_id, "type": "function_call", "call_id": call.id, "name": call.name}
        event("response.output_item.added", output_index=index, item={**item, "arguments": ""})
        for piece in call.pieces():
            event(
                "response.function_call_arguments.delta",
                item_id=item_id,
                output_index=index,
                delta=piece,
            )
        event(
            "response.function_call_arguments.done",
            item_id=item_id,
            output_index=index,
            arguments=call.arguments,
        )
        items.append({**item, "arguments": call.arguments, "status": "completed"})
        event("response.output_item.done", output_index=index, item=items[-1])
    usage = {
        "input_tokens": 20,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": workload.deltas,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 20 + workload.deltas,
    }
    event("response.completed", response=response("completed", items, usage=usage))
    return b"".join(out)


def _gemini(workload: Workload) -> bytes:
    def chunk(parts: list[dict[str, Any]], finish: bool = False) -> bytes:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish:
            candidate["finishReason"] = "STOP"
        data = {
            "candidates": [candidate],
            "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": workload.deltas},
            "modelVersion": MODELS["gemini"],
            "responseId": "bench",
        }
        return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\r\n\r\n"

    out = [chunk([{"text": piece}]) for piece in workload.text]
    for call in workload.calls:
        function = {"name": call.name, "args": json.loads(call.arguments)}
        out.append(chunk([{"functionCall": function}]))
    out.append(chunk([{"text": ""}], finish=True))
    return b"".join(out)


def _bedrock(workload: Workload) -> bytes:
    out = [frame("messageStart", {"role": "assistant"})]

    def delta(index: int, **fields: Any) -> bytes:
        # ``p`` is the random-length padding Bedrock adds to every event.
        return frame("contentBlockDelta", {"contentBlockIndex": index, "delta": fields, "p": "ab"})

    index = 0
    if workload.text:
        out += [delta(0, text=piece) for piece in workload.text]
        out.append(frame("contentBlockStop", {"contentBlockIndex": 0}))
        index = 1
    for call in workload.calls:
        start = {"toolUse": {"toolUseId": call.id, "name": call.name}}
        out.append(frame("contentBlockStart", {"contentBlockIndex": index, "start": start}))
        out += [delta(index, toolUse={"input": piece}) for piece in call.pieces()]
        out.append(frame("contentBlockStop", {"contentBlockIndex": index}))
        index += 1
    stop = "tool_use" if workload.calls else "end_turn"
    out.append(frame("messageStop", {"stopReason": stop}))
    usage = {"inputTokens": 20, "outputTokens": workload.deltas, "totalTokens": 0}
    out.append(frame("metadata", {"usage": usage, "metrics": {"latencyMs": 1}}))
    return b"".join(out)


_ENCODERS: dict[str, Callable[[Workload], bytes]] = {
    "chat": lambda w: _completions(w, "chat"),
    "azure": lambda w: _completions(w, "azure"),
    "mistral": lambda w: _completions(w, "mistral"),
    "messages": _messages,
    "responses": _responses,
    "gemini": _gemini,
    "bedrock": _bedrock,
}
APIS = list(_ENCODERS)


def body(api: str, workload: Workload) -> tuple[bytes, str]:
    """The body ``api`` streams for ``workload`` and its content type."""
    kind = "application/vnd.amazon.eventstream" if api == "bedrock" else SSE
    return _ENCODERS[api](workload), kind
