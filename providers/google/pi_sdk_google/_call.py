"""One call, the same for the Gemini API and Vertex AI: build, send, read, normalize.

The API modules (:mod:`.generative_ai`, :mod:`.vertex`) differ only in how they pick the
client and the URL; both hand over to :func:`run_stream` (pi-spec §4.0 steps 2-3).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, cast

from pi_sdk import (
    AssistantMessageEvent,
    ConfigurationError,
    Context,
    Model,
    ProviderError,
    StartEvent,
    StreamOptions,
    apply_payload_hooks,
    import_vendor,
    iter_sse,
    new_assistant_message,
    signature_origin,
)

from ._shared import build_request
from ._stream import ResponseNormalizer

__all__ = [
    "COMMON_OPTIONS",
    "STREAM_METHOD",
    "check_provider_options",
    "model_path",
    "request_headers",
    "run_stream",
]

STREAM_METHOD = "streamGenerateContent?alt=sse"
COMMON_OPTIONS = frozenset({"tool_choice", "thinking", "timeout_ms"})
"""``provider_options`` keys both Google APIs read."""


def check_provider_options(options: StreamOptions, allowed: frozenset[str], api: str) -> None:
    """Reject ``provider_options`` keys the API does not read, so a typo is not silently lost.

    Raises:
        ConfigurationError: An unknown key; the message lists the known ones.
    """
    unknown = sorted(set(options.provider_options) - allowed)
    if unknown:
        raise ConfigurationError(
            f"unknown provider_options for {api}: {', '.join(unknown)} "
            f"(known: {', '.join(sorted(allowed))})"
        )


class _LineEnding:
    """Notices a body that stops between the CR and LF of a CRLF line ending.

    Gemini ends every SSE line with CRLF. A body that stops right after a CR still ends the
    last event under the SSE rules (a lone CR is a line ending), so that event is dispatched,
    but the server did not finish writing: the cut is reported instead of a clean end.
    """

    def __init__(self) -> None:
        self.crlf = False
        self.cut = False

    async def watch(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        last = b""
        async for chunk in chunks:
            if chunk:
                if not self.crlf:
                    self.crlf = b"\r\n" in chunk or (last.endswith(b"\r") and chunk[:1] == b"\n")
                last = chunk
            yield chunk
        self.cut = self.crlf and last.endswith(b"\r")


def _json_chunks(raw: bytes) -> list[dict[str, Any]]:
    """The response objects of a whole JSON body: one object, or an array of them.

    Raises:
        ProviderError: The body is not JSON, or is neither an object nor an array of objects.
    """
    text = raw.decode("utf-8", errors="replace")
    try:
        document: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProviderError(f"Gemini sent a response that is not JSON: {exc}") from None
    items = cast(list[Any], document) if isinstance(document, list) else [document]
    if not all(isinstance(item, dict) for item in items):
        raise ProviderError(f"Gemini sent an unexpected JSON response: {text[:200]!r}")
    return cast(list[dict[str, Any]], items)


def model_path(model_id: str) -> str:
    """Return the resource path of a model id: ``models/<id>`` unless it already has a prefix."""
    return model_id if "/" in model_id else f"models/{model_id}"


def request_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    """Return ``model.headers`` merged with ``options.headers`` (the call's win)."""
    headers: dict[str, str] = dict(model.headers or {})
    if options.headers:
        headers.update(options.headers)
    return headers


async def run_stream(
    model: Model,
    context: Context,
    options: StreamOptions,
    connect: Callable[[], tuple[AbstractAsyncContextManager[Any], str, str]],
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one ``streamGenerateContent`` call as pi-sdk events.

    Args:
        model: The model called.
        context: What to send.
        options: Per-call options.
        connect: Returns ``(lease, base URL, full request URL)``: ``lease`` is a context
            manager giving the ``google.genai.Client`` for the call (a cached one from
            :func:`._transport.get_client`, or ``nullcontext(options.client)``); the base URL is
            the part before the model resource and binds the signatures of the reply
            (:func:`pi_sdk.signature_origin`). Configuration errors raised here come before any
            I/O.

    Yields:
        ``start`` once the HTTP response headers are in, then block events, then ``done``. An
        ``application/json`` answer (the server ignored ``alt=sse``: one
        ``GenerateContentResponse`` or an array of them) is read whole and fed to the same
        :class:`ResponseNormalizer`, as a complete reply (no finish reason means ``stop``).

    Raises:
        ProviderError: HTTP, connection and in-stream errors, error-type finish reasons,
            blocked prompts and cut-off streams (the stream wrapper turns them into the terminal
            ``error`` event, keeping partial content).
        ConfigurationError: Missing key/project, bad options or tool schemas.
    """
    from ._transport import prepare, send

    # The first import of the SDK (about 0.6 s) runs in a worker thread, not on the event loop.
    await import_vendor("google.genai")
    await prepare()
    lease, base_url, url = connect()
    async with lease as client:
        payload = build_request(model, context, options, signature_origin(model, base_url))
        payload = await apply_payload_hooks(payload, model, options)
        response = await send(client, url, payload, request_headers(model, options))
        output = new_assistant_message(model, base_url=base_url)
        normalizer = ResponseNormalizer(model, output)
        try:
            yield StartEvent(partial=output)
            if "application/json" in response.content_type:
                # The server ignored alt=sse: one JSON document, a GenerateContentResponse (the
                # generateContent shape) or an array of them (streamGenerateContent without SSE).
                for chunk in _json_chunks(await response.aread()):
                    for item in normalizer.feed(chunk):
                        yield item
                for item in normalizer.finish(streamed=False):
                    yield item
                return
            ending = _LineEnding()
            async for event in iter_sse(ending.watch(response.aiter_bytes())):
                try:
                    chunk = json.loads(event.data)
                except json.JSONDecodeError as exc:
                    raise ProviderError(
                        f"Gemini sent a stream event that is not JSON: {exc}"
                    ) from None
                if isinstance(chunk, dict):
                    for item in normalizer.feed(chunk):  # pyright: ignore[reportUnknownArgumentType]
                        yield item
            if ending.cut:
                raise ProviderError(
                    "the Gemini stream was cut inside a CRLF line ending (incomplete response)"
                )
            for item in normalizer.finish(streamed=True):
                yield item
        finally:
            normalizer.price_usage()  # also on errors, aborts and early exits: usage is kept
            await response.aclose()
