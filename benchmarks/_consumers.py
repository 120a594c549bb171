"""The consumers ``benchmarks/run.py`` compares: pi-sdk, the raw vendor SDK, and the floor.

Each factory takes the wire API name and the loopback server's URL and returns a coroutine
function that makes one call and returns the :class:`~_workloads.Output` it assembled (clients are
built once, outside the timed part, and reused, so connections are reused as in an application):

* ``pi-sdk``: ``pi_sdk.stream`` end to end, every event iterated, text and arguments read from
  the final message;
* ``sdk``: the vendor SDK's own stream iteration (typed chunks/events; botocore's event dicts),
  accumulating text and argument fragments by hand;
* ``floor``: an ``httpx2`` stream, a minimal SSE split (``data:`` lines, ``json.loads``) and the
  same accumulation with plain dict access: the least work that gets the answer (Bedrock: the
  event-stream frame reader of pi-sdk-bedrock + ``json.loads``).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
from _wire_bodies import MODELS
from _workloads import Output

import pi_sdk
from pi_sdk import Context, StreamOptions, Tool, UserMessage

Run = Callable[[], Awaitable[Output]]
AZURE_VERSION = "2025-04-01-preview"
AWS = {
    "AWS_ACCESS_KEY_ID": "AKIDBENCH",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_REGION": "us-east-1",
}
TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
}
PROMPT = "bench"


class Calls:
    """Tool calls assembled from fragments, by the key the wire gives them."""

    def __init__(self) -> None:
        self.names: dict[Any, str] = {}
        self.pieces: dict[Any, list[str]] = {}

    def open(self, key: Any, name: str, first: str = "") -> None:
        self.names[key] = name
        self.pieces[key] = [first] if first else []

    def add(self, key: Any, piece: str) -> None:
        self.pieces[key].append(piece)

    def output(self, text: list[str]) -> Output:
        calls = [(self.names[k], json.loads("".join(p) or "{}")) for k, p in self.pieces.items()]
        return Output("".join(text), calls)


# -- pi-sdk ---------------------------------------------------------------------------------------


def pi_model(api: str, url: str) -> pi_sdk.Model:
    """The model pi-sdk calls for ``api``, on the loopback server."""
    if api == "bedrock":
        model = pi_sdk.get_model("amazon-bedrock", MODELS["bedrock"])
        assert model is not None
        return model.model_copy(update={"base_url": url})
    apis = {
        "chat": ("openai-completions", "openai", f"{url}/v1"),
        "azure": ("openai-completions", "azure-openai", f"{url}/openai/deployments/bench"),
        "mistral": ("mistral-conversations", "mistral", url),
        "messages": ("anthropic-messages", "anthropic", url),
        "responses": ("openai-responses", "openai", f"{url}/v1"),
        "gemini": ("google-generative-ai", "google", f"{url}/v1beta"),
    }
    wire, provider, base_url = apis[api]
    return pi_sdk.Model(id=MODELS[api], api=wire, provider=provider, base_url=base_url)


def pi_sdk_consumer(api: str, url: str, client: Any = None) -> Run:
    model = pi_model(api, url)
    tool = Tool(name="write", description="Write a file", parameters=TOOL_SCHEMA)
    context = Context(messages=[UserMessage(content=PROMPT)], tools=[tool])
    options = StreamOptions(api_key="bench-key", max_retries=0, client=client)

    async def run() -> Output:
        stream = pi_sdk.stream(model, context, options)
        async for _ in stream:
            pass
        message = await stream.result()
        assert message.stop_reason in ("stop", "toolUse"), message.error_message
        text = "".join(b.text for b in message.content if b.type == "text")
        calls = [(b.name, b.arguments) for b in message.content if b.type == "toolCall"]
        return Output(text, calls)

    return run


# -- the floor ------------------------------------------------------------------------------------


class _SseSplit:
    """The least SSE parsing that works on these bodies: events split on a blank line."""

    def __init__(self, separator: bytes) -> None:
        self.separator = separator
        self.rest = b""

    def feed(self, chunk: bytes) -> list[Any]:
        events = (self.rest + chunk).split(self.separator)
        self.rest = events.pop()
        loads = json.loads
        out: list[Any] = []
        for event in events:
            start = event.find(b"data: ")
            if start >= 0 and event[start + 6 : start + 12] != b"[DONE]":
                out.append(loads(event[start + 6 :]))
        return out


def _floor_completions(calls: Calls, text: list[str], data: dict[str, Any]) -> None:
    choices = data.get("choices")
    if not choices:
        return
    delta = choices[0]["delta"]
    content = delta.get("content")
    if content:
        text.append(content)
    for entry in delta.get("tool_calls") or ():
        index = entry["index"]
        function = entry["function"]
        if index not in calls.names:
            calls.open(index, function["name"], function.get("arguments") or "")
        else:
            calls.add(index, function["arguments"])


def _floor_messages(calls: Calls, text: list[str], data: dict[str, Any]) -> None:
    kind = data["type"]
    if kind == "content_block_delta":
        delta = data["delta"]
        if delta["type"] == "text_delta":
            text.append(delta["text"])
        elif delta["type"] == "input_json_delta":
            calls.add(data["index"], delta["partial_json"])
    elif kind == "content_block_start" and data["content_block"]["type"] == "tool_use":
        calls.open(data["index"], data["content_block"]["name"])


def _floor_responses(calls: Calls, text: list[str], data: dict[str, Any]) -> None:
    kind = data["type"]
    if kind == "response.output_text.delta":
        text.append(data["delta"])
    elif kind == "response.function_call_arguments.delta":
        calls.add(data["output_index"], data["delta"])
    elif kind == "response.output_item.added" and data["item"]["type"] == "function_call":
        calls.open(data["output_index"], data["item"]["name"])


def _floor_gemini(calls: Calls, text: list[str], data: dict[str, Any]) -> None:
    for part in data["candidates"][0]["content"]["parts"]:
        if "text" in part:
            text.append(part["text"])
        elif "functionCall" in part:
            call = part["functionCall"]
            calls.open(len(calls.names), call["name"], json.dumps(call["args"]))


def _floor_bedrock(calls: Calls, text: list[str], event: str, data: dict[str, Any]) -> None:
    if event == "contentBlockDelta":
        delta = data["delta"]
        if "text" in delta:
            text.append(delta["text"])
        elif "toolUse" in delta:
            calls.add(data["contentBlockIndex"], delta["toolUse"]["input"])
    elif event == "contentBlockStart":
        calls.open(data["contentBlockIndex"], data["start"]["toolUse"]["name"])


_FLOOR = {
    "chat": _floor_completions,
    "azure": _floor_completions,
    "mistral": _floor_completions,
    "messages": _floor_messages,
    "responses": _floor_responses,
    "gemini": _floor_gemini,
}


def floor_consumer(api: str, url: str, client: httpx2.AsyncClient | None = None) -> Run:
    client = client or httpx2.AsyncClient()
    request = {
        "model": MODELS[api],
        "stream": True,
        "messages": [{"role": "user", "content": PROMPT}],
    }
    if api == "bedrock":
        from pi_sdk_bedrock.converse._frames import FrameReader

        async def run_frames() -> Output:
            calls, text = Calls(), []
            reader = FrameReader()
            loads = json.loads
            async with client.stream("POST", f"{url}/model/x/converse-stream", json=request) as r:
                async for chunk in r.aiter_bytes():
                    for frame in reader.feed(chunk):
                        _floor_bedrock(calls, text, frame[1], loads(frame[2]))
            return calls.output(text)

        return run_frames

    accumulate = _FLOOR[api]
    separator = b"\r\n\r\n" if api == "gemini" else b"\n\n"

    async def run() -> Output:
        calls, text = Calls(), []
        split = _SseSplit(separator)
        async with client.stream("POST", f"{url}/stream", json=request) as response:
            async for chunk in response.aiter_bytes():
                for data in split.feed(chunk):
                    accumulate(calls, text, data)
        return calls.output(text)

    return run
