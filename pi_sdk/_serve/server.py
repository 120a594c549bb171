"""proxy_app: the server side of pi's proxy and ``pi-messages`` protocols, an ASGI app on Starlette.

Two protocols, one server; each takes ``{"model", "context", "options"}``, calls the model with
the server's keys, and streams the call's events as server-sent events
(:mod:`pi_sdk._serve.wire`):

* ``POST /api/stream``: pi-agent-core's proxy (:func:`pi_sdk.agent.stream_proxy`, pi's
  ``streamProxy`` 0.73 and 1.6): the model as an object, events in the proxy shape, refusals
  as ``{"error": "<text>"}`` (which pi's client shows as ``Proxy error: <text>``);
* ``POST /messages`` (and ``/v1/messages``): pi-ai 1.6's ``pi-messages`` API (pi's Radius
  gateway protocol; a pi 1.6 app with a ``"api": "pi-messages"`` provider whose base URL is
  this server): the model as ``"<provider>/<id>"``, events in the ``PiMessagesEvent`` shape,
  refusals as ``{"error": {"message", "code"}}`` (pi shows ``<status> <reason>: <message>
  (<code>)``).

In order, a request is refused:

* 401 without ``Authorization: Bearer <token>`` (checked before the body is read);
* 413 for a body over the size limit, 408 for one that does not arrive whole in time;
* 400 for a body that is not strict JSON or not the request's shape, a context without
  messages, an unknown model, or a bad option; 403 for a model outside the allow-list
  (:mod:`pi_sdk._serve.request`).

Every request ends with one line on the ``pi_sdk.serve`` logger saying how it really ended
(:mod:`pi_sdk._serve.outcome_log`): a vendor's 429 inside a started stream is logged as that
error, not as the 200 the response started with.

With ``ProxyPolicy.cors_origins``, pages of those origins may call it from a browser (CORS).

With a :class:`~pi_sdk._serve.usage_store.UsageStore`, every call counts against its key
(``ProxyPolicy.keys``): over the store's rate limit it is refused with 429 and ``Retry-After``
(after the token check, before the body is read), and its usage is added when it ends;
``GET /api/usage`` answers a key its own counters (:mod:`pi_sdk._serve.usage_routes`).

Once the stream has begun (200), every failure is a proxy ``error`` event, the vendor's
error text with the server's secrets redacted. A client that disconnects aborts the call
(its :class:`~pi_sdk.AbortSignal`): the vendor request is closed at once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_sdk._serve.frames import FrameWriter
from pi_sdk._serve.outcome_log import log_outcome, log_refusal
from pi_sdk._serve.policy import ProxyPolicy
from pi_sdk._serve.request import Refused, parse_pi_messages_request, parse_request, read_body
from pi_sdk._serve.usage_routes import UsageEndpoint, rate_limited
from pi_sdk._serve.usage_store import UsageStore
from pi_sdk._serve.wire import delta_frame, pi_messages_event_to_dict, proxy_event_to_dict
from pi_sdk._wire.abort import AbortController
from pi_sdk._wire.agent_types import AgentStreamFn, AssistantStream
from pi_sdk._wire.redact import redact_text
from pi_sdk.errors import ConfigurationError
from pi_sdk.events import AssistantMessageEvent, DoneEvent, ErrorEvent
from pi_sdk.options import StreamOptions
from pi_sdk.types import AssistantMessage, Context, Model, Usage

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.middleware import Middleware

__all__ = ["proxy_app"]

_SSE_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


def proxy_app(
    policy: ProxyPolicy,
    *,
    stream_fn: AgentStreamFn | None = None,
    usage: UsageStore | None = None,
) -> Starlette:
    """Return the server: a Starlette app serving ``POST /api/stream`` and ``POST /messages``.

    Run it with any ASGI server (``uvicorn.run(proxy_app(policy))``, or ``pi-sdk serve``), or
    mount it in an application. Needs the ``serve`` extra (``pi-sdk-core[serve]``).

    Args:
        policy: The token, the model allow-list and the body limit.
        stream_fn: Calls the model, ``stream_fn(model, context, options)``; default
            :func:`pi_sdk.stream` (the registered providers and the server's API keys).
        usage: Per-key rate limit and usage counters, shared by the workers of one host
            (:class:`~pi_sdk._serve.usage_store.UsageStore`); ``None``: neither.

    Returns:
        The ASGI application.

    Raises:
        ConfigurationError: Starlette is not installed (the ``serve`` extra).
    """
    try:
        from starlette.applications import Starlette
        from starlette.middleware import Middleware
        from starlette.middleware.cors import CORSMiddleware
        from starlette.routing import Route
    except ImportError:
        raise ConfigurationError(
            "proxy_app needs Starlette: pip install 'pi-sdk-core[serve]'"
        ) from None

    proxy = _StreamEndpoint(policy, stream_fn, _PROXY, usage)
    messages = _StreamEndpoint(policy, stream_fn, _PI_MESSAGES, usage)
    # The body limit is the endpoint's own (after the token check, with a JSON refusal):
    # Starlette's max_body_size would turn even the 401 of an oversize request into a 413.
    routes = [
        Route("/api/stream", proxy, methods=["POST"]),
        Route("/messages", messages, methods=["POST"]),
        Route("/v1/messages", messages, methods=["POST"]),
    ]
    if usage is not None:
        routes.append(Route("/api/usage", UsageEndpoint(policy, usage), methods=["GET"]))
    middleware: list[Middleware] = []
    if policy.cors_origins:
        cors = Middleware(
            CORSMiddleware,
            allow_origins=policy.cors_origins,
            allow_methods=["POST"],
            allow_headers=["authorization", "content-type"],
        )
        middleware.append(cors)
    return Starlette(routes=routes, middleware=middleware)


@dataclass(frozen=True)
class _Protocol:
    """What differs between the two protocols: the request, the events, the refusals."""

    parse: Callable[[bytes, ProxyPolicy], tuple[Model, Context, StreamOptions]]
    encode: Callable[[AssistantMessageEvent], dict[str, Any]]
    refusal: Callable[[int, str], dict[str, Any]]


def _pi_messages_refusal(status: int, text: str) -> dict[str, Any]:
    return {"error": {"message": text, "code": _CODES.get(status, "invalid_request")}}


_CODES = {
    401: "unauthorized",
    403: "model_not_allowed",
    408: "request_timeout",
    413: "request_too_large",
}
"""The ``code`` of a pi-messages refusal, by status (400: ``invalid_request``)."""

_PROXY = _Protocol(parse_request, proxy_event_to_dict, lambda status, text: {"error": text})
_PI_MESSAGES = _Protocol(parse_pi_messages_request, pi_messages_event_to_dict, _pi_messages_refusal)


class _StreamEndpoint:
    """One route's ASGI endpoint (an object, so Starlette hands it the raw ASGI call)."""

    def __init__(
        self,
        policy: ProxyPolicy,
        stream_fn: AgentStreamFn | None,
        protocol: _Protocol,
        usage: UsageStore | None,
    ) -> None:
        self.policy = policy
        self.stream_fn = stream_fn
        self.protocol = protocol
        self.usage = usage

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.requests import Request
        from starlette.responses import JSONResponse

        request = Request(scope, receive)
        key = self.policy.key_name(request.headers.get("authorization"))
        if key is None:
            reason = "unauthorized: a valid bearer token is required"
            refusal = JSONResponse(
                self.protocol.refusal(401, reason),
                status_code=401,
                headers={"www-authenticate": "Bearer"},
            )
            log_refusal(scope, 401, reason)
            await refusal(scope, receive, send)
            return
        if self.usage is not None and await rate_limited(self.usage, key, scope, receive, send):
            return
        started = asyncio.get_running_loop().time()
        try:
            body = await read_body(request, self.policy)
            model, context, options = self.protocol.parse(body, self.policy)
        except Refused as refused:
            log_refusal(scope, refused.status, str(refused))
            # A body too slow to arrive: close its connection rather than wait for the rest.
            headers = {"connection": "close"} if refused.status == 408 else None
            text = self.protocol.refusal(refused.status, str(refused))
            reply = JSONResponse(text, refused.status, headers=headers)
            await reply(scope, receive, send)
            return
        name = f"{model.provider}/{model.id}"
        final, error = await self._stream(model, context, options, receive, send)
        log_outcome(scope, name, final, error, asyncio.get_running_loop().time() - started)
        if self.usage is not None:
            failed = error is not None or (final is not None and final.stop_reason == "error")
            await self.usage.record(key, final.usage if final else None, error=failed)

    async def _stream(
        self, model: Model, context: Context, options: StreamOptions, receive: Any, send: Any
    ) -> tuple[AssistantMessage | None, str | None]:
        """Stream the call's events; return its final message, or the error sent instead.

        Both are ``None`` when the client disconnected before the call ended.
        """
        controller = AbortController()
        options.signal = controller.signal
        watcher = asyncio.ensure_future(_abort_on_disconnect(receive, controller))
        out = _Sender(send)
        await out.send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS})
        frames = FrameWriter(out.send)
        keepalive_ms = self.policy.keepalive_ms
        pinger = (
            asyncio.ensure_future(out.keep_alive(keepalive_ms / 1000)) if keepalive_ms else None
        )
        stream: AssistantStream | None = None
        final: AssistantMessage | None = None
        error: str | None = None
        try:
            stream = await _start(self.stream_fn, model, context, options)
            async for event in stream:
                if controller.signal.aborted:
                    break
                frame = delta_frame(event)  # nearly every event: straight to bytes
                if frame is not None:
                    await frames.add(frame)
                    continue
                data = self.protocol.encode(event)
                if isinstance(event, ErrorEvent):
                    data["errorMessage"] = self._redact(data.get("errorMessage", ""))
                    final = event.error.model_copy(update={"error_message": data["errorMessage"]})
                elif isinstance(event, DoneEvent):
                    final = event.message
                await frames.add(_frame(data))
            await frames.drain()
        except Exception as exc:  # a stream function that raised instead of ending in `error`
            error = self._redact(str(exc) or type(exc).__name__)
            if not controller.signal.aborted:
                await frames.add(_frame(_error_event(error)))
                await frames.drain()
        finally:
            controller.abort("the client disconnected")  # no-op once the call has ended
            watcher.cancel()
            if pinger is not None:
                pinger.cancel()
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()
        await out.send({"type": "http.response.body", "body": b"", "more_body": False})
        return final, error  # both None: the client left before the end

    def _redact(self, text: str) -> str:
        return redact_text(text, [self.policy.token])


async def _start(
    stream_fn: AgentStreamFn | None, model: Model, context: Context, options: StreamOptions
) -> AssistantStream:
    if stream_fn is None:
        from pi_sdk._models.calls import stream

        return stream(model, context, options)
    result = stream_fn(model, context, options)
    return await result if asyncio.iscoroutine(result) else result  # type: ignore[return-value]


class _Sender:
    """The response's ``send``, one message at a time, with an SSE comment when it is quiet."""

    def __init__(self, send: Callable[[dict[str, Any]], Any]) -> None:
        self._send = send
        self._lock = asyncio.Lock()
        self._last = asyncio.get_running_loop().time()

    async def send(self, message: dict[str, Any]) -> None:
        async with self._lock:
            await self._send(message)
        self._last = asyncio.get_running_loop().time()

    async def keep_alive(self, interval: float) -> None:
        """Send ``: keep-alive`` whenever nothing was sent for ``interval`` seconds.

        Proxies and load balancers close a connection that stays silent (nginx after 60 s);
        a reasoning model may think for minutes before its first token. SSE clients skip
        comment lines (pi's client reads only ``data:`` lines).
        """
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(max(0.0, self._last + interval - loop.time()))
            if loop.time() - self._last >= interval:
                await self.send(_KEEP_ALIVE)


_KEEP_ALIVE = {"type": "http.response.body", "body": b": keep-alive\n\n", "more_body": True}


async def _abort_on_disconnect(receive: Callable[[], Any], controller: AbortController) -> None:
    """Abort the call when the ASGI server reports the client gone (``http.disconnect``)."""
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            controller.abort("the client disconnected")
            return


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
"""``json.dumps(data, ensure_ascii=False, separators=(",", ":"))`` without building an encoder
per call (``dumps`` builds one for any non-default argument: a third of a delta frame's cost)."""


def _frame(data: dict[str, Any]) -> bytes:
    return ("data: " + _ENCODE(data) + "\n\n").encode()


def _error_event(message: str) -> dict[str, Any]:
    usage = Usage().model_dump(mode="json", by_alias=True)
    return {"type": "error", "reason": "error", "errorMessage": message, "usage": usage}
