"""The provider contract: what a wire-API implementation hands to pi-sdk (layer L1).

:class:`ApiProvider` bundles an API id with its implementation (pi-mono ``ApiProvider``,
``packages/ai/src/api-registry.ts``), one of two kinds:

* ``call``: a :data:`CallFunction` returning the plan of one HTTP call (:class:`HttpCall`):
  how to lease the client, build the payload, send it and decode the reply. The core runs the
  one read loop over it (:mod:`pi_sdk._stream.read_loop`): every provider on the kit;
* ``stream``: a :data:`StreamFunction`, an async generator of events that reads the reply
  itself (a transport the plan does not fit, a test double); the core checks its events
  against the contract.

It sits below the plugin hookspecs and the registry, which both refer to it; provider authors
import it from :mod:`pi_sdk.provider`.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

from pi_sdk.options import StreamOptions
from pi_sdk.types import Context, Model

if TYPE_CHECKING:  # annotations only: a provider package's import needs none of the read path
    from pi_sdk._stream.builder import MessageBuilder
    from pi_sdk._stream.provider_errors import ProviderError
    from pi_sdk._stream.wire_decoder import Decoder, HttpResponse
    from pi_sdk.events import AssistantMessageEvent

__all__ = [
    "ApiProvider",
    "CallFunction",
    "CountTokensFunction",
    "HttpCall",
    "RequestRecognizer",
    "StreamFunction",
    "TransportErrors",
]

ClientT = TypeVar("ClientT")

TransportErrors: TypeAlias = tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]
"""``(lost connection, timeout)``: a transport's exception types for a connection lost while the
body is read, and those of them that mean "gave up waiting" (for the error text)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class HttpCall(Generic[ClientT]):
    """The plan of one HTTP call of a wire API: what the core's read loop needs (pi-spec §4.0).

    The core runs it once per attempt: it enters :attr:`lease`; builds the payload for the
    :func:`~pi_sdk.provider.signature_origin` of :attr:`base_url`; runs the payload hooks
    (``on_payload`` plugins, then ``StreamOptions.on_payload``); sends it (:attr:`send`); calls
    ``StreamOptions.on_response``; waits for the body's first bytes (a connection dropped before
    them fails before ``start``, and is retried); reads server-sent events (or, for a
    :class:`~pi_sdk.provider.ByteDecoder`, raw chunks; or one ``application/json`` document)
    into :attr:`decoder`; stops at the decoder's terminal event; lets it ``finish``; prices the
    usage; drains a complete body (bounded) so the connection is reused; closes the response and
    exits the lease on every path (end, error, abort, timeout, a consumer that stops early).
    Nothing of this runs before the stream is iterated. pi-mono writes these steps out in each
    provider's stream function (``providers/anthropic.ts``: ``createClient``, ``buildParams``,
    ``onPayload``, the SDK's stream, ``onResponse``, the event loop); here a provider gives the
    parts that are its own and the core runs the steps, once for every wire API.

    Every callable raises :class:`~pi_sdk.provider.ProviderError` for a failure it knows
    (``retryable`` set), or anything else; the core turns it into the call's ``error`` event
    with the partial message kept, and retries a retryable one that came before ``start``.
    """

    lease: AbstractAsyncContextManager[ClientT]
    """The client for the whole call, request and body (``ClientCache.lease(...)``, or
    ``contextlib.nullcontext(options.client)`` for a caller's client); its value goes to
    :attr:`send` and :attr:`base_url`."""
    base_url: str | Callable[[ClientT], str | None] | None = None
    """The base URL actually called, or a function of the leased client giving it (an SDK
    default, a caller's client): it binds the reply's signatures (``signature_origin``) and is
    stamped on the message. ``None`` or empty: ``model.base_url``."""
    build_payload: Callable[[str], dict[str, Any]]
    """``build_payload(origin)``: the vendor payload, for ``origin`` =
    ``signature_origin(model, base_url)`` (signatures minted elsewhere are not sent)."""
    send: Callable[[ClientT, dict[str, Any]], Awaitable[HttpResponse]]
    """``await send(client, payload)``: send the hooked payload; return the response once its
    headers are in, unread. Raise :class:`~pi_sdk.provider.ProviderError` for an HTTP error
    (``ProviderError.from_http``) or a failed connection (``connection_error_from_httpx``)."""
    decoder: Callable[[MessageBuilder], Decoder]
    """``decoder(builder)``: the wire API's decoder (:class:`~pi_sdk.provider.WireDecoder` or
    :class:`~pi_sdk.provider.ByteDecoder`), writing into the call's builder."""
    map_error: Callable[[ProviderError], ProviderError] | None = None
    """Given each :class:`~pi_sdk.provider.ProviderError` the call raises once the plan is made
    (from ``send``, the body, the decoder), the error to report instead, or the same one
    (pi-sdk-azure: Azure's content-filter categories added to its HTTP 400)."""
    errors: TransportErrors | None = None
    """The transport's ``(lost connection, timeout)`` exception types: raised while the body is
    read, they become a retryable ``ProviderError`` (``None``: httpx2's,
    :func:`~pi_sdk._stream.httpx_errors.httpx_transport_errors`)."""
    start_on_content: bool = False
    """``start`` waits for the reply's first decoded content (or its terminal event) instead of
    its first bytes, so that an error the vendor sends in the stream before any content (a
    Bedrock ``throttlingException`` frame: "retry your request") is retried like an HTTP 429.
    Once content came, such an error ends the call with the content kept."""
    stream_kind: str = "an event stream"
    """What the streamed body is, for the error naming a page served instead of it
    (``"the server answered 200 with text/html, not an event stream: ..."``)."""
    resend_payload: Callable[[str], dict[str, Any]] | None = None
    """``resend_payload(origin)``: a lesser form of the request (as :attr:`build_payload`),
    without something the vendor may refuse it for, or ``None`` (nothing to give up). The core
    sends it, hooked, once in place of a request :attr:`send` refused (an error
    :attr:`resend_on` recognizes), never after the reply started; later attempts of the call,
    and later calls of the same ``StreamOptions.session_id`` (remembered for
    :attr:`resend_reason`, at most 10,000 sessions), send it at once. pi-ai 1.6: Anthropic and
    Bedrock send ``strict: "prefer"`` tools non-strict once Claude refused them as over its
    limits (``strict-tool-limits.ts``)."""
    resend_on: Callable[[ProviderError], str | None] | None = None
    """Given the error :attr:`send` raised, the ``type`` of the diagnostic to add to the reply
    when it is the refusal :attr:`resend_payload` answers (``"anthropic_strict_tools_fallback"``),
    else ``None``: the error is the call's. The diagnostic: ``{"type", "timestamp", "error":
    {"message": <the refusal's text>}, "details": {"reason": resend_reason}}``, on the reply
    (or the call's error) of every attempt after the resend."""
    resend_reason: str = "request_refused"
    """What the lesser request gives up, as the diagnostic's ``details.reason`` and the key a
    session is remembered under (``"strict_tool_limits_exceeded"``: one for the Anthropic and
    Bedrock APIs, which run the same Claude limits)."""

    async def request_json(
        self,
        model: Model,
        send: Callable[[ClientT, dict[str, Any]], Awaitable[HttpResponse]],
        fields: tuple[str, ...] | None = None,
    ) -> Any:
        """Send another request of the API with this plan's client and payload; its JSON answer.

        For a wire API's side endpoints that take the call's request (a token count:
        ``ApiProvider.count_tokens``): enters :attr:`lease`, builds the payload as a call would
        (for the :func:`~pi_sdk.provider.signature_origin` of :attr:`base_url`; no payload
        hooks), keeps ``fields`` of it (``None``: all), sends it with ``send(client, body)``
        and reads the whole answer as JSON.

        Raises:
            ProviderError: what ``send`` raises (HTTP, connection).
            ValueError: the answer is not JSON.
        """
        import json

        from pi_sdk._wire.transform import signature_origin

        async with self.lease as client:
            base_url = self.base_url(client) if callable(self.base_url) else self.base_url
            payload = self.build_payload(signature_origin(model, base_url or None))
            if fields is not None:
                payload = {key: payload[key] for key in fields if key in payload}
            response = await send(client, payload)
            try:
                data = b"".join([chunk async for chunk in response.aiter_bytes()])
            finally:
                await response.aclose()
        return json.loads(data)


CallFunction: TypeAlias = Callable[[Model, Context, StreamOptions], Awaitable[HttpCall[Any]]]
"""``await call(model, context, options)``: the :class:`HttpCall` plan of one attempt.

Called on each attempt, before any I/O of it: resolve the key
(:func:`~pi_sdk.provider.resolve_api_key`), check options, pick the client and the URL, and
return the plan. Raise ``ConfigurationError`` (missing key, bad ``provider_options``) or
``ProviderError``: the call ends in its ``error`` event. Import the vendor SDK lazily, here
(:func:`~pi_sdk.provider.import_vendor`).
"""


StreamFunction: TypeAlias = (
    "Callable[[Model, Context, StreamOptions], AsyncIterator[AssistantMessageEvent]]"
)
"""``stream(model, context, options)``: an async generator of events.

Contract: yield ``start`` once the request is accepted (HTTP headers in), then content events,
then one terminal ``done``/``error``. Raise :class:`pi_sdk.provider.ProviderError` (with
``retryable``) for failures, or any exception: the core turns it into the terminal ``error``
event, keeps the partial message, retries retryable failures that happen before ``start``, and
handles aborts by closing the generator. It checks every event (``start`` first, blocks nested
per content index, one terminal event) and ends a violation in an ``error`` event that names it.
Import the vendor SDK lazily, inside the function.
"""


CountTokensFunction: TypeAlias = Callable[[Model, Context, StreamOptions], Awaitable[int]]
"""``await count_tokens(model, context, options)``: the input tokens the vendor counts for the
request ``context`` would make (its counting endpoint: Anthropic ``/v1/messages/count_tokens``,
Gemini ``countTokens``, OpenAI ``/v1/responses/input_tokens``). The same request as a call
(system prompt, messages, tools, thinking), nothing generated. Raise for any failure
(:class:`~pi_sdk.provider.ProviderError`, ``ConfigurationError``): the caller falls back to the
estimate and says why (:func:`pi_sdk.count_tokens`). Resolve the key with
:func:`~pi_sdk.provider.resolve_api_key`, as a call function does.
"""


RequestRecognizer: TypeAlias = Callable[[str, str, Any], "Model | None"]
"""``recognize(method, uri, body) -> Model | None``: ``body`` is the parsed JSON request body
(or ``None``). Return the model (id, ``base_url`` from the URI, api, provider) that sends such a
request, or ``None`` when the request is not this API's."""


@dataclass(frozen=True, kw_only=True)
class ApiProvider:
    """One wire-API implementation (pi-mono ``ApiProvider``): exactly one of ``call``, ``stream``.

    Raises:
        TypeError: both or neither of ``call`` and ``stream`` given; a ``call`` that is a
            generator function (an async generator of events goes in ``stream``).
    """

    api: str
    """API id, e.g. ``"anthropic-messages"``."""
    stream: StreamFunction | None = None
    """An async generator function of the call's events (the plain path)."""
    call: CallFunction | None = None
    """The call function of a wire API on the kit: the core reads the reply (:class:`HttpCall`)."""
    recognize: RequestRecognizer | None = None
    """For ``pi-sdk replay``: given a recorded request, the model that would have sent it."""
    source_id: str | None = None
    """Who registered it (a plugin name); see :func:`pi_sdk.unregister_api_providers`."""
    count_tokens: CountTokensFunction | None = None
    """The vendor's token counting for this API (optional; ``None``: :func:`pi_sdk.count_tokens`
    estimates)."""
    exclusive: bool = False
    """Held by a :class:`~pi_sdk.Provider`: serve only that provider's models (pi-sdk-azure's
    ``openai-completions`` for ``azure-openai``), never another provider's model of this API."""

    def __post_init__(self) -> None:
        if (self.call is None) == (self.stream is None):
            given = "both" if self.call is not None else "neither"
            raise TypeError(
                f"ApiProvider(api={self.api!r}) takes one of call= (a function returning the"
                f" HttpCall plan) or stream= (an async generator function), got {given}"
            )
        target = getattr(self.call, "__func__", self.call)
        if inspect.isasyncgenfunction(target) or inspect.isgeneratorfunction(target):
            raise TypeError(
                f"ApiProvider(api={self.api!r}).call must return the HttpCall plan (`async def"
                " call(model, context, options): return HttpCall(...)`), got the generator"
                f" function {getattr(target, '__qualname__', target)}; a generator of events"
                " goes in stream="
            )

    @property
    def implementation(self) -> CallFunction | StreamFunction:
        """``call`` or ``stream``, whichever is set."""
        implementation = self.call if self.call is not None else self.stream
        assert implementation is not None  # __post_init__
        return implementation
