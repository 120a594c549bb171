"""proxy_app: the server side of pi-agent-core's proxy, as an ASGI app on Starlette.

One route, ``POST /api/stream``, takes what :func:`pi_sdk.agent.stream_proxy` (or pi-mono's
``streamProxy``) sends, ``{"model", "context", "options"}``, calls the model with the server's
keys, and streams the call's events in pi's proxy shape (:mod:`._proxy_wire`) as server-sent
events. In order, a request is refused with a JSON ``{"error": "..."}`` body (the text pi's
client shows as ``Proxy error: ...``):

* 401 without ``Authorization: Bearer <token>`` (checked before the body is read);
* 413 for a body over the size limit (by ``Content-Length``, or counted as it is read);
* 400 for a body that is not the request's JSON, an unknown model, or a bad option;
* 403 for a model outside the allow-list.

With ``ProxyPolicy.cors_origins``, pages of those origins may call it from a browser (CORS).

Once the stream has begun (200), every failure is a proxy ``error`` event, the vendor's
error text with the server's secrets redacted. A client that disconnects aborts the call
(its :class:`~pi_sdk.AbortSignal`): the vendor request is closed at once.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from pi_sdk._serve.policy import ProxyPolicy
from pi_sdk._serve.wire import proxy_event_to_dict
from pi_sdk._wire.abort import AbortController
from pi_sdk._wire.agent_types import AgentStreamFn, AssistantStream
from pi_sdk._wire.redact import redact_text
from pi_sdk.errors import ConfigurationError, PiSdkError
from pi_sdk.options import StreamOptions
from pi_sdk.types import Context, Model, Usage

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.middleware import Middleware

__all__ = ["proxy_app"]

_OPTION_FIELDS = {
    "temperature": "temperature",
    "maxTokens": "max_tokens",
    "reasoning": "reasoning",
    "cacheRetention": "cache_retention",
    "sessionId": "session_id",
    "metadata": "metadata",
    "thinkingBudgets": "thinking_budgets",
    "maxRetryDelayMs": "max_retry_delay_ms",
}
"""The request options the server applies. ``headers`` is ignored (the server builds the vendor
request), as is ``transport``; anything else is refused."""

_IGNORED_OPTIONS = {"headers", "transport"}

_SSE_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def proxy_app(policy: ProxyPolicy, *, stream_fn: AgentStreamFn | None = None) -> Starlette:
    """Return the proxy server: a Starlette app serving ``POST /api/stream``.

    Run it with any ASGI server (``uvicorn.run(proxy_app(policy))``, or ``pi-sdk serve``), or
    mount it in an application. Needs the ``serve`` extra (``pi-sdk-core[serve]``).

    Args:
        policy: The token, the model allow-list and the body limit.
        stream_fn: Calls the model, ``stream_fn(model, context, options)``; default
            :func:`pi_sdk.stream` (the registered providers and the server's API keys).

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

    endpoint = _StreamEndpoint(policy, stream_fn)
    # The body limit is the endpoint's own (after the token check, with a JSON refusal):
    # Starlette's max_body_size would turn even the 401 of an oversize request into a 413.
    route = Route("/api/stream", endpoint, methods=["POST"])
    middleware: list[Middleware] = []
    if policy.cors_origins:
        cors = Middleware(
            CORSMiddleware,
            allow_origins=policy.cors_origins,
            allow_methods=["POST"],
            allow_headers=["authorization", "content-type"],
        )
        middleware.append(cors)
    return Starlette(routes=[route], middleware=middleware)


class _StreamEndpoint:
    """The ``/api/stream`` ASGI endpoint (an object, so Starlette hands it the raw ASGI call)."""

    def __init__(self, policy: ProxyPolicy, stream_fn: AgentStreamFn | None) -> None:
        self.policy = policy
        self.stream_fn = stream_fn

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.requests import Request
        from starlette.responses import JSONResponse

        request = Request(scope, receive)
        if not self.policy.authorized(request.headers.get("authorization")):
            refusal = JSONResponse(
                {"error": "unauthorized: a valid bearer token is required"},
                status_code=401,
                headers={"www-authenticate": "Bearer"},
            )
            await refusal(scope, receive, send)
            return
        body = await _read_body(request, self.policy.max_body_bytes)
        if body is None:
            limit = self.policy.max_body_bytes
            refusal = JSONResponse(
                {"error": f"request body too large: the limit is {limit} bytes"}, status_code=413
            )
            await refusal(scope, receive, send)
            return
        try:
            model, context, options = self._parse(body)
        except _Refused as refused:
            await JSONResponse({"error": str(refused)}, status_code=refused.status)(
                scope, receive, send
            )
            return
        await self._stream(model, context, options, receive, send)

    def _parse(self, body: bytes) -> tuple[Model, Context, StreamOptions]:
        try:
            data: Any = json.loads(body)
        except ValueError:
            raise _Refused(400, "the body is not JSON") from None
        if not isinstance(data, dict):
            raise _Refused(400, "the body must be a JSON object {model, context, options}")
        wire: dict[str, Any] = data  # pyright: ignore[reportUnknownVariableType]
        requested: Any = wire.get("model")
        if not isinstance(requested, dict):
            raise _Refused(400, "model must be an object with provider and id")
        fields = cast("dict[str, Any]", requested)
        provider, model_id = fields.get("provider"), fields.get("id")
        if not isinstance(provider, str) or not isinstance(model_id, str):
            raise _Refused(400, "model must be an object with provider and id")
        if not self.policy.allows(provider, model_id):
            raise _Refused(403, f"model {provider}/{model_id} is not allowed on this proxy")
        try:
            model = self.policy.model(provider, model_id)
        except PiSdkError as exc:
            raise _Refused(400, str(exc)) from None
        try:
            context = Context.model_validate(wire.get("context") or {})
        except ValueError as exc:
            raise _Refused(400, f"invalid context: {_first_error(exc)}") from None
        return model, context, _options(wire.get("options"))

    async def _stream(
        self, model: Model, context: Context, options: StreamOptions, receive: Any, send: Any
    ) -> None:
        controller = AbortController()
        options.signal = controller.signal
        watcher = asyncio.ensure_future(_abort_on_disconnect(receive, controller))
        out = _Sender(send)
        await out.send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS})
        keepalive_ms = self.policy.keepalive_ms
        pinger = (
            asyncio.ensure_future(out.keep_alive(keepalive_ms / 1000)) if keepalive_ms else None
        )
        stream: AssistantStream | None = None
        try:
            stream = await _start(self.stream_fn, model, context, options)
            async for event in stream:
                if controller.signal.aborted:
                    break
                data = proxy_event_to_dict(event)
                if data["type"] == "error":
                    data["errorMessage"] = self._redact(data.get("errorMessage", ""))
                await out.send(_frame(data))
        except Exception as exc:  # a stream function that raised instead of ending in `error`
            if not controller.signal.aborted:
                await out.send(_frame(_error_event(self._redact(str(exc) or type(exc).__name__))))
        finally:
            controller.abort("the client disconnected")  # no-op once the call has ended
            watcher.cancel()
            if pinger is not None:
                pinger.cancel()
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()
        await out.send({"type": "http.response.body", "body": b"", "more_body": False})

    def _redact(self, text: str) -> str:
        return redact_text(text, [self.policy.token])


async def _read_body(request: Any, limit: int) -> bytes | None:
    """The request body, or ``None`` when it is over ``limit`` bytes.

    By ``Content-Length`` before anything is read, or counted while a chunked body is read.
    """
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        return None
    parts: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        parts.append(chunk)
    return b"".join(parts)


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


def _frame(data: dict[str, Any]) -> dict[str, Any]:
    line = "data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n\n"
    return {"type": "http.response.body", "body": line.encode(), "more_body": True}


def _error_event(message: str) -> dict[str, Any]:
    usage = Usage().model_dump(mode="json", by_alias=True)
    return {"type": "error", "reason": "error", "errorMessage": message, "usage": usage}


def _options(raw: Any) -> StreamOptions:
    if raw is None:
        return StreamOptions()
    if not isinstance(raw, dict):
        raise _Refused(400, "options must be an object")
    given: dict[str, Any] = raw  # pyright: ignore[reportUnknownVariableType]
    values: dict[str, Any] = {}
    for key, value in given.items():
        if key in _IGNORED_OPTIONS or value is None:
            continue
        name = _OPTION_FIELDS.get(key)
        if name is None:
            raise _Refused(400, f"unknown option {key!r}")
        values[name] = _checked_option(key, value)
    try:
        return StreamOptions(**values)
    except (TypeError, ValueError) as exc:
        raise _Refused(400, f"invalid options: {exc}") from None


@functools.cache
def _option_adapters() -> dict[str, Any]:
    """Each request option's JSON type, checked strictly.

    A wrong type is refused with 400, not passed on into the vendor request
    (``StreamOptions`` does not check types).
    """
    from typing import Annotated

    from pydantic import Field, TypeAdapter

    from pi_sdk.types import CacheRetention

    types: dict[str, Any] = {
        "temperature": float,
        "maxTokens": Annotated[int, Field(gt=0)],
        "reasoning": str,
        "cacheRetention": CacheRetention,
        "sessionId": str,
        "metadata": dict[str, Any],
        "thinkingBudgets": dict[str, int],
        "maxRetryDelayMs": Annotated[int, Field(ge=0)],
    }
    return {key: TypeAdapter(kind) for key, kind in types.items()}


def _checked_option(key: str, value: Any) -> Any:
    try:
        return _option_adapters()[key].validate_python(value, strict=True)
    except ValueError as exc:
        raise _Refused(400, f"invalid options: {key}: {_first_error(exc)}") from None


def _first_error(exc: ValueError) -> str:
    """The first problem of a validation error, ``"messages.0.content: Field required"``."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where}: {first['msg']}" if where else first["msg"]
    return str(exc)
