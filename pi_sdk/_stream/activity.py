"""Wire activity of the call being read: what the idle timeout counts as "not silent".

The core's stream (:mod:`pi_sdk._stream.event_stream`) times out a reply that goes silent once
events
flow (``StreamOptions.idle_timeout_ms``). Silence is measured on the wire, not in events: a
vendor's keep-alive (an Anthropic ``ping`` event, an SSE comment from a proxy) produces no
event, yet shows the connection is alive. The core puts its :class:`Activity` in
:data:`current_activity` while the provider opens its response; the provider kit's
:class:`~pi_sdk.provider.ResponseBody` picks it up when created and stamps it on every chunk.

The same object carries the core's offer of a shorter path (:class:`EventPump`): the kit's
body loop may hand the core its events directly, past the provider's generator layers, and
then tells the core, per network read, which task waits on the wire (``waiter``), so the core
times out and aborts that wait without bookkeeping per event.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from contextvars import ContextVar
from types import CodeType
from typing import Any, TypeVar

__all__ = ["Activity", "EventPump", "current_activity", "forwards_events", "offers_pump"]

_F = TypeVar("_F", bound=Callable[..., Any])
_FORWARDING: set[CodeType] = set()
"""The code of the async generator functions that forward the kit's events unchanged."""


class Activity:
    """When the call's response last delivered bytes, and who waits for the next ones.

    Attributes:
        last: ``time.monotonic()`` seconds of the last chunk (0: never).
        since: When the pending network read began (seconds, as ``last``).
        waiter: The task awaiting the network now (``None`` between reads).
        pumps: The core reads an :class:`EventPump` (set by the core before the call starts).
    """

    __slots__ = ("last", "pumps", "since", "waiter")

    def __init__(self) -> None:
        self.last = 0.0
        self.since = 0.0
        self.waiter: asyncio.Task[Any] | None = None
        self.pumps = False


class EventPump:
    """What the kit's body loop yields, once, to a core that offered to read it (``pumps``).

    ``events`` is the loop's own generator of the call's events (``start`` first, the terminal
    event last), for the core to pull directly. It never raises an ``Exception``: a failure
    ends it and is kept in ``failure``; the core then resumes the provider's generator, where
    the kit raises it, so the provider's own handlers see it as they always did.
    """

    __slots__ = ("events", "failure")

    def __init__(self, events: AsyncGenerator[Any, None]) -> None:
        self.events = events
        self.failure: Exception | None = None


def forwards_events(function: _F) -> _F:
    """Mark a provider's async generator function as one that forwards the kit's events as is.

    For a stream function (or the generator a stream function returns) that does nothing but
    ``yield`` each event of :func:`~pi_sdk.provider.run_http_stream` (or of
    :func:`~pi_sdk.provider.stream_http_call`, or of another marked generator), around its own
    setup and clean-up: the core then reads those events straight from the kit's body loop,
    past this generator (issue 16: fewer generator layers per event). An exception raised
    from the kit still comes out of this generator, where its ``except`` clauses see it;
    events are never seen by it. Do not mark a generator that inspects, changes, drops or adds
    events: the core would bypass that. Returns ``function`` itself.
    """
    code = getattr(function, "__code__", None)
    if isinstance(code, CodeType):
        _FORWARDING.add(code)
    return function


def offers_pump(source: object) -> bool:
    """True when ``source`` (a provider's generator) was made by a :func:`forwards_events` one."""
    return getattr(source, "ag_code", None) in _FORWARDING


current_activity: ContextVar[Activity | None] = ContextVar("pi_sdk_activity", default=None)
"""The activity of the call whose provider is being started (``None`` outside one)."""
