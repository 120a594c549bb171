"""Client-side rate limiting: requests and tokens per window, per provider or model, in turn.

A :class:`RateLimiter` holds one :class:`RateLimit` per key: ``"provider"`` (every model of a
provider, one key's account limit) or ``"provider/model-id"`` (that model; it wins over the
provider's). A ``Models`` collection holds one (``Models(rate_limits=...)``), so every stream
and agent of the collection shares it; pass the same limiter to several collections to share
it across them (one process-wide budget). Issue 28, item 6.

How a call waits (:meth:`RateLimiter.gate`, run by the stream before each attempt's request,
retries included):

* **Sliding window.** At most ``requests`` requests and ``tokens`` tokens in any ``per_ms``
  window. A request counts from the moment its reply *started* (the server had it), and counts
  as "now" while it is in flight, so the window the client sees is never ahead of the server's:
  a server that counts arrivals sees at most the limit in any window.
* **Tokens.** A request is charged its estimated input tokens
  (:func:`~pi_sdk.estimate_context_tokens`); when it ends, its reported usage (input, cached,
  output) replaces the estimate.
* **Fair.** Waiters are served first come, first served: a later small request never overtakes
  an earlier large one.
* **Abortable.** Aborting a call's signal while it waits ends it at once (``"aborted"``), and
  its place goes to the next waiter.
* **The vendor's word.** Rate-limit headers of each response (OpenAI ``x-ratelimit-remaining-*``
  / ``x-ratelimit-reset-*``, Anthropic ``anthropic-ratelimit-*-remaining`` / ``-reset``, the
  generic ``x-ratelimit-remaining`` / ``x-ratelimit-reset``) tighten the window: a budget the
  server says is exhausted holds every call until its reset. An HTTP 429 holds the key for its
  ``retry-after`` (1 s when it names none).
"""

from __future__ import annotations

import asyncio
import collections
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pi_sdk._models.rate_limit_headers import server_budgets
from pi_sdk._stream.call_scope import Gate, Permit
from pi_sdk._stream.provider_errors import ProviderError
from pi_sdk._wire.estimate import estimate_context_tokens, usage_tokens
from pi_sdk.options import StreamOptions
from pi_sdk.types import AssistantMessage, Context, Model

__all__ = ["RateLimit", "RateLimiter"]

_IN_FLIGHT = math.inf
"""The time of a request still in flight: it never leaves the window until it started."""


@dataclass(frozen=True)
class RateLimit:
    """At most ``requests`` requests and ``tokens`` tokens in any window of ``per_ms`` ms.

    ``RateLimit(requests=50)`` is 50 requests per minute; ``RateLimit(requests=20,
    per_ms=1000)`` 20 per second; ``RateLimit(tokens=30_000)`` 30,000 tokens (input, cached
    and output) per minute. ``None``: that dimension is not limited.

    Raises:
        ValueError: a limit or the window is zero or negative, or neither limit is given.
    """

    requests: int | None = None
    tokens: int | None = None
    per_ms: float = 60_000

    def __post_init__(self) -> None:
        if self.requests is None and self.tokens is None:
            raise ValueError("RateLimit needs requests=, tokens= or both")
        for name in ("requests", "tokens", "per_ms"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"RateLimit.{name} must be positive; got {value!r}")


class _Slot:
    __slots__ = ("at", "tokens")

    def __init__(self, tokens: int) -> None:
        self.at = _IN_FLIGHT
        self.tokens = tokens


class _Window:
    """One key's sliding window, its server budgets and its queue of waiters."""

    def __init__(self, limit: RateLimit, clock: Callable[[], float]) -> None:
        self.limit = limit
        self._clock = clock
        self._slots: list[_Slot] = []
        self._waiters: collections.deque[tuple[asyncio.Future[_Slot], int]] = collections.deque()
        self._timer: asyncio.TimerHandle | None = None
        self.held_until = 0.0
        """No request starts before this time (a 429's wait, an exhausted server budget)."""
        self.server_requests: tuple[int, float] | None = None
        """``(remaining, reset_at)`` the server last said for requests."""
        self.server_tokens: tuple[int, float] | None = None

    # -- accounting ------------------------------------------------------------------------

    def _wait_s(self, now: float, tokens: int) -> float:
        """Seconds until a request of ``tokens`` fits (0: now; ``inf``: when one ends)."""
        wait = max(0.0, self.held_until - now)
        span = self.limit.per_ms / 1000
        self._slots = [s for s in self._slots if s.at > now - span]
        limit = self.limit
        if limit.requests is not None and len(self._slots) >= limit.requests:
            done = sorted(s.at for s in self._slots)
            wait = max(wait, done[len(self._slots) - limit.requests] + span - now)
        if limit.tokens is not None and self._slots:
            used = sum(s.tokens for s in self._slots)
            excess = used + min(tokens, limit.tokens) - limit.tokens
            if excess > 0:
                for slot in sorted(self._slots, key=lambda s: s.at):
                    excess -= slot.tokens
                    if excess <= 0:
                        wait = max(wait, slot.at + span - now)
                        break
        for budget in (self.server_requests, self.server_tokens):
            if budget is not None:
                remaining, reset_at = budget
                if now >= reset_at:
                    continue
                need = 1 if budget is self.server_requests else min(tokens, 1)
                if remaining < need:
                    wait = max(wait, reset_at - now)
        return wait

    def _take(self, tokens: int) -> _Slot:
        slot = _Slot(tokens)
        self._slots.append(slot)
        if self.server_requests is not None:
            remaining, reset_at = self.server_requests
            self.server_requests = (remaining - 1, reset_at)
        if self.server_tokens is not None:
            remaining, reset_at = self.server_tokens
            self.server_tokens = (remaining - tokens, reset_at)
        return slot

    # -- the queue -------------------------------------------------------------------------

    async def acquire(self, tokens: int) -> _Slot:
        if not self._waiters and self._wait_s(self._clock(), tokens) <= 0:
            return self._take(tokens)
        future: asyncio.Future[_Slot] = asyncio.get_running_loop().create_future()
        entry = (future, tokens)
        self._waiters.append(entry)
        self.serve()
        try:
            return await future
        except asyncio.CancelledError:
            if entry in self._waiters:
                self._waiters.remove(entry)
            elif future.done() and not future.cancelled():
                self._slots.remove(future.result())  # granted as we left: give it back
            self.serve()
            raise

    def serve(self) -> None:
        """Grant the waiters at the head that fit now; wake up when the next one will."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._waiters:
            future, tokens = self._waiters[0]
            if future.done():  # cancelled while queued
                self._waiters.popleft()
                continue
            wait = self._wait_s(self._clock(), tokens)
            if wait > 0:
                if math.isfinite(wait):
                    self._timer = future.get_loop().call_later(wait, self.serve)
                return  # an in-flight request's end calls serve() again
            self._waiters.popleft()
            future.set_result(self._take(tokens))

    def started(self, slot: _Slot) -> None:
        if slot.at == _IN_FLIGHT:
            slot.at = self._clock()
            if self._waiters:
                self.serve()  # the head may now know when it fits

    def finished(self, slot: _Slot, message: Any, failure: BaseException | None) -> None:
        now = self._clock()
        if slot.at == _IN_FLIGHT:
            slot.at = now
        if isinstance(message, AssistantMessage) and usage_tokens(message.usage):
            slot.tokens = usage_tokens(message.usage)
        if isinstance(failure, ProviderError) and failure.status == 429:
            wait_ms = failure.retry_after_ms if failure.retry_after_ms is not None else 1000
            self.held_until = max(self.held_until, now + wait_ms / 1000)
        self.serve()

    def observe(self, headers: Mapping[str, str]) -> None:
        now = self._clock()
        requests, tokens = server_budgets(headers)
        if requests is not None:
            self.server_requests = (requests[0], now + requests[1])
        if tokens is not None:
            self.server_tokens = (tokens[0], now + tokens[1])
        if requests is not None or tokens is not None:
            self.serve()


class _Permit:
    __slots__ = ("_slot", "_window")

    def __init__(self, window: _Window, slot: _Slot) -> None:
        self._window = window
        self._slot = slot

    def started(self) -> None:
        self._window.started(self._slot)

    def finished(self, message: Any, failure: BaseException | None) -> None:
        self._window.finished(self._slot, message, failure)


class RateLimiter:
    """Rate limits per provider or model, shared by every call that goes through it.

    Example:
        ```python
        limiter = pi_sdk.RateLimiter({"anthropic": pi_sdk.RateLimit(requests=50, tokens=40_000)})
        models = pi_sdk.Models([...], rate_limits=limiter)
        ```

    Args:
        limits: ``{"provider" or "provider/model-id": RateLimit}``.
        clock: Seconds on a monotonic clock (tests pass their own).

    Raises:
        TypeError: a value is not a :class:`RateLimit`.
    """

    def __init__(
        self,
        limits: Mapping[str, RateLimit] | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._clock = clock
        self._windows: dict[str, _Window] = {}
        for key, limit in (limits or {}).items():
            self.set(key, limit)

    def __repr__(self) -> str:
        return f"RateLimiter({ {k: w.limit for k, w in self._windows.items()}!r})"

    def set(self, key: str, limit: RateLimit | None) -> None:
        """Limit ``key`` (``"provider"`` or ``"provider/model-id"``); ``None`` removes it.

        Raises:
            TypeError: ``limit`` is not a :class:`RateLimit`.
        """
        if limit is None:
            self._windows.pop(key, None)
            return
        if not isinstance(limit, RateLimit):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"RateLimiter.set() takes a RateLimit, got {type(limit).__name__}")
        self._windows[key] = _Window(limit, self._clock)

    def limits(self) -> dict[str, RateLimit]:
        """Every key's limit."""
        return {key: window.limit for key, window in self._windows.items()}

    def _window(self, model: Model) -> _Window | None:
        windows = self._windows
        if not windows:
            return None
        return windows.get(f"{model.provider}/{model.id}") or windows.get(model.provider)

    def gate(
        self, model: Model, context: Context, options: StreamOptions
    ) -> tuple[Gate | None, StreamOptions]:
        """The gate of a call of ``model`` (``None``: not limited), and its options.

        The options returned pass each response's headers to the window
        (``on_response``), then to the caller's own ``on_response``.
        """
        window = self._window(model)
        if window is None:
            return None, options
        tokens = estimate_context_tokens(context).tokens if window.limit.tokens else 0

        async def gate() -> Permit:
            return _Permit(window, await window.acquire(tokens))

        own = options.on_response

        def on_response(status: int, headers: Mapping[str, str]) -> object:
            window.observe(headers)
            return own(status, headers) if own is not None else None

        import dataclasses

        return gate, dataclasses.replace(options, on_response=on_response)
