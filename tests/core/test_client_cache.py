"""pi_sdk.provider: ClientCache, shared_in_thread and ResponseBody (core, vendor-neutral)."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import AsyncIterator

import pytest

from pi_sdk._stream.response_body import ResponseBody
from pi_sdk.provider import ClientCache, ProviderError, shared_in_thread


class FakeClient:
    def __init__(self, name: str) -> None:
        self.name = name
        self.closed = False


async def _close(client: FakeClient) -> None:
    client.closed = True


async def _get(cache: ClientCache[FakeClient], key: str, secret: str | None = None) -> FakeClient:
    async with cache.lease(key, lambda: FakeClient(key), secret=secret) as client:
        return client


async def test_one_client_per_key_and_secret_and_no_secret_kept() -> None:
    cache: ClientCache[FakeClient] = ClientCache(_close)
    first = await _get(cache, "https://a", "sk-secret-1")
    assert await _get(cache, "https://a", "sk-secret-1") is first
    assert await _get(cache, "https://a", "sk-secret-2") is not first
    assert await _get(cache, "https://b", "sk-secret-1") is not first
    assert len(cache) == 3
    kept = repr(cache) + repr(cache._loops)  # pyright: ignore[reportPrivateUsage]
    for clients in cache._loops.values():  # pyright: ignore[reportPrivateUsage]
        kept += repr(list(clients.entries))
    assert "sk-secret" not in kept


async def test_least_recently_used_client_is_evicted_and_closed() -> None:
    cache: ClientCache[FakeClient] = ClientCache(_close, max_per_loop=2)
    a = await _get(cache, "a")
    b = await _get(cache, "b")
    assert await _get(cache, "a") is a  # a is now the most recent
    c = await _get(cache, "c")  # evicts b
    await asyncio.sleep(0)  # the close runs as a task
    assert b.closed and not a.closed and not c.closed
    assert await _get(cache, "b") is not b
    assert len(cache) == 2


async def test_an_evicted_client_in_use_is_closed_after_its_last_lease() -> None:
    cache: ClientCache[FakeClient] = ClientCache(_close, max_per_loop=1)
    async with cache.lease("a", lambda: FakeClient("a")) as a:
        await _get(cache, "b")  # evicts a while it is leased
        await asyncio.sleep(0)
        assert not a.closed
    await asyncio.sleep(0)
    assert a.closed


async def test_aclose_returns_when_a_pushed_out_client_s_close_ends_cancelled() -> None:
    """A vendor client whose close is interrupted (``CancelledError``) while ``aclose`` waits
    for it: the cache's ``aclose`` still returns, the other clients closed."""
    released = asyncio.Event()
    closed: list[str] = []

    async def close(client: FakeClient) -> None:
        if client.name == "a":
            await released.wait()
            raise asyncio.CancelledError  # an interrupted close, not our caller's cancel
        released.set()  # "b" closes during aclose, while a's close still waits
        closed.append(client.name)

    cache: ClientCache[FakeClient] = ClientCache(close, max_per_loop=1)
    await _get(cache, "a")
    await _get(cache, "b")  # pushes a out: its close starts as a task, and waits
    await asyncio.sleep(0)
    assert closed == [] and not released.is_set()
    assert await cache.aclose() is None
    assert closed == ["b"] and len(cache) == 0


async def test_aclose_closes_the_clients_of_the_running_loop() -> None:
    cache: ClientCache[FakeClient] = ClientCache(_close)
    a = await _get(cache, "a")
    await cache.aclose()
    assert a.closed and len(cache) == 0
    assert await _get(cache, "a") is not a


def test_clients_are_per_loop_and_closed_when_the_loop_shuts_down() -> None:
    cache: ClientCache[FakeClient] = ClientCache(_close)

    async def use() -> FakeClient:
        return await _get(cache, "a")

    first = asyncio.run(use())
    second = asyncio.run(use())
    assert first is not second
    assert first.closed and second.closed
    assert len(cache._loops) == 0  # pyright: ignore[reportPrivateUsage]


def test_a_loop_closed_without_shutdown_is_dropped_on_next_use() -> None:
    cache: ClientCache[FakeClient] = ClientCache(_close)

    async def use() -> FakeClient:
        return await _get(cache, "a")

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(use())
    finally:
        loop.close()  # no shutdown_asyncgens(): the cache cannot close its clients
    assert loop in cache._loops  # pyright: ignore[reportPrivateUsage]
    asyncio.run(use())
    gc.collect()
    assert loop not in cache._loops  # pyright: ignore[reportPrivateUsage]


async def test_concurrent_first_leases_share_one_build_off_the_loop() -> None:
    cache: ClientCache[FakeClient] = ClientCache(_close)
    built_in: list[str] = []

    def build() -> FakeClient:
        built_in.append(threading.current_thread().name)
        return FakeClient("a")

    async def use() -> FakeClient:
        async with cache.lease("a", build, secret="k") as client:
            await asyncio.sleep(0)
            return client

    clients = await asyncio.gather(*(use() for _ in range(50)))
    assert all(client is clients[0] for client in clients)
    assert len(built_in) == 1 and built_in[0] != threading.main_thread().name


async def test_a_failed_build_is_not_cached() -> None:
    cache: ClientCache[FakeClient] = ClientCache(_close)

    def broken() -> FakeClient:
        raise ValueError("bad configuration")

    with pytest.raises(ValueError, match="bad configuration"):
        async with cache.lease("a", broken):
            pass
    assert len(cache) == 0
    assert (await _get(cache, "a")).name == "a"


async def test_shared_in_thread_builds_once_off_the_event_loop() -> None:
    calls: list[str] = []

    def factory() -> object:
        calls.append(threading.current_thread().name)
        return object()

    name = "test_client_cache.value"
    values = await asyncio.gather(*(shared_in_thread(name, factory) for _ in range(20)))
    assert all(value is values[0] for value in values)
    assert len(calls) == 1 and calls[0] != threading.main_thread().name
    assert await shared_in_thread(name, factory) is values[0]


# --- ResponseBody -------------------------------------------------------------------------------


class LostConnection(Exception):
    pass


async def _body(parts: list[bytes], *, then: str = "end") -> AsyncIterator[bytes]:
    for part in parts:
        yield part
    if then == "hang":
        await asyncio.Event().wait()
    if then == "lost":
        raise LostConnection("peer reset")
    while then == "forever":
        yield b"x" * 1024


async def test_drain_reads_the_rest_of_a_body_that_ends() -> None:
    body = ResponseBody(_body([b"data: 1\n\n", b"data: 2\n\n", b"tail"]))
    assert await anext(body) == b"data: 1\n\n"
    assert await body.drain() is True
    with pytest.raises(StopAsyncIteration):
        await anext(body)


@pytest.mark.parametrize("then", ["hang", "forever", "lost"])
async def test_drain_gives_up_on_a_body_that_does_not_end(then: str) -> None:
    body = ResponseBody(_body([b"data: 1\n\n"], then=then), transport_errors=(LostConnection,))
    await anext(body)
    assert await body.drain(timeout_s=0.05, limit=16 * 1024) is False


async def test_transport_errors_become_retryable_provider_errors() -> None:
    body = ResponseBody(_body([b"data: 1\n"], then="lost"), transport_errors=(LostConnection,))
    assert await anext(body) == b"data: 1\n"
    with pytest.raises(ProviderError) as caught:
        await anext(body)
    assert caught.value.retryable
    assert "LostConnection: peer reset" in str(caught.value)
    assert not body.ended_on_event_boundary()


async def test_event_boundary() -> None:
    body = ResponseBody(_body([b"data: 1\r\n", b"\r\n"]))
    assert [chunk async for chunk in body] == [b"data: 1\r\n", b"\r\n"]
    assert body.ended_on_event_boundary() and body.received == 11


def test_outside_an_event_loop_a_cache_holds_no_clients() -> None:
    """``len()`` counts the running loop's clients: none when no loop runs (not an error)."""
    cache: ClientCache[FakeClient] = ClientCache(_close)

    async def use() -> int:
        await _get(cache, "a")
        return len(cache)

    assert len(cache) == 0
    assert asyncio.run(use()) == 1
    assert len(cache) == 0


async def test_aclose_waits_for_closes_under_way_and_ignores_a_close_that_fails() -> None:
    gates = {"a": asyncio.Event(), "b": asyncio.Event()}

    async def slow_close(client: FakeClient) -> None:
        await gates[client.name].wait()
        client.closed = True
        raise RuntimeError("close failed")

    cache: ClientCache[FakeClient] = ClientCache(slow_close, max_per_loop=1)
    a = await _get(cache, "a")
    b = await _get(cache, "b")  # pushes a out: its close starts and waits
    closing = asyncio.ensure_future(cache.aclose())
    gates["b"].set()
    for _ in range(5):
        await asyncio.sleep(0)
    assert b.closed and not a.closed
    assert not closing.done()  # a's close is still under way
    gates["a"].set()
    await asyncio.wait_for(closing, 2)  # neither failure is raised
    assert a.closed and len(cache) == 0


async def test_by_default_a_loop_keeps_16_clients() -> None:
    cache: ClientCache[FakeClient] = ClientCache(_close)
    clients = [await _get(cache, f"https://{n}") for n in range(17)]
    await asyncio.sleep(0)  # the close runs as a task
    assert len(cache) == 16
    assert [c.closed for c in clients] == [True] + [False] * 16  # the least recently used


async def test_a_secret_with_undecodable_bytes_from_the_environment_is_a_key_of_its_own() -> None:
    """``os.environ`` hands undecodable bytes over as lone surrogates: still a usable secret."""
    cache: ClientCache[FakeClient] = ClientCache(_close)
    first = await _get(cache, "https://a", "sk-\udcff-1")
    assert await _get(cache, "https://a", "sk-\udcff-1") is first
    assert await _get(cache, "https://a", "sk-\udcfe-1") is not first
    assert len(cache) == 2
