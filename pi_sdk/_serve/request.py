"""The proxy's request: its body read within limits, parsed as strict JSON, every field checked.

What :func:`pi_sdk.agent.proxy_app` does with a ``POST /api/stream`` body before any vendor is
called. Each problem is a :class:`Refused` carrying the HTTP status and the text of the JSON
``{"error": ...}`` reply:

* **408** when the body does not arrive whole within ``ProxyPolicy.body_timeout_ms`` (a client
  sending 1 byte a second holds a connection no longer than that);
* **413** for a body over ``ProxyPolicy.max_body_bytes`` (by ``Content-Length``, or counted);
* **400** for a body that is not strict JSON (:mod:`pi_sdk._wire.strict_json`: ``NaN``,
  ``1e999``, nesting deeper than 500 levels are refused, never a ``RecursionError``), not an
  object, without ``model`` ``{provider, id}``, with an unknown or ill-typed option, or without a
  ``context`` holding at least one message (the vendor would be called with an empty
  conversation);
* **403** for a model outside the allow-list; **400** for one the server does not know.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, cast

from pi_sdk._serve.policy import ProxyPolicy
from pi_sdk._wire.strict_json import StrictJsonError, loads_strict
from pi_sdk.errors import PiSdkError
from pi_sdk.options import StreamOptions
from pi_sdk.types import Context, Model

__all__ = ["Refused", "parse_request", "read_body"]

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


class Refused(Exception):
    """A request the proxy refuses: ``status`` and the ``{"error": ...}`` text."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


async def read_body(request: Any, policy: ProxyPolicy) -> bytes:
    """The request body, whole.

    Raises:
        Refused: 413 over ``policy.max_body_bytes`` (by ``Content-Length`` before anything is
            read, or counted while a chunked body is read); 408 when it has not arrived whole
            within ``policy.body_timeout_ms`` (counted from the end of the request's head).
    """
    limit = policy.max_body_bytes
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise Refused(413, f"request body too large: the limit is {limit} bytes")
    parts: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(policy.body_timeout_ms / 1000):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise Refused(413, f"request body too large: the limit is {limit} bytes")
                parts.append(chunk)
    except TimeoutError:
        seconds = policy.body_timeout_ms / 1000
        raise Refused(
            408, f"request body too slow: it did not arrive whole within {seconds:g} s"
        ) from None
    return b"".join(parts)


def parse_request(body: bytes, policy: ProxyPolicy) -> tuple[Model, Context, StreamOptions]:
    """The model, context and options of a request body, checked (module docstring).

    Raises:
        Refused: 400, 403 (see the module docstring).
    """
    try:
        data: Any = loads_strict(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise Refused(400, "the body is not UTF-8 JSON") from None
    except StrictJsonError as exc:
        raise Refused(400, f"the body is not strict JSON: {exc}") from None
    except ValueError:
        raise Refused(400, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise Refused(400, "the body must be a JSON object {model, context, options}")
    wire = cast("dict[str, Any]", data)
    requested: Any = wire.get("model")
    if not isinstance(requested, dict):
        raise Refused(400, "model must be an object with provider and id")
    fields = cast("dict[str, Any]", requested)
    provider, model_id = fields.get("provider"), fields.get("id")
    if not isinstance(provider, str) or not isinstance(model_id, str):
        raise Refused(400, "model must be an object with provider and id")
    if not policy.allows(provider, model_id):
        raise Refused(403, f"model {provider}/{model_id} is not allowed on this proxy")
    try:
        model = policy.model(provider, model_id)
    except PiSdkError as exc:
        raise Refused(400, str(exc)) from None
    options = _options(wire.get("options"))
    return model, _context(wire.get("context")), options


def _context(raw: Any) -> Context:
    if not isinstance(raw, dict):
        given = "missing" if raw is None else f"a JSON {type(raw).__name__}"
        raise Refused(400, f"context must be an object with messages, got {given}")
    try:
        context = Context.model_validate(raw)
    except ValueError as exc:
        raise Refused(400, f"invalid context: {first_error(exc)}") from None
    if not context.messages:
        raise Refused(400, "context.messages is empty: there is nothing to answer")
    return context


def _options(raw: Any) -> StreamOptions:
    if raw is None:
        return StreamOptions()
    if not isinstance(raw, dict):
        raise Refused(400, "options must be an object")
    given = cast("dict[str, Any]", raw)
    values: dict[str, Any] = {}
    for key, value in given.items():
        if key in _IGNORED_OPTIONS or value is None:
            continue
        name = _OPTION_FIELDS.get(key)
        if name is None:
            raise Refused(400, f"unknown option {key!r}")
        values[name] = _checked_option(key, value)
    try:
        return StreamOptions(**values)
    except (TypeError, ValueError) as exc:
        raise Refused(400, f"invalid options: {exc}") from None


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
        "temperature": Annotated[float, Field(ge=0, allow_inf_nan=False)],
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
        raise Refused(400, f"invalid options: {key}: {first_error(exc)}") from None


def first_error(exc: ValueError) -> str:
    """The first problem of a validation error, ``"messages.0.content: Field required"``."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where}: {first['msg']}" if where else first["msg"]
    return str(exc)
