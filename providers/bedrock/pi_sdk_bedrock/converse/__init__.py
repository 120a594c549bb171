"""The ``bedrock-converse-stream`` wire API: Bedrock ConverseStream (and Converse) over httpx2.

The request is :mod:`._request`'s, signed and sent by :mod:`pi_sdk_bedrock._client` (botocore
credentials and SigV4, or a Bedrock API key). The body is read here: binary event-stream frames
(:mod:`._frames`) or, for Converse, one JSON document, mapped by :class:`._decode.Decoder` into
the :class:`~pi_sdk.provider.MessageBuilder`. Behaviour follows pi-mono
``providers/amazon-bedrock.ts`` with the differences in ``docs/providers/bedrock.md``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any
from urllib.parse import unquote, urlsplit

from pi_sdk import provider as kit

from .._client import BedrockClient, client_lease, open_converse
from ._decode import Decoder, map_stop_reason, response_as_events
from ._request import API, build_request, convert_messages, normalize_tool_call_id

__all__ = [
    "API",
    "BedrockClient",
    "build_request",
    "convert_messages",
    "map_stop_reason",
    "normalize_tool_call_id",
    "recognize_request",
    "response_as_events",
    "stream_bedrock_converse",
]

PROVIDER = "amazon-bedrock"


def _streams(model: kit.Model, options: kit.StreamOptions) -> bool:
    """ConverseStream, unless ``provider_options`` or ``model.compat`` has ``"stream": False``."""
    choice = options.provider_options.get("stream", (model.compat or {}).get("stream", True))
    return choice is not False


async def stream_bedrock_converse(
    model: kit.Model, context: kit.Context, options: kit.StreamOptions
) -> AsyncIterator[kit.AssistantMessageEvent]:
    """Call ConverseStream (or Converse) and yield normalized events (``amazon-bedrock``).

    Contract (:data:`pi_sdk.provider.StreamFunction`): ``start`` once the reply's first content
    is decoded (or its ``metadata`` event, for a reply without content), then block events
    (:class:`._decode.Decoder`), then ``done``; failures raise and the core turns them into the
    terminal ``error`` event, partial message kept. A failure before the first content happens
    before ``start``, so the core retries it when it is retryable (``options.max_retries``): a
    connection dropped before or after ``messageStart``, and an exception frame AWS calls
    transient (``throttlingException``, ``serviceUnavailableException``,
    ``internalServerException``, ``modelStreamErrorException``: "retry your request", Bedrock
    API reference, ``ConverseStreamOutput``). Once content was yielded, such a frame ends the
    call in ``error`` with the content kept (a retry would repeat it).

    The reading has the guarantees of :func:`pi_sdk.provider.run_http_stream`, for event-stream
    frames: the ``metadata`` event ends it, a body cut inside a frame or before ``metadata`` is
    an error, usage is priced on every path, and the response is drained (when complete) and
    closed on every path, also when the consumer stops early. A ``/converse`` call
    (``"stream": False`` in ``provider_options`` or ``model.compat``) reads one JSON document.

    Auth: ``options.client`` (a :class:`BedrockClient`), else a Bedrock API key
    (``options.api_key`` / ``AWS_BEARER_TOKEN_BEDROCK``) as a bearer token, else the AWS
    credential chain with SigV4 (:mod:`pi_sdk_bedrock._client`).

    Raises:
        ProviderError: HTTP error, connection failure, exception frame, corrupted or cut stream,
            a guardrail/content-filter/unknown stop reason, no credentials.
        ConfigurationError: bad ``provider_options``, an unsupported image type.
    """
    # httpx2 (and botocore, when signing) is first imported in a worker thread, not on the loop.
    httpx2: Any = await kit.import_vendor("httpx2")
    lease: AbstractAsyncContextManager[Any] = nullcontext(options.client)
    if options.client is None:
        lease = await client_lease(model, options, kit.resolve_api_key(model, options))
    stream = _streams(model, options)
    async with lease as client:
        if not isinstance(client, BedrockClient):
            raise kit.ConfigurationError(
                f"StreamOptions.client for {API} must be a pi_sdk_bedrock.converse.BedrockClient,"
                f" not {type(client).__name__}"
            )
        origin = kit.signature_origin(model, client.base_url)
        payload = build_request(model, context, options, origin=origin)
        payload = await kit.apply_payload_hooks(payload, model, options)
        headers = {**(model.headers or {}), **(options.headers or {})}
        # The transport's per-read limit must not cut a reply the core's limits allow: the
        # longer of the first-byte wait and the idle limit (None when either is unlimited).
        wait_ms, idle_ms = options.timeout_ms, options.idle_timeout_ms
        timeout_s = max(wait_ms, idle_ms) / 1000 if wait_ms and idle_ms else None
        builder = kit.MessageBuilder(model, base_url=client.base_url)
        decoder = Decoder(builder)
        response = await open_converse(
            client, model.id, payload, stream=stream, headers=headers, timeout_s=timeout_s
        )
        body = kit.ResponseBody(
            response.aiter_bytes(),
            transport_errors=(httpx2.TransportError,),
            timeout_errors=(httpx2.TimeoutException,),
        )
        complete = False  # the reply ended as Bedrock ends it: drain, then close
        try:
            await body.start()
            json_body = kit.is_json_response(response)
            if not json_body:
                body.check_content(
                    response.headers.get("content-type"),
                    status=response.status_code,
                    expected="an AWS event stream",
                )
            if json_body:
                yield builder.start()
                for event in decoder.feed_document(b"".join([c async for c in body])):
                    yield event
            else:
                feed = decoder.feed_bytes
                # ``start`` waits for the first content: an exception frame before it (AWS:
                # "retry your request") is raised before the call started, so the core retries.
                first: kit.Events = []
                async for chunk in body:
                    first = feed(chunk)
                    if first or decoder.terminal:
                        break
                yield builder.start()
                for event in first:
                    yield event
                if not decoder.terminal:
                    async for chunk in body:
                        for event in feed(chunk):
                            yield event
                        if decoder.terminal:
                            break  # events after metadata are not merged into the reply
            complete = decoder.terminal
            for event in decoder.finish():
                complete = True
                yield event
        finally:
            builder.price_usage()  # usage is kept, priced, on every path
            try:
                if complete:
                    await body.drain()
            finally:
                await response.aclose()


_GEO_PREFIX = re.compile(r"^(?:us|eu|apac|global|au|jp|ca|us-gov)\.")
"""The prefix of a cross-region inference profile id (``us.amazon.nova-micro-v1:0``)."""


def recognize_request(method: str, uri: str, body: Any) -> kit.Model | None:
    """Return the model that sent a recorded ``POST .../model/<id>/converse[-stream]``, else None.

    Used by ``pi-sdk replay``: the model id comes from the path (percent-decoded), ``base_url``
    is the URI up to ``/model/``; a ``/converse`` request gives ``compat={"stream": False}``
    so the replay makes the same kind of call. Catalog data (prices, limits) is used when the
    id, or the id without a cross-region profile prefix (``us.``, ``eu.``, ...), is a
    registered ``amazon-bedrock`` model.
    """
    del body
    parts = urlsplit(uri)
    path = parts.path
    if method.upper() != "POST" or "/model/" not in path:
        return None
    prefix, _, rest = path.rpartition("/model/")
    model_part, _, action = rest.partition("/")
    if action not in ("converse", "converse-stream") or not model_part:
        return None
    model_id = unquote(model_part)
    base_url = f"{parts.scheme}://{parts.netloc}{prefix}"
    known = kit.recorded_model(
        PROVIDER,
        model_id,
        api=API,
        base_url=base_url,
        aliases=(_GEO_PREFIX.sub("", model_id),),
        reasoning=True,
        input=["text", "image"],
    )
    if action != "converse":
        return known
    return known.model_copy(update={"compat": {**(known.compat or {}), "stream": False}})
