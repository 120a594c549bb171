"""Wire activity of the call being read: what the idle timeout counts as "not silent".

The core's stream (:mod:`pi_sdk._event_stream`) times out a reply that goes silent once events
flow (``StreamOptions.idle_timeout_ms``). Silence is measured on the wire, not in events: a
vendor's keep-alive (an Anthropic ``ping`` event, an SSE comment from a proxy) produces no
event, yet shows the connection is alive. The core puts its :class:`Activity` in
:data:`current_activity` while the provider opens its response; the provider kit's
:class:`~pi_sdk.provider.ResponseBody` picks it up when created and stamps it on every chunk.
"""

from __future__ import annotations

from contextvars import ContextVar

__all__ = ["Activity", "current_activity"]


class Activity:
    """When the call's response last delivered bytes (``time.monotonic()`` seconds; 0: never)."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last = 0.0


current_activity: ContextVar[Activity | None] = ContextVar("pi_sdk_activity", default=None)
"""The activity of the call whose provider is being started (``None`` outside one)."""
