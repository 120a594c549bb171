"""Anthropic Messages streaming: send through the ``anthropic`` SDK, read the raw SSE body.

The SDK provides the client, auth, the request and the typed HTTP errors; the response body is
read here as raw server-sent events (:func:`pi_sdk.iter_sse` + ``json.loads``), a fraction of
the cost of the SDK's typed per-event objects. The SDK is imported lazily, inside
:func:`stream_anthropic_messages`. Request building lives in :mod:`pi_sdk_anthropic.request`.

Behaviour follows pi-mono ``providers/anthropic.ts`` (pi-spec §4.1) with the deviations listed
in ``docs/providers/anthropic.md``. Wire facts: Anthropic's streaming guide
(https://docs.anthropic.com/en/docs/build-with-claude/streaming): event types
``message_start``, ``content_block_start/_delta/_stop``, ``message_delta``, ``message_stop``,
``ping`` and ``error``; new event and block types may be added and must be tolerated. A whole
JSON ``message`` answer (a server that ignored ``"stream": true``) is mapped through the same
code, as the events it would have streamed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import TYPE_CHECKING, Any, cast

from pi_sdk.provider import (
    AssistantMessage,
    AssistantMessageEvent,
    ConfigurationError,
    ConnectionPhase,
    Context,
    DoneEvent,
    Model,
    ProviderError,
    ResponseBody,
    StartEvent,
    StopReason,
    StreamOptions,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingContent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    apply_payload_hooks,
    body_excerpt,
    calculate_cost,
    connection_error,
    http_error_message,
    import_vendor,
    iter_sse,
    malformed_event_error,
    new_assistant_message,
    resolve_api_key,
    signature_origin,
)

from ._client import client_lease
from .request import (
    MESSAGES_PATH,
    REDACTED_THINKING_TEXT,
    build_headers,
    build_request,
    from_claude_code_name,
    is_oauth_token,
)

if TYPE_CHECKING:
    from pi_sdk.provider import IncrementalJsonParser

__all__ = ["map_stop_reason", "message_as_events", "stream_anthropic_messages"]

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "pause_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "toolUse",
    "refusal": "error",
    "sensitive": "error",
}


def map_stop_reason(reason: str) -> StopReason | None:
    """Map an Anthropic ``stop_reason`` to ours; ``None`` for a value this module does not know.

    ``end_turn``/``pause_turn``/``stop_sequence`` -> ``stop``, ``max_tokens`` -> ``length``,
    ``tool_use`` -> ``toolUse``, ``refusal``/``sensitive`` -> ``error`` (pi-mono
    ``mapStopReason``; the caller turns ``None`` into an error, as pi-mono does).
    """
    return _STOP_REASONS.get(reason)


# --- HTTP -------------------------------------------------------------------------------------


def _status_error(exc: Any) -> ProviderError:
    """Turn an ``anthropic.APIStatusError`` into a :class:`pi_sdk.ProviderError`.

    The text is :func:`pi_sdk.http_error_message`'s: ``"<status> <reason>: <error type>:
    <vendor message>"``, or a short excerpt of a body that is not Anthropic's JSON error (a
    proxy's HTML page). Retry classification and ``retry-after`` come from
    :meth:`pi_sdk.ProviderError.from_http`.
    """
    status: int = exc.status_code
    response: Any = exc.response
    error = _dict(_dict(exc.body).get("error"))
    message = error.get("message")
    text = http_error_message(
        status,
        reason=getattr(response, "reason_phrase", None),
        code=error.get("type") if isinstance(message, str) else None,
        message=message if isinstance(message, str) else None,
        body=_response_text(response) if not isinstance(message, str) else None,
    )
    return ProviderError.from_http(status, text, response.headers)


def _response_text(response: Any) -> str:
    """The body of a read error response ('' when it was not read)."""
    try:
        return str(response.text)
    except Exception:  # noqa: BLE001 - httpx2.ResponseNotRead: nothing to show
        return ""


def _connection_error(exc: Any) -> ProviderError:
    """Turn an ``anthropic.APIConnectionError`` (or ``APITimeoutError``) into a retryable error.

    Its cause is the transport's exception: a failed connect, or a connection the server closed
    after the request was sent, before the response (:func:`pi_sdk.connection_error`).
    """
    import httpx2

    cause: BaseException = exc.__cause__ or exc
    phase: ConnectionPhase = (
        "connect" if isinstance(cause, httpx2.ConnectError | httpx2.ConnectTimeout) else "request"
    )
    timed_out = isinstance(cause, httpx2.TimeoutException) or "Timeout" in type(exc).__name__
    return connection_error(cause, phase, timed_out=timed_out)


async def _open_stream(client: Any, payload: dict[str, Any], headers: dict[str, str]) -> Any:
    """Send the request through the SDK and return the raw, unread ``httpx2.Response``.

    ``client.post(..., cast_to=httpx2.Response, stream=True)`` keeps the SDK's auth, default
    headers, request building and status-error mapping, and hands back the response before
    its body is read (``AsyncAPIClient._process_response`` returns it as is for that
    ``cast_to``). The SDK's retries are off for this request (``max_retries=0``).
    """
    import anthropic
    import httpx2

    try:
        response: object = await client.post(
            MESSAGES_PATH,
            cast_to=httpx2.Response,
            body=payload,
            options={"headers": headers, "max_retries": 0},
            stream=True,
            stream_cls=anthropic.AsyncStream[Any],
        )
    except anthropic.APIStatusError as exc:
        raise _status_error(exc) from None
    except anthropic.APIConnectionError as exc:
        raise _connection_error(exc) from None
    if not isinstance(response, httpx2.Response):
        raise TypeError(f"expected an httpx2.Response from the SDK, got {type(response).__name__}")
    return response


# --- stream -----------------------------------------------------------------------------------


class _Open:
    """Per vendor block index: where the block is in ``content`` and its streaming state."""

    __slots__ = ("block", "content_index", "kind", "parser", "start_input")

    def __init__(self, kind: str, content_index: int, block: Any) -> None:
        self.kind = kind
        self.content_index = content_index
        self.block = block
        self.parser: IncrementalJsonParser | None = None
        self.start_input: dict[str, Any] | None = None


def _dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else ``{}`` (absent or ``null`` wire fields)."""
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


_USAGE_FIELDS = (
    ("input_tokens", "input"),
    ("output_tokens", "output"),
    ("cache_read_input_tokens", "cache_read"),
    ("cache_creation_input_tokens", "cache_write"),
)


def _merge_usage(out: AssistantMessage, model: Model, usage: Any, *, only_present: bool) -> None:
    """Copy Anthropic usage into ``out.usage`` and price it.

    ``message_start`` sets every field (missing ones count as 0); ``message_delta`` updates only
    the fields it carries as integers, so a proxy that omits ``input_tokens`` there keeps the
    ``message_start`` value (pi-mono).
    """
    fields = _dict(usage)
    if not fields and only_present:
        return
    target = out.usage
    for wire, name in _USAGE_FIELDS:
        value = fields.get(wire)
        if isinstance(value, int):
            setattr(target, name, value)
        elif not only_present:
            setattr(target, name, 0)
    target.update_total()
    calculate_cost(model, target)


def _stop_error_text(reason: str, details: Any) -> str:
    """The error text for a stop reason that ends in ``error`` (refusal, unknown, ...)."""
    if reason == "refusal":
        text = "The model refused to respond (stop_reason: refusal)"
    elif reason == "sensitive":
        text = "The response was stopped by Anthropic's safety system (stop_reason: sensitive)"
    else:
        text = f"Unhandled stop reason: {reason}"
    fields = _dict(details)
    extra = "; ".join(str(fields[k]) for k in ("category", "explanation") if fields.get(k))
    return f"{text}: {extra}" if extra else text


def _field(data: dict[str, Any], key: str, kind: str) -> Any:
    """``data[key]``; a missing field is a malformed event, named in the error."""
    try:
        return data[key]
    except KeyError:
        raise ProviderError(f"malformed {kind} event: missing {key!r}") from None


def _object(data: dict[str, Any], key: str, kind: str) -> dict[str, Any]:
    value = _field(data, key, kind)
    if not isinstance(value, dict):
        raise ProviderError(f"malformed {kind} event: {key!r} is not an object")
    return cast("dict[str, Any]", value)


def _delta_text(delta: dict[str, Any], key: str) -> str:
    """A string field of a ``content_block_delta``'s ``delta``."""
    value = _field(delta, key, "content_block_delta")
    if not isinstance(value, str):
        raise ProviderError(f"malformed content_block_delta event: delta {key!r} is not a string")
    return value


def _orphan_text(kind: str, index: Any) -> str:
    """The error for a block event whose block is not open: the reply would silently lose it."""
    return (
        f"malformed stream: {kind} for block {index!r}, which is not open (no"
        " content_block_start before it, or already stopped)"
    )


def _error_event_text(data: dict[str, Any]) -> str:
    error = _dict(data.get("error"))
    message = error.get("message")
    if not message:
        return f"stream error event: {json.dumps(data, ensure_ascii=False)[:500]}"
    return f"{error.get('type') or 'error'}: {message}"


# --- response bodies --------------------------------------------------------------------------


async def _sse_events(body: ResponseBody) -> AsyncIterator[dict[str, Any]]:
    """The JSON object of every server-sent event of a streamed body.

    Raises:
        ProviderError: an event is not a JSON object (:func:`pi_sdk.malformed_event_error`:
            which event, why, an excerpt).
    """
    loads = json.loads
    number = 0
    async for sse in iter_sse(body):
        number += 1
        if not sse.data.strip():
            continue  # an empty ``data:`` field (keep-alive from a proxy) carries no event
        try:
            decoded: Any = loads(sse.data)
        except ValueError as exc:
            raise malformed_event_error(
                sse.data, event=sse.event, number=number, error=exc
            ) from None
        if not isinstance(decoded, dict):
            raise malformed_event_error(
                sse.data, event=sse.event, number=number, error=ValueError("not a JSON object")
            )
        yield cast("dict[str, Any]", decoded)


def _event(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


def message_as_events(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Return the stream events a whole Messages API ``message`` object would have come as.

    For a server or proxy that ignored ``"stream": true`` and answered with one JSON document
    (HTTP 200, ``application/json``): the answer then goes through the same mapping as a stream,
    so both give the same message and events. ``message_start`` (usage), then per content block
    ``content_block_start`` / ``_delta`` / ``_stop``: a ``text`` block's text as one
    ``text_delta``; a ``thinking`` block's text as one ``thinking_delta`` and its ``signature``
    as one ``signature_delta``; a ``tool_use`` block's ``input`` as one ``input_json_delta``;
    other blocks (``redacted_thinking``, server tools, unknown types) as they are, with no
    delta. Then ``message_delta`` (``stop_reason``, ``stop_details``, usage) and
    ``message_stop``. Block shapes: the Messages API reference ("Response" of
    ``POST /v1/messages``); event shapes: Anthropic's streaming guide.

    Args:
        message: The decoded JSON body (``{"type": "message", "content": [...], ...}``).
    """
    usage = _dict(message.get("usage"))
    yield _event("message_start", message={**message, "content": [], "stop_reason": None})
    raw_content = message.get("content")
    blocks = cast("list[Any]", raw_content) if isinstance(raw_content, list) else []
    for index, raw_block in enumerate(blocks):
        block = _dict(raw_block)
        kind = block.get("type")
        if kind == "text":
            yield _event("content_block_start", index=index, content_block={**block, "text": ""})
            text = block.get("text")
            if isinstance(text, str) and text:
                delta = {"type": "text_delta", "text": text}
                yield _event("content_block_delta", index=index, delta=delta)
        elif kind == "thinking":
            start: dict[str, Any] = {**block, "thinking": "", "signature": ""}
            yield _event("content_block_start", index=index, content_block=start)
            thinking = block.get("thinking")
            if isinstance(thinking, str) and thinking:
                delta = {"type": "thinking_delta", "thinking": thinking}
                yield _event("content_block_delta", index=index, delta=delta)
            signature = block.get("signature")
            if isinstance(signature, str) and signature:
                delta = {"type": "signature_delta", "signature": signature}
                yield _event("content_block_delta", index=index, delta=delta)
        elif kind == "tool_use":
            start = {**block, "input": {}}
            yield _event("content_block_start", index=index, content_block=start)
            arguments = block.get("input")
            if isinstance(arguments, dict) and arguments:
                piece = json.dumps(arguments, ensure_ascii=False)
                delta = {"type": "input_json_delta", "partial_json": piece}
                yield _event("content_block_delta", index=index, delta=delta)
        else:
            yield _event("content_block_start", index=index, content_block=block)
        yield _event("content_block_stop", index=index)
    delta = {"stop_reason": message.get("stop_reason"), "stop_details": message.get("stop_details")}
    yield _event("message_delta", delta=delta, usage=usage)
    yield _event("message_stop")


async def _json_events(body: ResponseBody) -> AsyncIterator[dict[str, Any]]:
    """The events of a whole JSON answer (:func:`message_as_events`).

    Raises:
        ProviderError: the body is not JSON, is an ``{"type": "error"}`` object, or is not a
            ``message`` object.
    """
    raw = b"".join([chunk async for chunk in body])
    text = raw.decode("utf-8", errors="replace")
    try:
        decoded: Any = json.loads(text)
    except ValueError as exc:
        raise ProviderError(
            f"malformed JSON response: {exc}; body: {body_excerpt(text)!r}"
        ) from None
    document = _dict(decoded)
    if document.get("type") == "error":
        raise ProviderError(_error_event_text(document))
    if document.get("type") != "message" or not isinstance(document.get("content"), list):
        raise ProviderError(f"unexpected JSON response (not a message): {body_excerpt(text)!r}")
    for data in message_as_events(document):
        yield data


async def stream_anthropic_messages(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Call the Messages API and yield normalized events (the ``anthropic-messages`` provider).

    Contract (:data:`pi_sdk.StreamFunction`): ``start`` once the body's first bytes are in,
    then block events, then ``done``; failures raise (:class:`pi_sdk.ProviderError` for HTTP errors,
    with ``status``, ``retryable`` and ``retry_after_ms``) and the core turns them into the
    terminal ``error`` event with the partial message kept.

    Stream mapping (pi-spec §4.1):

    * ``text`` -> text block; ``thinking`` -> thinking block whose ``thinking_signature``
      collects the ``signature_delta`` events (which emit no event);
    * ``redacted_thinking`` -> a thinking block reading ``[Reasoning redacted]`` (also sent as
      its one delta) with ``redacted=True`` and the opaque ``data`` as ``thinking_signature``;
    * ``tool_use`` -> tool call; ``input_json_delta`` fragments feed an
      :class:`pi_sdk.IncrementalJsonParser` whose live dict *is* ``block.arguments``; with no
      fragment at all, the block-start ``input`` is kept;
    * server-side blocks (``server_tool_use``, ``web_search_tool_result``, ...) and any other
      unknown block type stay out of ``content``, with their deltas; unknown event and delta
      types are ignored (Anthropic may add them);
    * usage from ``message_start``, then the non-null fields of ``message_delta``; cost from
      the model's prices;
    * ``refusal``, ``sensitive`` and unknown stop reasons, an in-stream ``error`` event, and a
      body that ends before ``message_stop`` raise :class:`pi_sdk.ProviderError`;
    * an ``application/json`` answer (a server or proxy that ignored ``"stream": true``) is
      read whole and turned into the events it would have streamed
      (:func:`message_as_events`), so it follows the same mapping.

    Raises:
        ProviderError: HTTP error, connection failure, in-stream error, refused or cut stream.
        ConfigurationError: no API key and no ``options.client``; bad ``provider_options``.
    """
    from pi_sdk.provider import IncrementalJsonParser

    # The first import of the SDK (about 1.2 s) runs in a worker thread, not on the event loop.
    await import_vendor("anthropic")
    api_key = resolve_api_key(model, options)
    client: Any = options.client
    lease: AbstractAsyncContextManager[Any] = nullcontext(client)
    if client is None:
        if not api_key:
            raise ConfigurationError(
                f"No API key for provider {model.provider!r}: set ANTHROPIC_API_KEY (or "
                "ANTHROPIC_OAUTH_TOKEN), pass StreamOptions(api_key=...) or options.client"
            )
        bearer = is_oauth_token(api_key) or model.provider == "github-copilot"
        lease = await client_lease(model, api_key, bearer=bearer)
    oauth = is_oauth_token(api_key) and model.provider != "github-copilot"
    import httpx2

    response: Any = None
    body: ResponseBody | None = None
    finished = False
    async with lease as client:
        try:
            # Signatures are tied to the URL actually called: the client's (a caller's client,
            # or the SDK default / ANTHROPIC_BASE_URL when model.base_url is empty).
            base_url = str(getattr(client, "base_url", "") or "") or None
            origin = signature_origin(model, base_url)
            payload = build_request(model, context, options, oauth=oauth, origin=origin)
            payload = await apply_payload_hooks(payload, model, options)
            headers = build_headers(model, options, api_key)
            response = await _open_stream(client, payload, headers)
            body = ResponseBody(
                response.aiter_bytes(),
                transport_errors=(httpx2.TransportError,),
                timeout_errors=(httpx2.TimeoutException,),
            )
            # The reply has begun once its first bytes are in: a connection dropped before
            # them fails here, before start, and is retried.
            await body.start()

            out = new_assistant_message(model, base_url=base_url)
            content = out.content
            yield StartEvent(partial=out)

            blocks: dict[int, _Open] = {}
            ignored: set[Any] = set()  # indices of blocks kept out of content
            vendor_stop: str | None = None
            stop_details: Any = None
            content_type: str = response.headers.get("content-type", "")
            whole = "application/json" in content_type.lower()
            source = _json_events(body) if whole else _sse_events(body)
            async for data in source:
                kind = data.get("type")
                if kind == "content_block_delta":
                    index = _field(data, "index", kind)
                    state = blocks.get(index)
                    if state is None:
                        if index in ignored:
                            continue  # a delta of a block kept out of content (server tools)
                        raise ProviderError(_orphan_text(kind, index))
                    delta = _object(data, "delta", kind)
                    delta_type = delta.get("type")
                    ci = state.content_index
                    if delta_type == "text_delta" and state.kind == "text":
                        piece = _delta_text(delta, "text")
                        state.block.append(piece)
                        yield TextDeltaEvent(content_index=ci, delta=piece, partial=out)
                    elif delta_type == "input_json_delta" and state.kind == "tool":
                        piece = _delta_text(delta, "partial_json")
                        assert state.parser is not None
                        state.parser.feed(piece)
                        yield ToolCallDeltaEvent(content_index=ci, delta=piece, partial=out)
                    elif delta_type == "thinking_delta" and state.kind == "thinking":
                        piece = _delta_text(delta, "thinking")
                        state.block.append(piece)
                        yield ThinkingDeltaEvent(content_index=ci, delta=piece, partial=out)
                    elif delta_type == "signature_delta" and state.kind == "thinking":
                        signature = _delta_text(delta, "signature")
                        state.block.thinking_signature = (
                            state.block.thinking_signature or ""
                        ) + signature
                    elif delta_type in ("text_delta", "input_json_delta", "thinking_delta"):
                        raise ProviderError(
                            f"stream protocol error: {delta_type} for a {state.kind} block"
                        )
                    # Other delta types (citations_delta, ...) carry no pi content.
                elif kind == "content_block_start":
                    index = _field(data, "index", kind)
                    if index in blocks:
                        raise ProviderError(
                            f"malformed stream: content_block_start for block {index!r}, which is"
                            " already open"
                        )
                    vendor_block = _object(data, "content_block", kind)
                    block_type = vendor_block.get("type")
                    ci = len(content)
                    if block_type == "text":
                        text = TextContent(text="")
                        content.append(text)
                        blocks[index] = _Open("text", ci, text)
                        yield TextStartEvent(content_index=ci, partial=out)
                        initial: str = vendor_block.get("text") or ""
                        if initial:
                            text.text = initial
                            yield TextDeltaEvent(content_index=ci, delta=initial, partial=out)
                    elif block_type == "thinking":
                        thinking = ThinkingContent(
                            thinking_signature=vendor_block.get("signature") or None
                        )
                        content.append(thinking)
                        blocks[index] = _Open("thinking", ci, thinking)
                        yield ThinkingStartEvent(content_index=ci, partial=out)
                        initial = vendor_block.get("thinking") or ""
                        if initial:
                            thinking.thinking = initial
                            yield ThinkingDeltaEvent(content_index=ci, delta=initial, partial=out)
                    elif block_type == "redacted_thinking":
                        thinking = ThinkingContent(
                            thinking=REDACTED_THINKING_TEXT,
                            thinking_signature=vendor_block.get("data") or "",
                            redacted=True,
                        )
                        content.append(thinking)
                        blocks[index] = _Open("thinking", ci, thinking)
                        yield ThinkingStartEvent(content_index=ci, partial=out)
                        yield ThinkingDeltaEvent(
                            content_index=ci, delta=REDACTED_THINKING_TEXT, partial=out
                        )
                    elif block_type == "tool_use":
                        name: str = vendor_block.get("name") or ""
                        call = ToolCall(
                            id=vendor_block.get("id") or "",
                            name=from_claude_code_name(name, context) if oauth else name,
                        )
                        state = _Open("tool", ci, call)
                        state.parser = IncrementalJsonParser()
                        state.start_input = _dict(vendor_block.get("input"))
                        call.arguments = state.parser.value
                        content.append(call)
                        blocks[index] = state
                        yield ToolCallStartEvent(content_index=ci, partial=out)
                    else:  # server-side or unknown: not pi content, nor are its deltas
                        ignored.add(index)
                elif kind == "content_block_stop":
                    index = _field(data, "index", kind)
                    state = blocks.pop(index, None)
                    if state is None:
                        if index in ignored:
                            continue
                        raise ProviderError(_orphan_text(kind, index))
                    ci = state.content_index
                    if state.kind == "text":
                        yield TextEndEvent(content_index=ci, content=state.block.text, partial=out)
                    elif state.kind == "thinking":
                        yield ThinkingEndEvent(
                            content_index=ci, content=state.block.thinking, partial=out
                        )
                    else:
                        parser = state.parser
                        assert parser is not None
                        parser.finish()  # value becomes the full parse, or keeps the best partial
                        if not parser.raw.strip() and state.start_input:
                            state.block.arguments = state.start_input
                        yield ToolCallEndEvent(content_index=ci, tool_call=state.block, partial=out)
                elif kind == "message_start":
                    usage = _dict(data.get("message")).get("usage")
                    _merge_usage(out, model, usage, only_present=False)
                elif kind == "message_delta":
                    delta = _dict(data.get("delta"))
                    reason = delta.get("stop_reason")
                    if isinstance(reason, str):
                        vendor_stop = reason
                        stop_details = delta.get("stop_details")
                    _merge_usage(out, model, data.get("usage"), only_present=True)
                elif kind == "message_stop":
                    finished = True
                    break
                elif kind == "error":
                    raise ProviderError(_error_event_text(data))
                # ping and event types added later are ignored (Anthropic's versioning policy).

            if not finished:
                raise ProviderError("stream ended before message_stop (connection closed early?)")
            stop: StopReason = "stop"
            if vendor_stop is not None:
                mapped = map_stop_reason(vendor_stop)
                if mapped is None or mapped == "error" or mapped == "aborted":
                    raise ProviderError(_stop_error_text(vendor_stop, stop_details))
                stop = mapped
            if stop == "stop" and any(isinstance(b, ToolCall) for b in content):
                stop = "toolUse"  # a reply with tool calls that ended normally (conformance rule)
            out.stop_reason = stop
            yield DoneEvent(reason=stop, message=out)
        finally:
            if response is not None:
                try:
                    if (
                        finished and body is not None
                    ):  # complete: the connection goes back to the pool
                        await body.drain()
                finally:
                    await response.aclose()
