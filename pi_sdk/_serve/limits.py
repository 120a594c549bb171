"""What ``pi-sdk serve`` holds its connections to: timeouts, a cap, and quiet refusals.

uvicorn (0.54, h11) closes a connection that stays idle *after* a response, and nothing else: a
client that connects and sends nothing, or sends its request head a byte at a time, holds a
socket (a file descriptor) for ever, and 1,100 such sockets on a 1,024-descriptor process stop
the server from accepting real calls while asyncio logs a traceback for every failed
``accept()``. :func:`uvicorn_config` runs the proxy on an h11 protocol with:

* **a header timeout** (``header_timeout_s``, default 10 s): a connection must deliver a complete
  request head within it, counted from its opening or from the end of the previous response;
  otherwise it is closed (with ``408 Request Timeout`` when part of a head came). A connection
  that sends nothing at all is closed at the same moment;
* **an idle timeout** (``idle_timeout_s``, default 5 s): uvicorn's keep-alive timeout, the
  silence allowed between two requests of one connection;
* **a connection cap** (``max_connections``; default half the process's file-descriptor limit
  less 100, since every proxied call also holds a connection to the vendor, at most 10,000): a
  connection over it is answered ``503 Service Unavailable`` and closed at once, before it is
  read, so that no descriptor is held for it;
* **quiet refusals**: refused connections and failed ``accept()`` calls (out of descriptors)
  are counted and logged as one line at most every 10 s, never a traceback each.

The body timeout is the application's (:attr:`pi_sdk.agent.ProxyPolicy.body_timeout_ms`, 408).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from pi_sdk._serve.outcome_log import LOGGER_NAME

__all__ = [
    "ServerLimits",
    "default_max_connections",
    "quiet_accept_errors",
    "uvicorn_config",
]

_log = logging.getLogger(LOGGER_NAME)

_REPORT_EVERY_S = 10.0
"""At most one line per this many seconds for each kind of refusal."""


def _raw_reply(status: str, error: str) -> bytes:
    """A whole HTTP/1.1 reply with a JSON ``{"error": ...}`` body that closes the connection."""
    body = ('{"error": "' + error + '"}\n').encode()
    head = (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\nconnection: close\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


_BUSY = _raw_reply("503 Service Unavailable", "the proxy is at its connection limit; retry")
_HEAD_TIMEOUT = _raw_reply("408 Request Timeout", "the request head did not arrive in time")


def default_max_connections() -> int:
    """Half the file-descriptor limit less 100 (each call also holds a vendor connection).

    At least 16 and at most 10,000; 1,000 where the limit cannot be read (Windows).
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return 1_000
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 10_000
    return max(16, min(10_000, (soft - 100) // 2))


@dataclass(frozen=True, kw_only=True)
class ServerLimits:
    """How long a connection may take, and how many may be open (module docstring).

    Raises:
        ValueError: a timeout that is not positive, or a cap below 1.
    """

    header_timeout_s: float = 10.0
    """Seconds for a connection to deliver a complete request head."""
    idle_timeout_s: float = 5.0
    """Seconds a connection may stay silent between two requests (uvicorn's keep-alive)."""
    max_connections: int = 0
    """Open client connections at most; 0 means :func:`default_max_connections`."""

    def __post_init__(self) -> None:
        if not (self.header_timeout_s > 0 and self.idle_timeout_s > 0):
            raise ValueError(
                "the header and idle timeouts must be positive, got"
                f" {self.header_timeout_s} and {self.idle_timeout_s}"
            )
        if self.max_connections < 0:
            raise ValueError(f"max_connections must be at least 1, got {self.max_connections}")
        if self.max_connections == 0:
            object.__setattr__(self, "max_connections", default_max_connections())


class _Tally:
    """Counts one kind of refusal; logs the count at most every :data:`_REPORT_EVERY_S`."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.count = 0
        self._last = float("-inf")

    def add(self, now: float) -> None:
        self.count += 1
        if now - self._last >= _REPORT_EVERY_S:
            _log.warning("%s (%d since the last report)", self.what, self.count)
            self.count = 0
            self._last = now


def _protocol_class(limits: ServerLimits, refused: _Tally) -> Any:
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class _LimitedH11(H11Protocol):
        """uvicorn's h11 protocol with a header timeout and a connection cap."""

        _head_timer: asyncio.TimerHandle | None = None
        _refused_connection = False

        def connection_made(self, transport: Any) -> None:
            if len(self.connections) >= limits.max_connections:
                self._refused_connection = True
                self.transport = transport
                transport.write(_BUSY)
                transport.close()
                refused.add(self.loop.time())
                return
            super().connection_made(transport)
            self._await_head()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_head_timer()
            if self._refused_connection:
                return
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._refused_connection:
                return
            super().data_received(data)
            if self._head_timer is not None and self.conn.their_state is not h11.IDLE:
                self._stop_head_timer()  # the request's head is complete

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self._await_head()

        def _await_head(self) -> None:
            self._stop_head_timer()
            self._head_timer = self.loop.call_later(limits.header_timeout_s, self._head_late)

        def _stop_head_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_late(self) -> None:
            self._head_timer = None
            if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
                return
            if self.conn.trailing_data[0]:  # part of a head came: say why it is closed
                self.transport.write(_HEAD_TIMEOUT)
            self.transport.close()

    return _LimitedH11


def uvicorn_config(app: Any, limits: ServerLimits, **options: Any) -> Any:
    """A ``uvicorn.Config`` serving ``app`` under ``limits`` (h11; no access log of its own).

    Args:
        app: The ASGI application (:func:`pi_sdk.agent.proxy_app`).
        limits: The timeouts and the connection cap.
        options: Further ``uvicorn.Config`` arguments (``host``, ``port``, ``log_level``).

    Returns:
        The configuration; ``uvicorn.Server(config).serve()`` runs it. uvicorn's access log is
        off: the app logs each request's real outcome (:mod:`pi_sdk._serve.outcome_log`).
    """
    import uvicorn

    refused = _Tally(f"refused connections over the cap of {limits.max_connections} (503, closed)")
    return uvicorn.Config(
        app,
        http=_protocol_class(limits, refused),
        timeout_keep_alive=max(1, round(limits.idle_timeout_s)),
        access_log=False,
        **options,
    )


def quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """Log failed ``accept()`` calls (out of descriptors) as one counted line every 10 s.

    asyncio reports each as an error with a traceback and tries again a second later; under a
    flood of connections that is thousands of tracebacks. Every other error goes to the
    handler that was in place.
    """
    tally = _Tally(
        "cannot accept connections: out of file descriptors (raise `ulimit -n` or lower"
        " --max-connections)"
    )
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if str(context.get("message", "")).startswith("socket.accept() out of system resource"):
            tally.add(loop.time())
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
