"""Abort signals: the caller holds a controller, calls take its signal (pi-mono ``AbortSignal``).

``AbortController().signal`` is passed in ``StreamOptions.signal``; ``controller.abort()`` ends the
call with ``stop_reason == "aborted"`` and the partial content kept. Abort may be called from any
thread; callbacks run on the event loop that registered them.

``asyncio`` is imported by the first callback, wait or abort, not with this module: the options
of a call name the signal type, and a program that only builds them need not pay for asyncio
(first use, issue 32 item 2).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

__all__ = ["AbortController", "AbortSignal"]


class AbortSignal:
    """Read side of an abort: ``aborted``, ``reason``, ``await wait()`` and callbacks."""

    __slots__ = ("_aborted", "_callbacks", "_lock", "reason")

    def __init__(self) -> None:
        self._aborted = False
        self.reason: str | None = None
        self._callbacks: list[tuple[asyncio.AbstractEventLoop | None, Callable[[], None]]] = []
        self._lock = threading.Lock()

    @property
    def aborted(self) -> bool:
        """True once the controller has aborted."""
        return self._aborted

    def add_callback(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` on abort (at once if already aborted). Returns a remover."""
        import asyncio

        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        entry = (loop, callback)
        with self._lock:
            if not self._aborted:
                self._callbacks.append(entry)
                return lambda: self._remove(entry)
        callback()
        return lambda: None

    def _remove(self, entry: tuple[asyncio.AbstractEventLoop | None, Callable[[], None]]) -> None:
        with self._lock:
            if entry in self._callbacks:
                self._callbacks.remove(entry)

    async def wait(self) -> None:
        """Return once aborted."""
        if self._aborted:
            return
        import asyncio

        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not future.done():
                future.set_result(None)

        remove = self.add_callback(wake)
        try:
            await future
        finally:
            remove()

    def _fire(self, reason: str | None) -> None:
        with self._lock:
            if self._aborted:
                return
            self._aborted = True
            self.reason = reason
            callbacks, self._callbacks = self._callbacks, []
        import asyncio

        for loop, callback in callbacks:
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if loop is None or loop is running or loop.is_closed():
                callback()
            else:
                loop.call_soon_threadsafe(callback)


class AbortController:
    """Write side of an abort. ``abort()`` is idempotent and never raises."""

    __slots__ = ("signal",)

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: str | None = None) -> None:
        """Abort every call that holds ``self.signal``."""
        self.signal._fire(reason)  # pyright: ignore[reportPrivateUsage]
