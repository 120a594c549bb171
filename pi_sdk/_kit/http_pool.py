"""PooledTransport: an httpx2 transport that spreads concurrent requests over several pools.

httpcore2's connection pool re-examines every pooled connection and every in-flight request each
time a request starts or ends, so a pool's CPU cost per request grows with the number of
requests in flight: 4.0, 5.1 and 7.0 ms per stream at 100, 500 and 1,000 concurrent streams, 35%
of it in the pool at 1,000 (issue 16). The vendor SDKs' default limits add to it: openai's and
anthropic's clients keep at most 100 idle connections, so at 1,000 concurrent streams 900 of
them open a new TCP connection each time.

This transport keeps that work flat. Requests go to the first of its pools with fewer than
``per_pool`` requests in flight; when all are that busy it opens another pool (up to
``max_pools``; then the least busy one takes it). Each pool keeps up to ``per_pool`` connections
alive, so under a steady load the connections are reused (each pool is an ordinary
``httpx2.AsyncHTTPTransport`` with its keep-alive rules). A request's slot is released when its
response is closed (or when sending it failed).

httpx2 closes a pool's expired idle connections only when that pool handles a request, and
after a burst the requests go back to the first pool: the others would keep their sockets
forever (573 after a burst of 1,000 streams, in CLOSE_WAIT once the server closed them; issue
31). So a pool that has had no request in flight for ``keepalive_expiry`` seconds is closed, its
connections with it; the next burst opens new pools.

A client given a transport reads no proxy from the environment, so this transport does: a
request whose URL ``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY`` cover (and ``NO_PROXY`` does not)
goes through pools of its own that connect through that proxy
(:mod:`pi_sdk._kit.env_proxy`; ``trust_env=False`` turns it off). With no proxy variable set,
nothing is decided per request.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from types import TracebackType

import httpx2

from pi_sdk._kit.env_proxy import EnvProxies

__all__ = ["PooledTransport"]


class _Pool:
    """One pool, how many of its requests are in flight, and since when it has none."""

    __slots__ = ("busy", "group", "idle_since", "owner", "timer", "transport")

    def __init__(
        self, transport: httpx2.AsyncHTTPTransport, owner: PooledTransport, group: list[_Pool]
    ) -> None:
        self.transport = transport
        self.owner = owner
        self.group = group
        """The pools it is one of: direct connections, or those through one proxy."""
        self.busy = 0
        self.idle_since = 0.0
        """Event-loop time when ``busy`` last dropped to 0."""
        self.timer: asyncio.TimerHandle | None = None
        """The pending expiry check (one at most per pool, however many requests end)."""

    def release(self) -> None:
        """One request of this pool ended; when it was the last, the idle clock starts."""
        self.busy -= 1
        if self.busy == 0:
            self.owner.became_idle(self)


class _Released(httpx2.AsyncByteStream):
    """A response body that frees its pool slot once, when it is closed.

    Iterating it iterates the pool's own body (no generator layer of its own: one frame less
    resumed per chunk, one object less per stream for the cyclic GC to walk).
    """

    def __init__(self, stream: httpx2.AsyncByteStream, pool: _Pool) -> None:
        self._stream = stream
        self._pool: _Pool | None = pool

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._stream.__aiter__()

    async def aclose(self) -> None:
        pool, self._pool = self._pool, None
        try:
            await self._stream.aclose()
        finally:
            if pool is not None:
                pool.release()


class PooledTransport(httpx2.AsyncBaseTransport):
    """Several ``httpx2.AsyncHTTPTransport`` pools behind one transport.

    Args:
        verify: TLS verification (an ``ssl.SSLContext``, a CA bundle path, or a bool), as for
            ``httpx2.AsyncHTTPTransport``.
        per_pool: In-flight requests (and kept-alive connections) per pool before another
            pool is used: the most connections a pool scans on each request.
        max_pools: The most pools; ``per_pool * max_pools`` (default 1,000, openai's and
            anthropic's default ``max_connections``) bounds the connections.
        keepalive_expiry: Seconds an idle connection is kept (httpx2's default: 5). A pool
            with no request in flight for that long is closed, connections and all (a later
            request opens a new one); a busy pool closes its own expired connections on its
            next request, as httpx2 does.
        trust_env: Send requests through the proxy ``HTTPS_PROXY``, ``HTTP_PROXY`` or
            ``ALL_PROXY`` names unless ``NO_PROXY`` covers the host (read once, here; see
            :mod:`pi_sdk._kit.env_proxy`), as httpx2 does for a client without a transport.
            A SOCKS proxy needs the ``socksio`` package (``ImportError`` on the first request
            otherwise, naming it).

    Use: ``httpx2.AsyncClient(transport=PooledTransport(verify=context))``.

    Raises:
        ValueError: ``per_pool`` or ``max_pools`` below 1, or a negative ``keepalive_expiry``.
    """

    def __init__(
        self,
        *,
        verify: ssl.SSLContext | str | bool = True,
        per_pool: int = 50,
        max_pools: int = 20,
        keepalive_expiry: float = 5.0,
        trust_env: bool = True,
    ) -> None:
        if per_pool < 1 or max_pools < 1:
            raise ValueError(f"per_pool and max_pools must be >= 1, not {per_pool}, {max_pools}")
        if keepalive_expiry < 0:
            raise ValueError(f"keepalive_expiry must be >= 0 seconds, not {keepalive_expiry}")
        self._expiry = keepalive_expiry
        self._closing: set[asyncio.Task[None]] = set()
        self._verify = verify
        self._per_pool = per_pool
        self._max_pools = max_pools
        self._limits = httpx2.Limits(
            max_connections=per_pool,
            max_keepalive_connections=per_pool,
            keepalive_expiry=keepalive_expiry,
        )
        self._pools: list[_Pool] = []
        """The pools of direct connections."""
        self._env = EnvProxies.read() if trust_env else None
        self._proxied: dict[str | None, list[_Pool]] = {None: self._pools}
        """The pools per proxy URL (``None``: direct)."""
        self._routes: dict[tuple[str, str, int | None], tuple[str | None, list[_Pool]]] = {}
        """The proxy (and its pools) decided per ``(scheme, host, port)``."""

    @property
    def pools(self) -> int:
        """How many pools are open (direct and through proxies)."""
        return sum(len(group) for group in self._proxied.values())

    def _route(self, url: httpx2.URL) -> tuple[str | None, list[_Pool]]:
        """The proxy ``url`` goes through (``None``: direct) and its pools."""
        key = (url.scheme, url.host, url.port)
        route = self._routes.get(key)
        if route is None:
            assert self._env is not None
            proxy = self._env.proxy_for(*key)
            route = self._routes[key] = (proxy, self._proxied.setdefault(proxy, []))
        return route

    def _pick(self, pools: list[_Pool], proxy: str | None) -> _Pool:
        for pool in pools:
            if pool.busy < self._per_pool:
                return pool
        if len(pools) < self._max_pools:
            transport = httpx2.AsyncHTTPTransport(
                verify=self._verify, limits=self._limits, proxy=proxy
            )
            pools.append(_Pool(transport, self, pools))
            return pools[-1]
        return min(pools, key=lambda pool: pool.busy)

    def became_idle(self, pool: _Pool) -> None:
        """Start ``pool``'s idle clock: it is closed if still idle after ``keepalive_expiry``."""
        loop = asyncio.get_running_loop()
        pool.idle_since = loop.time()
        if pool.timer is None:
            pool.timer = loop.call_later(self._expiry, self._expire, pool)

    def _expire(self, pool: _Pool) -> None:
        """Close ``pool`` if it has been idle for ``keepalive_expiry`` (a timer's call)."""
        pool.timer = None
        if pool.busy or pool not in pool.group:
            return  # in use (its next idle period starts a timer), or already closed
        loop = asyncio.get_running_loop()
        remaining = pool.idle_since + self._expiry - loop.time()
        if remaining > 0:  # it was used, and went idle again, since this timer started
            pool.timer = loop.call_later(remaining, self._expire, pool)
            return
        pool.group.remove(pool)  # no request can pick it from now on
        task = loop.create_task(pool.transport.aclose())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request`` on the first pool with room; the slot is freed when it is closed."""
        if self._env is None:
            pool = self._pick(self._pools, None)
        else:
            proxy, pools = self._route(request.url)
            pool = self._pick(pools, proxy)
        pool.busy += 1
        try:
            response = await pool.transport.handle_async_request(request)
        except BaseException:
            pool.release()
            raise
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        # The pool's own response, its body wrapped: no second Response nor copy of its headers.
        response.stream = _Released(response.stream, pool)
        return response

    async def aclose(self) -> None:
        """Close every pool (and its connections)."""
        pools = [pool for group in self._proxied.values() for pool in group]
        for group in self._proxied.values():
            group.clear()
        for pool in pools:
            if pool.timer is not None:
                pool.timer.cancel()
                pool.timer = None
            await pool.transport.aclose()
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)

    async def __aenter__(self) -> PooledTransport:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc_value: BaseException | None = None,
        traceback: TracebackType | None = None,
    ) -> None:
        await self.aclose()
