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
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from types import TracebackType

import httpx2

__all__ = ["PooledTransport"]


class _Pool:
    """One pool and how many of its requests are in flight."""

    __slots__ = ("busy", "transport")

    def __init__(self, transport: httpx2.AsyncHTTPTransport) -> None:
        self.transport = transport
        self.busy = 0


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
                pool.busy -= 1


class PooledTransport(httpx2.AsyncBaseTransport):
    """Several ``httpx2.AsyncHTTPTransport`` pools behind one transport.

    Args:
        verify: TLS verification (an ``ssl.SSLContext``, a CA bundle path, or a bool), as for
            ``httpx2.AsyncHTTPTransport``.
        per_pool: In-flight requests (and kept-alive connections) per pool before another
            pool is used: the most connections a pool scans on each request.
        max_pools: The most pools; ``per_pool * max_pools`` (default 1,000, openai's and
            anthropic's default ``max_connections``) bounds the connections.
        keepalive_expiry: Seconds an idle connection is kept (httpx2's default: 5).

    Use: ``httpx2.AsyncClient(transport=PooledTransport(verify=context))``.
    """

    def __init__(
        self,
        *,
        verify: ssl.SSLContext | str | bool = True,
        per_pool: int = 50,
        max_pools: int = 20,
        keepalive_expiry: float = 5.0,
    ) -> None:
        if per_pool < 1 or max_pools < 1:
            raise ValueError(f"per_pool and max_pools must be >= 1, not {per_pool}, {max_pools}")
        self._verify = verify
        self._per_pool = per_pool
        self._max_pools = max_pools
        self._limits = httpx2.Limits(
            max_connections=per_pool,
            max_keepalive_connections=per_pool,
            keepalive_expiry=keepalive_expiry,
        )
        self._pools: list[_Pool] = []

    @property
    def pools(self) -> int:
        """How many pools were opened so far."""
        return len(self._pools)

    def _pick(self) -> _Pool:
        pools = self._pools
        for pool in pools:
            if pool.busy < self._per_pool:
                return pool
        if len(pools) < self._max_pools:
            transport = httpx2.AsyncHTTPTransport(verify=self._verify, limits=self._limits)
            pools.append(_Pool(transport))
            return pools[-1]
        return min(pools, key=lambda pool: pool.busy)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request`` on the first pool with room; the slot is freed when it is closed."""
        pool = self._pick()
        pool.busy += 1
        try:
            response = await pool.transport.handle_async_request(request)
        except BaseException:
            pool.busy -= 1
            raise
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        # The pool's own response, its body wrapped: no second Response nor copy of its headers.
        response.stream = _Released(response.stream, pool)
        return response

    async def aclose(self) -> None:
        """Close every pool (and its connections)."""
        pools, self._pools = self._pools, []
        for pool in pools:
            await pool.transport.aclose()

    async def __aenter__(self) -> PooledTransport:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc_value: BaseException | None = None,
        traceback: TracebackType | None = None,
    ) -> None:
        await self.aclose()
