"""The conformance kit's loopback vendor, read from a raw client socket: every way a reply ends.

The kit measures a provider by what this server sees (requests read, connections, responses in
flight), so each scripted behaviour is checked on the bytes a client receives: a kept reply ends
its chunked body and serves the next request on the same connection; ``"hang"`` stays in flight,
dropping whatever the client sends, until the client closes; ``"close"`` ends the connection
without the last chunk; ``"rst"`` and ``rst_before_headers`` reset it; 204/304 have no body
framing; the script's last reply repeats; a route answers by request.
"""

from __future__ import annotations

import asyncio

import pytest
from pi_sdk_pytest.conformance.loopback import LoopbackServer, Reply, Request, body_reply

REQUEST = (
    b"POST /v1/chat HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
    b'content-length: 7\r\n\r\n{"a":1}'
)


async def _connect(server: LoopbackServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    port = int(server.url.rsplit(":", 1)[1])
    return await asyncio.open_connection("127.0.0.1", port)


async def _head(reader: asyncio.StreamReader) -> str:
    return (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")


async def _eventually(check, deadline_s: float = 5.0) -> None:  # noqa: ANN001
    loop = asyncio.get_running_loop()
    until = loop.time() + deadline_s
    while not check():
        assert loop.time() < until, "the server did not get there"
        await asyncio.sleep(0.005)


async def test_a_kept_reply_ends_its_body_and_serves_the_next_request() -> None:
    async with LoopbackServer() as server:
        server.play(
            Reply(status=200, headers={"content-type": "text/plain"}, parts=(b"Hel", b"", b"lo")),
            Reply(status=201, parts=(b"second",)),
        )
        reader, writer = await _connect(server)
        writer.write(REQUEST)
        assert await _head(reader) == (
            "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-type: text/plain\r\n\r\n"
        )
        assert await reader.readuntil(b"0\r\n\r\n") == b"3\r\nHel\r\n2\r\nlo\r\n0\r\n\r\n"
        chunked = b"POST /b?x=1 HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n"
        chunked += b"2\r\nab\r\n1\r\nc\r\n0\r\n\r\n"
        writer.write(chunked)
        assert await _head(reader) == "HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n"
        assert await reader.readuntil(b"0\r\n\r\n") == b"6\r\nsecond\r\n0\r\n\r\n"
        assert server.received == [
            Request(
                "POST",
                "/v1/chat",
                {"host": "x", "content-type": "application/json", "content-length": "7"},
                b'{"a":1}',
            ),
            Request("POST", "/b?x=1", {"transfer-encoding": "chunked"}, b"abc"),
        ]
        assert (server.connections, server.in_flight, server.open_connections) == (1, 0, 1)
        writer.close()
        await _eventually(lambda: server.open_connections == 0)


async def _hanging(server: LoopbackServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A client connected to a reply that hangs after its first chunk, read up to there."""
    server.play(Reply(parts=(b"partial",), end="hang"))
    reader, writer = await _connect(server)
    writer.write(REQUEST)
    await _head(reader)
    assert await reader.readexactly(12) == b"7\r\npartial\r\n"
    return reader, writer


@pytest.mark.parametrize("sent", [b"x" * 10_000, b""], ids=["10000-bytes", "nothing"])
async def test_a_hanging_reply_stays_in_flight_until_the_client_closes(sent: bytes) -> None:
    async with LoopbackServer() as server:
        _reader, writer = await _hanging(server)
        assert server.in_flight == 1 and not await server.released(0)
        writer.write(sent)  # dropped: the server only waits for the end of the connection
        await writer.drain()
        assert not await server.released(0.2)  # still in flight, whatever the client sent
        assert server.client_closes == 0
        writer.close()
        assert await server.released(0.99)  # a deadline under a second: waited for, not passed
        assert (server.client_closes, server.in_flight, len(server.received)) == (1, 0, 1)
        await _eventually(lambda: server.open_connections == 0)


async def test_a_hanging_reply_is_released_when_the_client_resets_the_connection() -> None:
    # A client that aborts (an RST, as a cancelled HTTP client may) ends the reply as a close
    # does: counted as the client's close.
    import socket
    import struct

    async with LoopbackServer() as server:
        _reader, writer = await _hanging(server)
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()  # RST, not FIN
        assert await server.released(5)
        assert (server.client_closes, server.in_flight) == (1, 0)
        await _eventually(lambda: server.open_connections == 0)


@pytest.mark.parametrize("end", ["hang", "close"])
async def test_a_reply_that_ends_the_connection_sends_no_last_chunk(end: str) -> None:
    # "close" ends it at once; "hang" when the server stops (no client close counted)
    async with LoopbackServer() as server:
        server.play(Reply(parts=(b"cut",), end=end))  # type: ignore[arg-type]
        reader, writer = await _connect(server)
        writer.write(REQUEST)
        await _head(reader)
        if end == "close":
            assert await reader.read() == b"3\r\ncut\r\n"  # then EOF
        else:
            await _eventually(lambda: server.in_flight == 1)
    if end == "hang":
        assert await reader.read() == b"3\r\ncut\r\n"  # then EOF: the stopped server closed
    assert (server.client_closes, server.in_flight) == (0, 0)
    writer.close()


@pytest.mark.parametrize("before_headers", [False, True], ids=["after-the-body", "before-headers"])
async def test_a_reset_reply_resets_the_connection(before_headers: bool) -> None:
    async with LoopbackServer() as server:
        server.play(Reply(parts=(b"cut",), end="rst", rst_before_headers=before_headers))
        reader, writer = await _connect(server)
        writer.write(REQUEST)
        received = b""
        with pytest.raises(ConnectionResetError):
            while chunk := await reader.read(1024):
                received += chunk
        if before_headers:
            assert received == b""  # not one byte of the response
        assert (server.in_flight, server.client_closes) == (0, 0)
        writer.close()


@pytest.mark.parametrize("end", ["close", "hang", "rst"])
async def test_a_bodyless_reply_that_does_not_keep_ends_the_connection_after_its_head(end: str):
    async with LoopbackServer() as server:
        server.play(Reply(status=204, end=end))  # type: ignore[arg-type]
        reader, writer = await _connect(server)
        writer.write(REQUEST)
        assert await reader.read() == b"HTTP/1.1 204 No Content\r\n\r\n"  # then EOF
        assert (server.in_flight, server.client_closes) == (0, 0)
        writer.close()


@pytest.mark.parametrize(("status", "line"), [(204, "204 No Content"), (304, "304 Not Modified")])
async def test_a_bodyless_status_has_no_framing_and_keeps_the_connection(status: int, line: str):
    async with LoopbackServer() as server:
        server.play(
            Reply(status=status, headers={"x-a": "1"}, parts=(b"ignored",)), Reply(parts=(b"ok",))
        )
        reader, writer = await _connect(server)
        writer.write(REQUEST)
        assert await _head(reader) == f"HTTP/1.1 {line}\r\nx-a: 1\r\n\r\n"
        writer.write(REQUEST)
        assert await _head(reader) == "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
        assert await reader.readuntil(b"0\r\n\r\n") == b"2\r\nok\r\n0\r\n\r\n"
        writer.close()


async def test_an_unknown_status_has_the_phrase_unknown() -> None:
    async with LoopbackServer() as server:
        server.play(Reply(status=599, parts=(b"a",)))
        reader, writer = await _connect(server)
        writer.write(REQUEST)
        assert await _head(reader) == "HTTP/1.1 599 Unknown\r\ntransfer-encoding: chunked\r\n\r\n"
        assert await reader.readuntil(b"0\r\n\r\n") == b"1\r\na\r\n0\r\n\r\n"
        writer.close()


@pytest.mark.parametrize("length", [1, 2, 3, 4])
async def test_the_script_plays_in_order_and_its_last_reply_repeats(length: int) -> None:
    async with LoopbackServer() as server:
        server.play(*(Reply(parts=(str(n).encode(),)) for n in range(length)))
        reader, writer = await _connect(server)
        bodies = []
        for _ in range(length + 2):
            writer.write(REQUEST)
            await _head(reader)
            bodies.append(await reader.readuntil(b"0\r\n\r\n"))
        expected = [*range(length), length - 1, length - 1]
        assert bodies == [f"1\r\n{n}\r\n0\r\n\r\n".encode() for n in expected]
        writer.close()


async def test_a_route_answers_each_request_by_its_target() -> None:
    async with LoopbackServer() as server:
        server.route(lambda request: body_reply(request.target.encode(), "text/plain"))
        reader, writer = await _connect(server)
        for target in ("/one", "/two"):
            writer.write(f"GET {target} HTTP/1.1\r\nhost: x\r\n\r\n".encode())
            assert await _head(reader) == (
                "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-type: text/plain\r\n\r\n"
            )
            assert await reader.readuntil(b"0\r\n\r\n") == f"4\r\n{target}\r\n0\r\n\r\n".encode()
        assert [r.body for r in server.received] == [b"", b""]
        writer.close()
