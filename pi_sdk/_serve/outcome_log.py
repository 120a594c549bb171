"""One log line per proxy request, with its real outcome, on the ``pi_sdk.serve`` logger.

A proxied call answers 200 as soon as its stream starts; whatever happens next (the vendor's
429, a lost connection, an abort) is an ``error`` event inside that 200. An access log written
when the response starts therefore says 200 for every call that failed. This log is written
when the request ends and says what happened:

```text
INFO     127.0.0.1:51234 anthropic/claude-sonnet-4-5 200 done (stop) 12 in · 30 out · 1.52 s
WARNING  127.0.0.1:51236 anthropic/claude-sonnet-4-5 200 error 429: 429 Too Many Requests: ...
INFO     127.0.0.1:51240 anthropic/claude-sonnet-4-5 200 aborted: the client disconnected · 3.20 s
WARNING  127.0.0.1:51238 401 refused: unauthorized: a valid bearer token is required
```

``error <status>`` names the vendor's HTTP status when the error text starts with one (pi-sdk's
HTTP errors do: :func:`pi_sdk.provider.http_error_message`). Error texts are the ones the client
received, with the server's secrets already redacted, cut to 300 characters on one line.
"""

from __future__ import annotations

import logging
import re
from typing import Any, cast

from pi_sdk.types import AssistantMessage

__all__ = ["LOGGER_NAME", "log_outcome", "log_refusal"]

LOGGER_NAME = "pi_sdk.serve"
"""The logger of the proxy's request lines (``pi-sdk serve`` prints it at ``--log-level``)."""

_log = logging.getLogger(LOGGER_NAME)
_STATUS = re.compile(r"^(?P<status>[1-5]\d\d)\b")
_LIMIT = 300


def _client(scope: Any) -> str:
    client: Any = cast("dict[str, Any]", scope).get("client") if isinstance(scope, dict) else None
    if isinstance(client, (list, tuple)) and len(cast("tuple[Any, ...]", client)) == 2:
        host, port = cast("tuple[Any, Any]", client)
        return f"{host}:{port}"
    return "-"


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _LIMIT else flat[: _LIMIT - 1] + "…"


def log_refusal(scope: Any, status: int, reason: str) -> None:
    """Log a refused request (4xx before any stream), at WARNING."""
    _log.warning("%s %d refused: %s", _client(scope), status, _one_line(reason))


def log_outcome(
    scope: Any, model: str, message: AssistantMessage | None, error: str | None, seconds: float
) -> None:
    """Log how a proxied call ended: ``done`` at INFO, ``aborted`` at INFO, ``error`` at WARNING.

    Args:
        scope: The request's ASGI scope (for the client's address).
        model: ``provider/id`` of the model called.
        message: The call's final message, when the stream function ended with one.
        error: The error text sent to the client (already redacted), when the call failed
            without a final message (a stream function that raised); ``None`` with no message
            either: the client left before the end (logged as aborted).
        seconds: How long the request took, from its first byte of body to its last event.
    """
    where = f"{_client(scope)} {model} 200"
    took = f"{seconds:.2f} s"
    if message is None and error is None:
        _log.info("%s aborted: the client disconnected · %s", where, took)
        return
    if message is not None and message.stop_reason not in ("error", "aborted"):
        usage = message.usage
        _log.info(
            "%s done (%s) %d in · %d out · %s",
            where, message.stop_reason, usage.input, usage.output, took,
        )  # fmt: skip
        return
    if message is not None and message.stop_reason == "aborted":
        _log.info("%s aborted: %s · %s", where, _one_line(message.error_message or "-"), took)
        return
    text = _one_line((message.error_message if message is not None else error) or "unknown")
    status = _STATUS.match(text)
    label = f"error {status.group('status')}" if status else "error"
    _log.warning("%s %s: %s · %s", where, label, text, took)
