"""``ResponseBody`` (``pi_sdk/_stream/response_body.py``) rule by rule: the first bytes, a page
where the stream should be, where a lost connection happened, the event boundary at the end,
and the bounded drain."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from pi_sdk._stream.response_body import DRAIN_TIMEOUT_S, ResponseBody
from pi_sdk.provider import ProviderError


class Lost(Exception):
    pass


class Slow(Lost):
    pass


async def _chunks(parts: list[bytes], error: BaseException | None = None) -> AsyncIterator[bytes]:
    for part in parts:
        yield part
    if error is not None:
        raise error


def _body(parts: list[bytes], error: BaseException | None = None) -> ResponseBody:
    return ResponseBody(_chunks(parts, error), transport_errors=(Lost,), timeout_errors=(Slow,))


async def test_start_skips_empty_chunks_and_keeps_the_first_bytes_for_the_reader() -> None:
    body = _body([b"", b"", b"data: 1\n\n", b"data: 2\n\n"])
    await body.start()
    assert body.received == 9
    await body.start()  # once only
    assert [chunk async for chunk in body] == [b"data: 1\n\n", b"data: 2\n\n"]
    assert body.received == 18


async def test_an_empty_body_starts_and_ends_at_once() -> None:
    body = _body([b"", b""])
    await body.start()
    assert [chunk async for chunk in body] == []
    assert body.received == 0 and body.ended_on_event_boundary()


@pytest.mark.parametrize(
    ("parts", "error", "text"),
    [
        ([], Lost("reset"), "connection closed by the server before the response: Lost: reset"),
        ([], Slow("late"), "timed out waiting for the response: Slow: late"),
        ([b""], Lost("reset"), "connection closed by the server before the response: Lost: reset"),
    ],
)
async def test_a_connection_lost_before_the_first_bytes_is_retryable(
    parts: list[bytes], error: BaseException, text: str
) -> None:
    body = _body(parts, error)
    with pytest.raises(ProviderError) as caught:
        await body.start()
    assert str(caught.value) == text and caught.value.retryable


@pytest.mark.parametrize(
    ("parts", "error", "text"),
    [
        ([b"data: 1\n"], Lost("reset"), "connection lost while reading the response: Lost: reset"),
        ([b"data: 1\n"], Slow("late"), "timed out reading the response: Slow: late"),
        ([], Lost("reset"), "connection closed by the server before the response: Lost: reset"),
    ],
)
async def test_a_connection_lost_while_reading_names_the_phase(
    parts: list[bytes], error: BaseException, text: str
) -> None:
    body = _body(parts, error)
    with pytest.raises(ProviderError) as caught:
        async for _ in body:
            pass
    assert str(caught.value) == text and caught.value.retryable


@pytest.mark.parametrize(
    ("content_type", "first", "page"),
    [
        ("text/html", b"<html>portal</html>", "text/html"),
        ("Text/HTML; charset=utf-8", b"portal", "text/html"),  # media type only, any case
        ("application/xhtml+xml", b"x", "application/xhtml+xml"),
        ("text/xml", b"x", "text/xml"),
        ("application/xml", b"x", "application/xml"),
        (None, b"  <html>portal", "no content type"),  # markup by its first byte
        ("text/plain", b"<p>portal</p>", "text/plain"),
        ("text/event-stream", b"<weird", None),  # a stream type is trusted
        ("application/json", b"<weird", None),
        (None, b"data: 1\n\n", None),
        ("text/plain", b"data: <b>", None),
    ],
)
async def test_a_page_where_the_stream_should_be_is_named(
    content_type: str | None, first: bytes, page: str | None
) -> None:
    body = _body([first])
    await body.start()
    if page is None:
        body.check_content(content_type)
        return
    with pytest.raises(ProviderError) as caught:
        body.check_content(content_type, status=203, expected="an event stream")
    assert str(caught.value).startswith(
        f"the server answered 203 with {page}, not an event stream:"
    )
    assert not caught.value.retryable


@pytest.mark.parametrize(
    ("parts", "boundary"),
    [
        ([b"data: 1\n\n"], True),
        ([b"data: 1\r\r"], True),
        ([b"data: 1\r\n\r\n"], True),
        ([b"data: 1\n\r\n"], True),
        ([b"data: 1\n", b"\n"], True),  # the blank line split over two chunks
        ([b"data: 1\r\n\r", b"\n"], True),
        ([b"data: 1\n\n", b""], True),  # an empty chunk changes nothing
        ([b"data: 1\n"], False),
        ([b"data: 1\r\n"], False),
        ([b"data: 1\n\nda"], False),
        ([b"\n\n", b"x"], False),
    ],
)
async def test_the_body_ends_on_an_event_boundary(parts: list[bytes], boundary: bool) -> None:
    body = _body(parts)
    assert b"".join([chunk async for chunk in body]) == b"".join(parts)
    assert body.ended_on_event_boundary() is boundary
    assert body.received == sum(map(len, parts))


@pytest.mark.parametrize(("rest", "ended"), [(8, True), (9, False)])
async def test_drain_reads_up_to_its_limit_and_no_further(rest: int, ended: bool) -> None:
    body = _body([b"data: 1\n\n", b"x" * 4, b"y" * (rest - 4)])
    assert await anext(body) == b"data: 1\n\n"
    assert await body.drain(limit=8) is ended


async def test_drain_gives_up_at_its_time_limit_and_never_raises() -> None:
    async def hang() -> AsyncIterator[bytes]:
        yield b"data: 1\n\n"
        await asyncio.Event().wait()
        yield b""  # pragma: no cover

    body = ResponseBody(hang())
    await anext(body)
    assert await body.drain(timeout_s=0.01) is False
    lost = _body([b"data: 1\n\n"], Lost("reset"))
    await anext(lost)
    assert await lost.drain() is False


async def test_drain_discards_the_first_bytes_not_yet_read() -> None:
    body = _body([b"data: 1\n\n"])
    await body.start()
    assert await body.drain() is True
    assert [chunk async for chunk in body] == []


async def test_start_after_the_body_began_reads_nothing() -> None:
    body = _body([b"data: 1\n\n"], Lost("reset"))
    await body.start()
    assert await anext(body) == b"data: 1\n\n"
    await body.start()  # already started: no read (the next read, and its failure, are the body's)
    with pytest.raises(ProviderError, match="^connection lost while reading the response"):
        await anext(body)


async def test_drain_by_default_waits_its_documented_bound_for_a_rest_that_comes_in_turns() -> None:
    # The rest comes over several turns of the loop (the transport reading it): within the
    # default bound (DRAIN_TIMEOUT_S, 0.1 s: what a server that keeps the connection costs).
    async def in_turns() -> AsyncIterator[bytes]:
        yield b"data: 1\n\n"
        for part in (b"0\r\n", b"\r\n"):
            await asyncio.sleep(0)
            yield part

    body = ResponseBody(in_turns())
    await anext(body)
    assert DRAIN_TIMEOUT_S == 0.1
    assert await body.drain() is True


@pytest.mark.parametrize(("rest", "ended"), [(64 * 1024, True), (64 * 1024 + 1, False)])
async def test_drain_by_default_reads_up_to_64_kib_and_no_further(rest: int, ended: bool) -> None:
    # DRAIN_LIMIT_BYTES, 64 KiB: at the bound the body still ends (the connection is kept),
    # one byte past it the connection is given up.
    body = _body([b"data: 1\n\n", b"x" * (rest - 1), b"y"])
    assert await anext(body) == b"data: 1\n\n"
    assert await body.drain() is ended
