"""Point pi-sdk at any OpenAI-compatible server with a custom model.

Run against a real server (Ollama, LM Studio, llama.cpp, vLLM, a proxy...)::

    OPENAI_COMPAT_BASE_URL=http://localhost:11434/v1 OPENAI_COMPAT_MODEL=llama3.2 \
        uv run python docs/examples/openai_compatible_server.py

Without ``OPENAI_COMPAT_BASE_URL`` it starts a tiny stand-in server on 127.0.0.1 that streams a
canned Chat Completions reply, so the example runs offline with no key.
"""

from __future__ import annotations

import asyncio
import json
import os

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, UserMessage


def custom_model(base_url: str, model_id: str) -> Model:
    """A model served by an OpenAI-compatible server.

    ``api`` picks the adapter (``openai-completions`` for ``/chat/completions``,
    ``openai-responses`` for ``/responses``); ``base_url`` is everything before that path.
    ``compat`` overrides what is auto-detected from the URL (a localhost server already gets
    ``max_tokens``, no ``store`` and no ``developer`` role).
    """
    return Model(
        id=model_id,
        name=model_id,
        api="openai-completions",
        provider="local",  # any name; used for API-key lookup and history rules
        base_url=base_url,
        reasoning=False,
        input=["text"],
        context_window=32_768,
        max_tokens=4_096,
        compat={"supportsStrictMode": False},  # e.g. a server that rejects "strict" in tools
    )


async def main() -> None:
    base_url = os.environ.get("OPENAI_COMPAT_BASE_URL")
    server = None
    if base_url is None:
        server = await start_stand_in_server()
        port = server.sockets[0].getsockname()[1]
        base_url = f"http://127.0.0.1:{port}/v1"
    model = custom_model(base_url, os.environ.get("OPENAI_COMPAT_MODEL", "local-model"))
    pi_sdk.register_model(model)  # optional: makes pi_sdk.get_model("local", ...) find it

    context = Context(messages=[UserMessage(content="Say hello in three words.")])
    # A server that needs a key: StreamOptions(api_key=...). Localhost needs none.
    async with pi_sdk.stream(model, context, StreamOptions(max_tokens=64)) as events:
        async for event in events:
            if event.type == "text_delta":
                print(event.delta, end="", flush=True)
        message = await events.result()
    print(f"\nstop_reason={message.stop_reason} tokens={message.usage.total_tokens}")
    if message.error_message:
        print("error:", message.error_message)
    if server is not None:
        server.close()
        await server.wait_closed()


# --- a stand-in OpenAI-compatible server (only when no real one is configured) ---------------


def _canned_reply() -> bytes:
    def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        data = {"object": "chat.completion.chunk", "model": "stand-in", "choices": [choice]}
        return b"data: " + json.dumps(data).encode() + b"\n\n"

    usage = {"prompt_tokens": 12, "completion_tokens": 4, "total_tokens": 16}
    tail = json.dumps({"object": "chat.completion.chunk", "choices": [], "usage": usage})
    words = ["Hello", " there,", " friend!"]
    body = b"".join(chunk({"content": w}) for w in words) + chunk({}, "stop")
    return body + b"data: " + tail.encode() + b"\n\ndata: [DONE]\n\n"


async def _serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        ),
        0,
    )
    request = json.loads(await reader.readexactly(length))
    assert request["stream"] is True and "max_tokens" in request  # what the adapter sent
    body = _canned_reply()
    writer.write(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        + f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    writer.close()


async def start_stand_in_server() -> asyncio.Server:
    """Serve one canned streamed reply per request on a free port of 127.0.0.1."""
    return await asyncio.start_server(_serve, "127.0.0.1", 0)


if __name__ == "__main__":
    asyncio.run(main())
