"""A scripted HTTP/1.1 server on 127.0.0.1 for provider tests that need real sockets.

The server is the conformance kit's (:mod:`pi_sdk_pytest.conformance.loopback`), given its
script at construction and its requests as ``(method, target, body)`` tuples.

Tests that exercise what an in-process transport cannot show (TCP connection reuse, a connection
reset before the response, a server that keeps the connection open after the last event) run the
adapters against this server through the normal client path (no ``StreamOptions.client``).

Each request gets the next :class:`Step` (the last one repeats), or the one ``route(method,
target, headers, body)`` picks when a route is given (a server answering by path). A step sends a
status line, headers and body parts with chunked encoding (a 204 or 304: no body), then ends as
scripted: ``"keep"`` (finish the body,
keep the connection alive), ``"hang"`` (send nothing more until the client closes the connection
or the server stops; :attr:`LoopbackServer.client_closes` counts the first), ``"rst"``
(reset the connection: TCP RST) or ``"close"`` (close the socket). ``rst_before_headers`` resets
the connection as soon as the request has been read, before any byte of the response.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from pi_sdk_pytest.conformance.loopback import LoopbackServer as _KitServer
from pi_sdk_pytest.conformance.loopback import Reply as Step

import pi_sdk
from _support.wire import APIS, Text, Tokens, wire_for

__all__ = [
    "APIS",
    "HTML_ERROR_PAGE",
    "LoopbackServer",
    "Route",
    "Step",
    "complete_once",
    "json_step",
    "model_at",
    "sse_step",
    "text_events",
    "text_reply",
]


def sse_step(events: list[Any], *, end: Literal["keep", "hang", "rst", "close"] = "keep") -> Step:
    """A ``text/event-stream`` reply: each item is a JSON object (``data: <json>``) or raw bytes."""
    parts = tuple(
        item if isinstance(item, bytes) else f"data: {json.dumps(item)}\n\n".encode()
        for item in events
    )
    return Step(headers={"content-type": "text/event-stream"}, parts=parts, end=end)


def json_step(status: int, body: Any, headers: dict[str, str] | None = None) -> Step:
    """A JSON reply (``body`` as JSON; ``bytes`` sent as is with ``text/html``)."""
    if isinstance(body, bytes):
        return Step(status, {"content-type": "text/html", **(headers or {})}, (body,))
    data = json.dumps(body).encode()
    return Step(status, {"content-type": "application/json", **(headers or {})}, (data,))


Route = Callable[[str, str, dict[str, str], bytes], Step]
"""``route(method, target, headers, body) -> Step``: the reply to one request."""


class LoopbackServer(_KitServer):
    """Serve ``steps`` on 127.0.0.1; counts connections and records requests.

    Use as ``async with LoopbackServer([...]) as server:``; ``server.url`` is the base URL.
    """

    def __init__(self, steps: list[Step], *, route: Route | None = None) -> None:
        super().__init__()
        self.play(*steps)
        self._by_path: Route | None = None
        if route is not None:
            self.route = route

    @property
    def route(self) -> Route | None:  # type: ignore[override]
        """The function choosing each reply (``None``: the steps, in order); may be replaced."""
        return self._by_path

    @route.setter
    def route(self, choose: Route | None) -> None:
        self._by_path = choose
        if choose is None:
            self._route = None
        else:
            _KitServer.route(self, lambda r: choose(r.method, r.target, r.headers, r.body))

    @property
    def requests(self) -> list[tuple[str, str, bytes]]:
        """``(method, target, body)`` of each request, in order."""
        return [(r.method, r.target, r.body) for r in self.received]

    @property
    def headers(self) -> list[dict[str, str]]:
        """Each request's headers (names lower-cased), in request order."""
        return [r.headers for r in self.received]


HTML_ERROR_PAGE = (
    b"<!DOCTYPE html><html><head><title>500 Internal Server Error</title>"
    b"<style>body { color: red }</style><script>var x = '<b>';</script></head><body>"
    b"<h1>Internal   Server\n\nError</h1>"
    + b"<p>upstream &amp; friends failed</p>" * 400
    + b"</body></html>"
)
"""A proxy's 16 KB HTML error page (what an error message must not quote whole)."""


# --- minimal replies per wire API (the APIs and their wire formats: _support.wire) ----------


def model_at(api: str, base: str) -> Any:
    """The catalog model of ``api``'s test provider, sending to ``base`` (the server's URL)."""
    return wire_for(api).model(base)


def text_events(api: str, pieces: list[str]) -> tuple[list[Any], list[Any]]:
    """``(body events, terminal events)`` of a text reply made of ``pieces`` on ``api``.

    The terminal part is the vendor's end of the reply (``message_stop``, ``[DONE]``,
    ``response.completed``, the chunk with ``finishReason``), so a test can put more after it.
    Usage: 5 input tokens, 3 output tokens.
    """
    return wire_for(api).events([Text(tuple(pieces))], Tokens())


def text_reply(api: str, text: str = "Hello", **kwargs: Any) -> Step:
    """A complete streamed text reply on ``api``."""
    body, terminal = text_events(api, [text[: len(text) // 2], text[len(text) // 2 :]])
    return sse_step(body + terminal, **kwargs)


async def complete_once(api: str, step: Step) -> pi_sdk.AssistantMessage:
    """``pi_sdk.complete`` of a "hi" prompt on ``api`` against a server playing ``step`` (no retry).

    Returns the final ``AssistantMessage`` (an error reply is returned, not raised).
    """
    async with LoopbackServer([step]) as server:
        return await pi_sdk.complete(
            model_at(api, server.url),
            pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")]),
            pi_sdk.StreamOptions(api_key="test-key-123", max_retries=0),
        )
