"""The ``bedrock-converse-stream`` wire API: Bedrock ConverseStream (and Converse) over httpx2.

The request is :mod:`._request`'s, signed and sent by :mod:`pi_sdk_bedrock._client` (botocore
credentials and SigV4, or a Bedrock API key). The core reads the body
(:class:`pi_sdk.provider.HttpCall`): binary event-stream frames, which :class:`._decode.Decoder`
cuts itself (:mod:`._frames`, a :class:`pi_sdk.provider.ByteDecoder`), or, for Converse, one JSON
document; the decoder maps them into the :class:`~pi_sdk.provider.MessageBuilder`. Behaviour
follows pi-mono ``providers/amazon-bedrock.ts`` with the differences in
``docs/providers/bedrock.md``.
"""

from __future__ import annotations

import re
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any
from urllib.parse import unquote, urlsplit

import pi_sdk
from pi_sdk import provider as kit

from .._client import BedrockClient, client_lease, open_converse
from ._decode import Decoder, map_stop_reason, response_as_events
from ._request import API, build_request, convert_messages, normalize_tool_call_id
from ._tools import STRICT_LIMITS, refused_strict, sends_preferred_strict

__all__ = [
    "API",
    "BedrockClient",
    "build_request",
    "call_bedrock_converse",
    "convert_messages",
    "map_stop_reason",
    "normalize_tool_call_id",
    "recognize_request",
    "response_as_events",
]

PROVIDER = "amazon-bedrock"


def _streams(model: pi_sdk.Model, options: pi_sdk.StreamOptions) -> bool:
    """ConverseStream, unless ``provider_options`` or ``model.compat`` has ``"stream": False``."""
    choice = options.provider_options.get("stream", (model.compat or {}).get("stream", True))
    return choice is not False


async def call_bedrock_converse(
    model: pi_sdk.Model, context: pi_sdk.Context, options: pi_sdk.StreamOptions
) -> kit.HttpCall[BedrockClient]:
    """The plan of one ConverseStream (or Converse) call (the ``bedrock-converse-stream`` call).

    The core reads the reply (:class:`pi_sdk.provider.HttpCall`): ``start`` once the reply's
    first content is decoded (or its ``metadata`` event, for a reply without content:
    ``start_on_content``), then block events (:class:`._decode.Decoder`), then ``done``. A
    failure before the first content happens before ``start``, so the core retries it when it is
    retryable (``options.max_retries``): a connection dropped before or after ``messageStart``,
    and an exception frame AWS calls transient (``throttlingException``,
    ``serviceUnavailableException``, ``internalServerException``,
    ``modelStreamErrorException``: "retry your request", Bedrock API reference,
    ``ConverseStreamOutput``). Once content came, such a frame ends the call in ``error`` with
    the content kept (a retry would repeat it). The ``metadata`` event ends the reply; a body
    cut inside a frame or before ``metadata`` is an error. A ``/converse`` call (``"stream":
    False`` in ``provider_options`` or ``model.compat``) reads one JSON document. A request whose
    ``strict: "prefer"`` tools Bedrock refuses as over Claude's limits (``ValidationException``)
    goes once more with them non-strict (``resend_payload``; the reply gets a
    ``bedrock_strict_tools_fallback`` diagnostic, and later calls of the same
    ``options.session_id`` send them non-strict at once: pi-ai 1.6).

    Auth: ``options.client`` (a :class:`BedrockClient`), else a Bedrock API key
    (``options.api_key`` / ``AWS_BEARER_TOKEN_BEDROCK``) as a bearer token, else the AWS
    credential chain with SigV4 (:mod:`pi_sdk_bedrock._client`).

    Raises:
        ConfigurationError: ``options.client`` is not a :class:`BedrockClient`; bad
            ``provider_options``, an unsupported image type (from the payload builder).
        ProviderError: no credentials.
    """
    # httpx2 (and botocore, when signing) is first imported in a worker thread, not on the loop.
    await kit.import_vendor("httpx2")
    lease: AbstractAsyncContextManager[Any] = nullcontext(options.client)
    if options.client is None:
        lease = await client_lease(model, options, kit.resolve_api_key(model, options))
    elif not isinstance(options.client, BedrockClient):
        raise pi_sdk.ConfigurationError(
            f"StreamOptions.client for {API} must be a pi_sdk_bedrock.converse.BedrockClient,"
            f" not {type(options.client).__name__}"
        )
    stream = _streams(model, options)
    headers = {**(model.headers or {}), **(options.headers or {})}
    # The transport's per-read limit must not cut a reply the core's limits allow: the longer
    # of the first-byte wait and the idle limit (None when either is unlimited).
    wait_ms, idle_ms = options.timeout_ms, options.idle_timeout_ms
    timeout_s = max(wait_ms, idle_ms) / 1000 if wait_ms and idle_ms else None

    async def send(client: BedrockClient, payload: dict[str, Any]) -> Any:
        return await open_converse(
            client, model.id, payload, stream=stream, headers=headers, timeout_s=timeout_s
        )

    def without_prefer_strict(origin: str) -> dict[str, Any]:
        """The request sent again after Claude refused its strict tools (pi-ai 1.6)."""
        return build_request(model, context, options, origin=origin, prefer_strict=False)

    resend = without_prefer_strict if sends_preferred_strict(model, context, options) else None
    return kit.HttpCall(
        lease=lease,
        base_url=lambda client: client.base_url,
        build_payload=lambda origin: build_request(model, context, options, origin=origin),
        send=send,
        decoder=Decoder,
        start_on_content=True,
        stream_kind="an AWS event stream",
        resend_payload=resend,
        resend_on=refused_strict,
        resend_reason=STRICT_LIMITS,
    )


_GEO_PREFIX = re.compile(r"^(?:us|eu|apac|global|au|jp|ca|us-gov)\.")
"""The prefix of a cross-region inference profile id (``us.amazon.nova-micro-v1:0``)."""


def recognize_request(method: str, uri: str, body: Any) -> pi_sdk.Model | None:
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
