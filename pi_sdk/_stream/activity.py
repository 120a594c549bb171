"""Wire activity of the call being read: what the idle timeout counts as "not silent".

The core's stream (:mod:`pi_sdk._stream.run`) times out a reply that goes silent once events
flow (``StreamOptions.idle_timeout_ms``). Silence is measured on the wire, not in events: a
vendor's keep-alive (an Anthropic ``ping`` event, an SSE comment from a proxy) produces no
event, yet shows the connection is alive. Each call has one :class:`Activity` (on its
:class:`~pi_sdk._stream.call_scope.CallScope`); the call's
:class:`~pi_sdk._stream.response_body.ResponseBody` stamps it on every chunk and names, per
network read, the task waiting on the wire, so the core times out and aborts that wait without
bookkeeping per event.
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["Activity"]


class Activity:
    """When the call's response last delivered bytes, and who waits for the next ones.

    Attributes:
        last: ``time.monotonic()`` seconds of the last chunk (0: never).
        since: When the pending wait began (seconds, as ``last``).
        waiter: The task waiting now (``None``: nobody waits on the call). The core sets it
            around each read of a provider's generator, and of its own read loop until the
            reply started; a :class:`~pi_sdk._stream.response_body.ResponseBody` sets it around
            each of its network reads (and then puts the previous value back).
    """

    __slots__ = ("last", "since", "waiter")

    def __init__(self) -> None:
        self.last = 0.0
        self.since = 0.0
        self.waiter: asyncio.Task[Any] | None = None
