"""PooledTransport: concurrent requests spread over pools, slots freed, connections reused."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

import httpx2
import pytest

from pi_sdk.provider import PooledTransport


class _GatedServer:
    """Answers each request once ``gate`` is set; counts connections; keeps them alive."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.connections = 0
        self.open = 0
        """Connections the client has not closed yet."""
        self.waiting = 0

    async def __aenter__(self) -> _GatedServer:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/"
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.open += 1
        try:
            while await reader.readuntil(b"\r\n\r\n"):
                self.waiting += 1
                await self.gate.wait()
                self.waiting -= 1
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.open -= 1
            writer.close()


async def _burst(
    client: httpx2.AsyncClient, server: _GatedServer, count: int, in_flight: int | None = None
) -> list[str]:
    server.gate.clear()
    calls = [asyncio.ensure_future(client.get(server.url)) for _ in range(count)]
    while server.waiting < (in_flight or count):  # that many requests reached the server at once
        await asyncio.sleep(0.01)
    server.gate.set()
    return [response.text for response in await asyncio.gather(*calls)]


async def test_sequential_requests_reuse_one_connection_of_one_pool():
    transport = PooledTransport(per_pool=4)
    async with _GatedServer() as server, httpx2.AsyncClient(transport=transport) as client:
        server.gate.set()
        for _ in range(5):
            assert (await client.get(server.url)).text == "ok"
        assert transport.pools == 1
        assert server.connections == 1


async def test_concurrent_requests_open_pools_of_per_pool_and_reuse_them():
    transport = PooledTransport(per_pool=3, max_pools=10)
    async with _GatedServer() as server, httpx2.AsyncClient(transport=transport) as client:
        assert await _burst(client, server, 7) == ["ok"] * 7
        assert transport.pools == 3  # 3 + 3 + 1 in flight
        assert server.connections == 7
        # Every slot was freed: the same burst fits in the same pools, on the same connections.
        assert await _burst(client, server, 7) == ["ok"] * 7
        assert transport.pools == 3
        assert server.connections == 7


async def test_beyond_max_pools_the_least_busy_pool_takes_the_request():
    transport = PooledTransport(per_pool=1, max_pools=2)
    async with _GatedServer() as server, httpx2.AsyncClient(transport=transport) as client:
        # Two pools of one connection: the third request waits in one of them, then reuses it.
        assert await _burst(client, server, 3, in_flight=2) == ["ok"] * 3
        assert transport.pools == 2
        assert server.connections == 2


async def test_a_failed_send_frees_its_slot():
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    transport = PooledTransport(per_pool=1, max_pools=3)
    async with httpx2.AsyncClient(transport=transport) as client:
        for _ in range(3):
            with pytest.raises(httpx2.ConnectError):
                await client.get(f"http://127.0.0.1:{port}/")
        assert transport.pools == 1  # each failure gave its slot back: no new pool was needed


@pytest.mark.parametrize("kwargs", [{"per_pool": 0}, {"max_pools": 0}, {"keepalive_expiry": -1}])
def test_limits_below_one_are_refused(kwargs):
    with pytest.raises(ValueError, match="must be >= "):
        PooledTransport(**kwargs)


async def test_a_streamed_body_arrives_whole_and_closing_it_frees_its_slot():
    transport = PooledTransport(per_pool=1, max_pools=5)
    async with _GatedServer() as server, httpx2.AsyncClient(transport=transport) as client:
        server.gate.set()
        for _ in range(3):
            async with client.stream("GET", server.url) as response:
                assert b"".join([chunk async for chunk in response.aiter_bytes()]) == b"ok"
        assert transport.pools == 1  # each closed stream gave its one slot back
        assert server.connections == 1


async def _until(condition: Callable[[], bool], bound_s: float = 10.0) -> bool:
    """Poll ``condition`` until it holds; ``False`` after ``bound_s`` (only a broken build)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + bound_s
    while not condition():
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def test_idle_connections_of_every_pool_are_closed_after_a_burst():
    """After a burst the extra pools sit idle: their connections close after keepalive_expiry."""
    transport = PooledTransport(per_pool=5, max_pools=10, keepalive_expiry=0.2)
    async with _GatedServer() as server, httpx2.AsyncClient(transport=transport) as client:
        assert await _burst(client, server, 40) == ["ok"] * 40
        assert transport.pools == 8 and server.open == 40
        # Sequential calls keep using the first pool; every other pool is idle.
        for _ in range(3):
            assert (await client.get(server.url)).text == "ok"
        assert await _until(lambda: server.open <= 1), f"{server.open} connections still open"
        assert transport.pools <= 1
        # Once everything is idle, the last pool goes too, and the next call opens a new one.
        assert await _until(lambda: server.open == 0), f"{server.open} connections still open"
        assert transport.pools == 0
        assert (await client.get(server.url)).text == "ok"
        assert transport.pools == 1


async def test_a_pool_with_a_request_in_flight_is_kept():
    transport = PooledTransport(per_pool=1, max_pools=3, keepalive_expiry=0.05)
    async with _GatedServer() as server, httpx2.AsyncClient(transport=transport) as client:
        server.gate.set()
        async with client.stream("GET", server.url) as response:
            await asyncio.sleep(0.3)  # six expiry periods with the response open
            assert transport.pools == 1 and server.open == 1
            assert b"".join([chunk async for chunk in response.aiter_bytes()]) == b"ok"
        assert await _until(lambda: server.open == 0)


async def test_aclose_waits_for_the_pools_still_closing_after_their_expiry(monkeypatch):
    """A pool closed by its idle timer is closed in a task: ``aclose`` finishes that task too."""
    closed: list[httpx2.AsyncHTTPTransport] = []
    original = httpx2.AsyncHTTPTransport.aclose

    async def slow_aclose(self: httpx2.AsyncHTTPTransport) -> None:
        await asyncio.sleep(0.1)
        await original(self)
        closed.append(self)

    monkeypatch.setattr(httpx2.AsyncHTTPTransport, "aclose", slow_aclose)
    transport = PooledTransport(keepalive_expiry=0)
    async with _GatedServer() as server:
        server.gate.set()
        async with httpx2.AsyncClient(transport=transport) as client:
            assert (await client.get(server.url)).text == "ok"
            assert await _until(lambda: transport.pools == 0)  # expired: its closing started
            assert closed == []  # ... and is still under way
            await transport.aclose()
            assert len(closed) == 1


async def test_aclose_does_not_raise_when_a_pool_closing_after_its_expiry_fails(monkeypatch):
    """The failure of a background close (a pool expired) is not the caller's ``aclose``'s."""
    closes: list[str] = []
    original = httpx2.AsyncHTTPTransport.aclose

    async def failing_aclose(self: httpx2.AsyncHTTPTransport) -> None:
        closes.append("started")
        await asyncio.sleep(0.05)
        await original(self)
        raise OSError("socket already gone")

    monkeypatch.setattr(httpx2.AsyncHTTPTransport, "aclose", failing_aclose)
    transport = PooledTransport(keepalive_expiry=0)
    async with _GatedServer() as server:
        server.gate.set()
        async with httpx2.AsyncClient(transport=transport) as client:
            assert (await client.get(server.url)).text == "ok"
            assert await _until(lambda: transport.pools == 0)  # expired: its closing started
            assert closes == ["started"]
            assert await transport.aclose() is None  # waits for it, and keeps its error
            assert await _until(lambda: server.open == 0)


async def test_closing_a_body_twice_frees_its_slot_once():
    transport = PooledTransport(per_pool=1, max_pools=5)
    async with _GatedServer() as server, httpx2.AsyncClient(transport=transport) as client:
        server.gate.set()
        response = await client.get(server.url)
        await response.stream.aclose()  # already closed by get(): a second close
        await response.stream.aclose()
        # One slot per pool: two requests at once still need two pools.
        server.gate.clear()
        calls = [asyncio.ensure_future(client.get(server.url)) for _ in range(2)]
        reached = await _until(lambda: server.waiting == 2, bound_s=2.0)
        server.gate.set()
        assert [r.text for r in await asyncio.gather(*calls)] == ["ok"] * 2
        assert reached and transport.pools == 2


async def test_a_pool_busy_again_when_its_idle_timer_fires_is_kept_with_its_request():
    """A pool that went idle (timer started), then took a request that outlives the timer."""
    transport = PooledTransport(per_pool=1, max_pools=3, keepalive_expiry=0.05)
    async with _GatedServer() as server, httpx2.AsyncClient(transport=transport) as client:
        server.gate.set()
        assert (await client.get(server.url)).text == "ok"  # idle now: its expiry timer runs
        async with client.stream("GET", server.url) as response:
            await asyncio.sleep(0.15)  # the timer fires while this request is in flight
            assert transport.pools == 1 and server.open == 1 and server.connections == 1
            assert b"".join([chunk async for chunk in response.aiter_bytes()]) == b"ok"
        assert await _until(lambda: transport.pools == 0 and server.open == 0)


async def test_an_expiry_timer_of_a_pool_already_closed_does_nothing():
    """``aclose`` emptied the pools; a timer that still fires finds its pool gone: no error."""
    transport = PooledTransport(per_pool=1, keepalive_expiry=5)
    async with _GatedServer() as server, httpx2.AsyncClient(transport=transport) as client:
        server.gate.set()
        assert (await client.get(server.url)).text == "ok"
        [pool] = transport._pools  # noqa: SLF001
        await transport.aclose()
        assert transport.pools == 0
        transport._expire(pool)  # noqa: SLF001 - the timer's own call, after the close
        assert transport.pools == 0 and pool.timer is None


class _HeldTransport:
    """Stands in for one ``httpx2.AsyncHTTPTransport`` pool: answers once ``gate`` is set."""

    made: list[dict[str, object]] = []
    gate: asyncio.Event

    def __init__(self, **kwargs: object) -> None:
        self.made.append(kwargs)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        await self.gate.wait()
        return httpx2.Response(200, content=b"ok")

    async def aclose(self) -> None:
        pass


@pytest.mark.parametrize(("count", "pools"), [(50, 1), (51, 2), (1000, 20), (1001, 20)])
async def test_by_default_a_pool_takes_50_requests_and_20_pools_at_most(
    monkeypatch: pytest.MonkeyPatch, count: int, pools: int
):
    _HeldTransport.made = []
    _HeldTransport.gate = asyncio.Event()
    monkeypatch.setattr(httpx2, "AsyncHTTPTransport", _HeldTransport)
    transport = PooledTransport(trust_env=False)
    request = httpx2.Request("GET", "http://models.test/v1/models")
    calls = [asyncio.ensure_future(transport.handle_async_request(request)) for _ in range(count)]
    await asyncio.sleep(0)
    assert transport.pools == pools
    _HeldTransport.gate.set()
    for response in await asyncio.gather(*calls):
        await response.aclose()
    limits = httpx2.Limits(max_connections=50, max_keepalive_connections=50, keepalive_expiry=5.0)
    assert _HeldTransport.made == [{"verify": True, "limits": limits, "proxy": None}] * pools
    await transport.aclose()


async def test_by_default_an_idle_pool_is_closed_after_5_seconds():
    transport = PooledTransport()
    async with _GatedServer() as server, httpx2.AsyncClient(transport=transport) as client:
        server.gate.set()
        assert (await client.get(server.url)).text == "ok"
        [pool] = transport._pools  # noqa: SLF001
        assert pool.timer is not None
        left = pool.timer.when() - asyncio.get_running_loop().time()
        assert 4.5 < left <= 5.0


async def test_by_default_the_proxy_variables_are_obeyed(monkeypatch: pytest.MonkeyPatch):
    """A client given a transport reads no proxy itself: this transport does, unless told not."""
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    async with _GatedServer() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.delenv("http_proxy", raising=False)
        proxy.gate.set()
        async with httpx2.AsyncClient(transport=PooledTransport()) as client:
            assert (await client.get("http://models.invalid/v1/models")).text == "ok"
        assert proxy.connections == 1
        with socket.socket() as probe:  # a port nobody listens on
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        direct = PooledTransport(trust_env=False, per_pool=1)
        async with httpx2.AsyncClient(transport=direct) as client:
            with pytest.raises(httpx2.ConnectError):  # straight to it, not through the proxy
                await client.get(f"http://127.0.0.1:{port}/v1/models")
        assert proxy.connections == 1
