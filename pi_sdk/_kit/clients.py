"""Vendor clients reused across calls: one per event loop and configuration.

Building a vendor SDK client per call costs 30-75 ms of blocking work on the event loop (its TLS
context loads the CA bundle) and opens a new TCP/TLS connection per call (QA trial t17: 35-45
ms/call and 50 connections for 50 calls). Providers keep their clients in a :class:`ClientCache`
instead:

* one cache per provider package, one client per **event loop** (an HTTP connection pool belongs
  to the loop that opened it) and per **configuration** (base URL, auth mode, API key, ...);
* a client is built in a worker thread (constructing an SDK client loads modules, builds pydantic
  schemas, may read credentials), once however many calls ask for it at the same time;
* the API key never appears in a key: pass it as ``secret`` and only a digest is kept, so a
  ``repr`` of the cache or of its keys cannot leak it;
* at most ``max_per_loop`` clients per loop, least recently used first out; a client pushed out
  is closed as soon as no call is using it;
* every client of a loop is closed when the loop shuts down (``asyncio.run`` and
  ``asyncio.Runner`` close async generators before closing the loop; the cache registers one per
  loop for that), and a loop closed without that step is dropped on the next use, so closed loops
  do not keep clients (or themselves) alive.

:func:`shared_in_thread` builds process-wide values once, in a worker thread: a TLS context
(``httpx2.create_ssl_context()``, about 30-70 ms) shared by every client of every provider.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections import OrderedDict
from collections.abc import AsyncGenerator, Awaitable, Callable, Hashable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    import asyncio

__all__ = ["ClientCache", "shared_in_thread"]

T = TypeVar("T")

_shared: dict[str, Any] = {}
_shared_lock = threading.Lock()


async def shared_in_thread(name: str, factory: Callable[[], T]) -> T:
    """Return the process-wide value ``name``, built once by ``factory`` in a worker thread.

    For values that are costly to build and safe to share between threads and event loops, such
    as an ``ssl.SSLContext``. Concurrent first calls build it once (a lock); later calls return
    it without leaving the event loop.

    Args:
        name: The value's name, e.g. ``"httpx2.ssl_context"``; one value per name per process.
        factory: Builds the value; runs in a worker thread, never on the event loop.

    Raises:
        Exception: whatever ``factory`` raises (nothing is stored then; the next call retries).
    """
    try:
        return _shared[name]
    except KeyError:
        import asyncio

        return await asyncio.to_thread(_build_shared, name, factory)


def _build_shared(name: str, factory: Callable[[], T]) -> T:
    with _shared_lock:
        if name not in _shared:
            _shared[name] = factory()
        return _shared[name]


def _digest(secret: str | None) -> bytes | None:
    if secret is None:
        return None
    return hashlib.blake2b(secret.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class _Entry(Generic[T]):
    __slots__ = ("client", "leases", "retired")

    def __init__(self, client: T) -> None:
        self.client = client
        self.leases = 0
        self.retired = False


class _LoopClients(Generic[T]):
    """The clients of one event loop, and the async generator that closes them at shutdown."""

    __slots__ = ("building", "closer", "closing", "entries", "retired")

    def __init__(self) -> None:
        self.entries: OrderedDict[Hashable, _Entry[T]] = OrderedDict()
        self.building: dict[Hashable, asyncio.Task[_Entry[T]]] = {}
        self.retired: list[_Entry[T]] = []
        self.closing: set[asyncio.Task[None]] = set()
        self.closer: AsyncGenerator[None, None] | None = None


class ClientCache(Generic[T]):
    """Vendor clients kept per event loop and configuration (see the module docstring).

    Example:
        ```python
        _CLIENTS: ClientCache[AsyncAnthropic] = ClientCache(lambda client: client.close())

        async with _CLIENTS.lease((base_url, "api_key"), build, secret=api_key) as client:
            response = await client.post(...)
        ```

    Args:
        close: Closes one client (``await close(client)``); errors are ignored.
        max_per_loop: Clients kept per event loop; the least recently used one goes first.
    """

    def __init__(self, close: Callable[[T], Awaitable[object]], *, max_per_loop: int = 16) -> None:
        if max_per_loop < 1:
            raise ValueError("max_per_loop must be at least 1")
        self._close = close
        self._max = max_per_loop
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopClients[T]] = (
            weakref.WeakKeyDictionary()
        )

    def __repr__(self) -> str:
        counts = [len(clients.entries) for clients in list(self._loops.values())]
        return f"ClientCache(loops={len(counts)}, clients={sum(counts)}, max_per_loop={self._max})"

    def __len__(self) -> int:
        """Clients kept for the running event loop (0 outside one)."""
        import asyncio

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return 0
        clients = self._loops.get(loop)
        return len(clients.entries) if clients is not None else 0

    @asynccontextmanager
    async def lease(
        self, key: Hashable, build: Callable[[], T], *, secret: str | None = None
    ) -> AsyncGenerator[T, None]:
        """Use the client for ``(key, secret)`` on the running loop, building it on first use.

        ``async with cache.lease(key, build, secret=api_key) as client:``. Hold the lease for
        the whole call (request and body): a client pushed out of the cache meanwhile is closed
        only after its last lease ends.

        Args:
            key: The configuration that makes a client different (base URL, auth mode,
                options); hashable, and must not contain the API key.
            build: Builds the client. It runs in a worker thread (SDK clients load modules,
                build pydantic schemas or read credentials on construction: 20-130 ms that
                would otherwise stall the event loop); concurrent first leases of one key share
                one build. It must not need the running loop.
            secret: The API key or token; only a digest of it is kept.

        Raises:
            RuntimeError: no running event loop.
            Exception: whatever ``build`` raises (nothing is cached then).
        """
        import asyncio

        loop = asyncio.get_running_loop()
        clients = self._clients(loop)
        full_key = (key, _digest(secret))
        entry = clients.entries.get(full_key)
        if entry is None:
            entry = await self._build(loop, clients, full_key, build)
        else:
            clients.entries.move_to_end(full_key)
        entry.leases += 1
        try:
            yield entry.client
        finally:
            entry.leases -= 1
            if entry.retired and entry.leases == 0 and not loop.is_closed():
                self._close_later(loop, clients, entry)

    async def aclose(self) -> None:
        """Close every client of the running loop now (they are rebuilt on next use)."""
        import asyncio

        loop = asyncio.get_running_loop()
        clients = self._loops.get(loop)
        if clients is not None:
            await self._close_all(clients)

    # -- internals --------------------------------------------------------------------------

    def _clients(self, loop: asyncio.AbstractEventLoop) -> _LoopClients[T]:
        clients = self._loops.get(loop)
        if clients is not None:
            return clients
        # Loops closed without shutting down their async generators: forget their clients.
        for other in [other for other in list(self._loops) if other.is_closed()]:
            self._loops.pop(other, None)
        clients = self._loops[loop] = _LoopClients()
        closer = self._closer(weakref.ref(loop), clients)
        clients.closer = closer
        # Start it: its first step registers it with the loop's async-generator hooks, and
        # the loop's shutdown_asyncgens() will close it, running the finally below.
        step = closer.asend(None)
        try:
            step.send(None)
        except StopIteration:
            pass
        return clients

    async def _closer(
        self, loop_ref: weakref.ref[asyncio.AbstractEventLoop], clients: _LoopClients[T]
    ) -> AsyncGenerator[None, None]:
        try:
            yield
        finally:
            loop = loop_ref()
            if loop is not None and self._loops.get(loop) is clients:
                del self._loops[loop]
            await self._close_all(clients)

    async def _close_all(self, clients: _LoopClients[T]) -> None:
        entries = [*clients.entries.values(), *clients.retired]
        clients.entries.clear()
        clients.retired.clear()
        for entry in entries:
            await self._close_quietly(entry.client)
        if clients.closing:
            import asyncio

            await asyncio.gather(*clients.closing, return_exceptions=True)

    async def _close_quietly(self, client: T) -> None:
        try:
            await self._close(client)
        except Exception:  # noqa: BLE001 - a failing close must not break the caller
            pass

    async def _build(
        self,
        loop: asyncio.AbstractEventLoop,
        clients: _LoopClients[T],
        full_key: Hashable,
        build: Callable[[], T],
    ) -> _Entry[T]:
        import asyncio

        async def insert() -> _Entry[T]:
            try:
                entry = _Entry(await asyncio.to_thread(build))
            finally:
                clients.building.pop(full_key, None)
            clients.entries[full_key] = entry
            while len(clients.entries) > self._max:
                _, old = clients.entries.popitem(last=False)
                self._retire(loop, clients, old)
            return entry

        while True:
            task = clients.building.get(full_key)
            if task is None:
                task = loop.create_task(insert())
                clients.building[full_key] = task
            # Shielded: a caller cancelled meanwhile does not cancel the build others wait for.
            entry = await asyncio.shield(task)
            if not entry.retired:  # (pushed out meanwhile: build again)
                return entry

    def _retire(
        self, loop: asyncio.AbstractEventLoop, clients: _LoopClients[T], entry: _Entry[T]
    ) -> None:
        entry.retired = True
        if entry.leases == 0:
            self._close_later(loop, clients, entry)
        else:
            clients.retired.append(entry)

    def _close_later(
        self, loop: asyncio.AbstractEventLoop, clients: _LoopClients[T], entry: _Entry[T]
    ) -> None:
        if entry in clients.retired:
            clients.retired.remove(entry)
        task = loop.create_task(self._close_quietly(entry.client))
        clients.closing.add(task)
        task.add_done_callback(clients.closing.discard)
