"""The server's requests: the body read within limits, parsed as strict JSON, every field checked.

What :func:`pi_sdk.agent.proxy_app` does with a body before any vendor is called, for both of
its protocols: pi-agent-core's proxy (``POST /api/stream``, :func:`parse_request`: the model as
an object ``{provider, id, ...}``) and pi-ai 1.6's ``pi-messages`` (``POST /messages``,
:func:`parse_pi_messages_request`: the model as a string ``"<provider>/<id>"``). Each problem
is a :class:`Refused` carrying the HTTP status and the text of the JSON error reply:

* **408** when the body does not arrive whole within ``ProxyPolicy.body_timeout_ms`` (a client
  sending 1 byte a second holds a connection no longer than that);
* **413** for a body over ``ProxyPolicy.max_body_bytes`` (by ``Content-Length``, or counted);
* **400** for a body that is not strict JSON (:mod:`pi_sdk._wire.strict_json`: ``NaN``,
  ``1e999``, nesting deeper than 500 levels are refused, never a ``RecursionError``), not an
  object, without ``model`` ``{provider, id}``, with an unknown or ill-typed option, or without a
  ``context`` holding at least one message (the vendor would be called with an empty
  conversation);
* **403** for a model outside the allow-list; **400** for one the server does not know.

The context may be pi 1.6's transcript form (a leading ``system`` message instead of
``systemPrompt`` and ``tools``, later ones changing them) or 0.73's; it goes to the provider as
received, which sends later system messages in place where the model takes them (the prompt
cache is kept) and folds them into the prompt elsewhere. The options are pi's serializable
ones; 1.6 adds ``samplingParams`` (merged into the request body of the OpenAI-compatible
APIs, as pi-ai 1.6 does) and ``disableContinuation`` (always true here: every request carries
its whole context).
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, cast

from pi_sdk._serve.policy import ProxyPolicy
from pi_sdk._wire.strict_json import StrictJsonError, loads_strict
from pi_sdk.errors import PiSdkError
from pi_sdk.options import StreamOptions
from pi_sdk.types import AssistantMessage, Context, Model

__all__ = ["Refused", "parse_pi_messages_request", "parse_request", "read_body"]

_OPTION_FIELDS = {
    "temperature": "temperature",
    "maxTokens": "max_tokens",
    "reasoning": "reasoning",
    "cacheRetention": "cache_retention",
    "sessionId": "session_id",
    "metadata": "metadata",
    "thinkingBudgets": "thinking_budgets",
    "maxRetryDelayMs": "max_retry_delay_ms",
    "samplingParams": "",  # a payload hook (_sampling_hook), not a StreamOptions field
}
"""The proxy options the server applies (pi-agent-core 1.6 ``ProxySerializableStreamOptions``).
``headers`` is ignored (the server builds the vendor request), as are ``transport`` and
``disableContinuation``; anything else is refused."""

_IGNORED_OPTIONS = {"headers", "transport", "disableContinuation"}

_PI_MESSAGES_OPTIONS = {
    "temperature": "temperature",
    "maxTokens": "max_tokens",
    "reasoning": "reasoning",
    "cacheRetention": "cache_retention",
    "sessionId": "session_id",
    "toolChoice": "tool_choice",
}
"""The options of a ``pi-messages`` request (pi-ai 1.6 ``api/pi-messages.js``)."""

_SAMPLING_APIS = frozenset({"openai-completions", "openai-responses", "azure-openai-responses"})
"""The APIs pi-ai 1.6 merges ``samplingParams`` into (``Object.assign(params, ...)``)."""


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
    wire = _body_object(body)
    requested: Any = wire.get("model")
    if not isinstance(requested, dict):
        raise Refused(400, "model must be an object with provider and id")
    fields = cast("dict[str, Any]", requested)
    provider, model_id = fields.get("provider"), fields.get("id")
    if not isinstance(provider, str) or not isinstance(model_id, str):
        raise Refused(400, "model must be an object with provider and id")
    model = _served_model(policy, provider, model_id)
    options = _options(wire.get("options"), _OPTION_FIELDS, model)
    return model, _context(wire.get("context")), options


def parse_pi_messages_request(
    body: bytes, policy: ProxyPolicy
) -> tuple[Model, Context, StreamOptions]:
    """The model, context and options of a ``pi-messages`` body (pi-ai 1.6).

    ``model`` is ``"<provider>/<id>"`` (split at the first ``/``: ``openrouter/anthropic/x`` is
    OpenRouter's ``anthropic/x``). Assistant turns this server gave for that same model id
    (``api`` ``"pi-messages"``, ``model`` the requested string) are sent back to the vendor as
    its own turns, so their thinking signatures are replayed to it.

    Raises:
        Refused: 400, 403 (see the module docstring).
    """
    wire = _body_object(body)
    requested: Any = wire.get("model")
    provider, _, model_id = requested.partition("/") if isinstance(requested, str) else ("", "", "")
    if not provider or not model_id:
        raise Refused(400, "model must be a string '<provider>/<id>', e.g. 'anthropic/claude-x'")
    model = _served_model(policy, provider, model_id)
    options = _options(wire.get("options"), _PI_MESSAGES_OPTIONS, model)
    context = _context(wire.get("context"))
    for message in context.messages:
        if (
            isinstance(message, AssistantMessage)
            and message.api == "pi-messages"
            and message.model == requested
        ):
            message.api, message.provider, message.model = model.api, model.provider, model.id
            message.signature_origin = None
    return model, context, options


def _body_object(body: bytes) -> dict[str, Any]:
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
    return cast("dict[str, Any]", data)


def _served_model(policy: ProxyPolicy, provider: str, model_id: str) -> Model:
    if not policy.allows(provider, model_id):
        raise Refused(403, f"model {provider}/{model_id} is not allowed on this proxy")
    try:
        return policy.model(provider, model_id)
    except PiSdkError as exc:
        raise Refused(400, str(exc)) from None


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


def _options(raw: Any, table: dict[str, str], model: Model) -> StreamOptions:
    if raw is None:
        return StreamOptions()
    if not isinstance(raw, dict):
        raise Refused(400, "options must be an object")
    given = cast("dict[str, Any]", raw)
    values: dict[str, Any] = {}
    sampling: dict[str, Any] | None = None
    for key, value in given.items():
        if key in _IGNORED_OPTIONS or value is None:
            continue
        name = table.get(key)
        if name is None:
            raise Refused(400, f"unknown option {key!r}")
        checked = _checked_option(key, value)
        if key == "samplingParams":
            sampling = checked
        elif key == "toolChoice":
            values[name] = _tool_choice(checked)
        else:
            values[name] = checked
    if sampling and model.api in _SAMPLING_APIS:
        values["on_payload"] = _sampling_hook(sampling)
    try:
        return StreamOptions(**values)
    except (TypeError, ValueError) as exc:
        raise Refused(400, f"invalid options: {exc}") from None


def _tool_choice(value: Any) -> str | dict[str, str]:
    """The ``toolChoice`` of pi as ours: a mode, or ``{"type": "function", "function": ...}``."""
    if isinstance(value, str):
        return value
    function: Any = value.get("function")
    name: Any = cast("dict[str, Any]", function).get("name") if isinstance(function, dict) else None
    if value.get("type") != "function" or not isinstance(name, str) or not name:
        raise Refused(400, "invalid options: toolChoice must name a function")
    return {"name": name}


def _sampling_hook(params: dict[str, Any]) -> Any:
    """An ``on_payload`` hook merging ``params`` over the request body's top level (pi-ai 1.6)."""

    def merge(payload: dict[str, Any], model: Model) -> dict[str, Any]:
        return {**payload, **params}

    return merge


@functools.cache
def _option_adapters() -> dict[str, Any]:
    """Each request option's JSON type, checked strictly.

    A wrong type is refused with 400, not passed on into the vendor request
    (``StreamOptions`` does not check types).
    """
    from typing import Annotated, Literal

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
        "samplingParams": dict[str, Any],
        "toolChoice": Literal["auto", "none", "required"] | dict[str, Any],
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
