"""The h11 protocol ``pi-sdk serve`` runs (``pi_sdk/_serve/limits.py``), one connection at a time.

The protocol class of :func:`uvicorn_config` is driven in process: a recording transport stands
for the socket and the loop's timers are recorded (the test fires them). The connection cap
(the connection that would go over it answered 503 at once and never read; the one just under
it served), the header timeout (started when a connection opens and again after each response
while the connection stays; a late head closed, with 408 when part of it came; a head that came
whole, a closing connection or a request under way left alone). The same over real sockets, in
a ``pi-sdk serve`` process: ``test_serve_limits.py``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import h11
import pytest

from pi_sdk._serve.limits import ServerLimits, uvicorn_config
from pi_sdk._serve.outcome_log import LOGGER_NAME

BUSY_BODY = b'{"error": "the proxy is at its connection limit; retry"}\n'
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n" % len(BUSY_BODY)
) + BUSY_BODY
LATE_BODY = b'{"error": "the request head did not arrive in time"}\n'
LATE = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n" % len(LATE_BODY)
) + LATE_BODY


class Transport:
    """A socket's transport: records what is written and whether it was closed."""

    def __init__(self) -> None:
        self.written = b""
        self.closed = 0

    def write(self, data: bytes) -> None:
        self.written += data

    def close(self) -> None:
        self.closed += 1

    def is_closing(self) -> bool:
        return self.closed > 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8787)}.get(name)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass


class Timer:
    def __init__(self, delay: float, function: Callable[..., None], args: tuple[Any, ...]):
        self.delay, self.function, self.args, self.cancelled = delay, function, args, False

    def cancel(self) -> None:
        self.cancelled = True

    def fire(self) -> None:
        assert not self.cancelled
        self.function(*self.args)


class Loop:
    """The running loop, with ``call_later`` recorded and a clock of the test's."""

    def __init__(self, real: asyncio.AbstractEventLoop) -> None:
        self.real, self.timers, self.now = real, [], 100.0
        self.timers: list[Timer]

    def call_later(self, delay: float, function: Callable[..., None], *args: Any) -> Timer:
        timer = Timer(delay, function, args)
        self.timers.append(timer)
        return timer

    def time(self) -> float:
        return self.now

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def head_timers(self) -> list[Timer]:
        return [t for t in self.timers if getattr(t.function, "__name__", "") == "_head_late"]


async def _app(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})


class Server:
    def __init__(self, **limits: Any) -> None:
        from uvicorn.server import ServerState

        self.limits = ServerLimits(**limits)
        self.config = uvicorn_config(_app, self.limits, log_level="critical")
        self.config.load()
        self.state = ServerState()
        self.loop = Loop(asyncio.get_running_loop())

    def connect(self) -> tuple[Any, Transport]:
        protocol = self.config.http_protocol_class(self.config, self.state, {}, _loop=self.loop)
        transport = Transport()
        protocol.connection_made(transport)
        return protocol, transport


HEAD = b"GET /x HTTP/1.1\r\nhost: proxy\r\n\r\n"


async def test_a_connection_over_the_cap_is_answered_503_at_once_and_never_read(
    caplog: pytest.LogCaptureFixture,
):
    server = Server(max_connections=2)
    first, _ = server.connect()
    second, second_transport = server.connect()
    assert server.state.connections == {first, second}  # the cap itself is allowed
    assert second_transport.written == b"" and not second_transport.closed
    with caplog.at_level(logging.WARNING, LOGGER_NAME):
        third, transport = server.connect()
    assert transport.written == BUSY and transport.closed == 1
    assert server.state.connections == {first, second}
    assert [r.getMessage() for r in caplog.records if r.name == LOGGER_NAME] == [
        "refused connections over the cap of 2 (503, closed) (1 since the last report)"
    ]
    assert len(server.loop.head_timers()) == 2  # no head awaited from the refused one
    third.data_received(HEAD)  # arrives anyway: not read, not answered
    for _ in range(10):
        await asyncio.sleep(0)  # (an app run for it would answer by now)
    assert transport.written == BUSY and transport.closed == 1
    assert third.conn.their_state is h11.IDLE  # nothing parsed: no request, no app run
    third.connection_lost(None)
    assert transport.closed == 1 and server.state.connections == {first, second}


async def test_a_head_that_does_not_come_in_time_closes_the_connection():
    server = Server(header_timeout_s=3.5, max_connections=10)
    _, silent = server.connect()
    partial, slow = server.connect()
    [silent_timer, slow_timer] = server.loop.head_timers()
    assert (silent_timer.delay, slow_timer.delay) == (3.5, 3.5)
    partial.data_received(b"GET /x HTTP/1.1\r\nhost: pro")
    silent_timer.fire()
    assert (silent.written, silent.closed) == (b"", 1)  # nothing came: closed, nothing said
    slow_timer.fire()
    assert (slow.written, slow.closed) == (LATE, 1)  # part of a head came: 408 first


async def test_a_late_head_timer_leaves_a_closing_connection_alone():
    server = Server(max_connections=10)
    _, transport = server.connect()
    [timer] = server.loop.head_timers()
    transport.close()
    timer.fire()
    assert (transport.written, transport.closed) == (b"", 1)


async def test_a_whole_head_stops_the_timer_and_a_response_starts_it_again():
    server = Server(header_timeout_s=2.0, max_connections=10)
    protocol, transport = server.connect()
    [timer] = server.loop.head_timers()
    protocol.data_received(HEAD)
    assert timer.cancelled  # the head is whole: the request is the app's now
    for _ in range(20):
        await asyncio.sleep(0)
        if b"204" in transport.written:
            break
    assert transport.written.startswith(b"HTTP/1.1 204 ")
    assert not transport.closed
    again = server.loop.head_timers()
    assert len(again) == 2 and again[1].delay == 2.0 and not again[1].cancelled
    again[1].fire()  # the next head never came
    assert transport.closed == 1


async def test_a_late_timer_leaves_a_request_under_way_alone():
    server = Server(max_connections=10)
    protocol, transport = server.connect()
    [timer] = server.loop.head_timers()
    protocol.conn.receive_data(HEAD)  # the head is read by h11 but the timer not yet stopped
    protocol.conn.next_event()
    timer.fire()
    assert (transport.written, transport.closed) == (b"", 0)


async def test_refusals_are_reported_at_most_once_every_10_seconds(
    caplog: pytest.LogCaptureFixture,
):
    server = Server(max_connections=1)
    server.connect()
    with caplog.at_level(logging.WARNING, LOGGER_NAME):
        for now in (100.0, 105.0, 109.99, 110.0, 119.0, 120.0):
            server.loop.now = now
            server.connect()
    said = [r.getMessage() for r in caplog.records if r.name == LOGGER_NAME]
    what = "refused connections over the cap of 1 (503, closed)"
    assert said == [
        f"{what} (1 since the last report)",  # at 100 s
        f"{what} (3 since the last report)",  # at 110 s: 105, 109.99 and 110
        f"{what} (2 since the last report)",  # at 120 s
    ]


@pytest.mark.parametrize(("idle_s", "keep_alive"), [(0.4, 1), (1.0, 1), (1.6, 2), (7.0, 7)])
def test_the_idle_timeout_is_uvicorns_keep_alive_in_whole_seconds_at_least_1(
    idle_s: float, keep_alive: int
):
    config = uvicorn_config(_app, ServerLimits(idle_timeout_s=idle_s, max_connections=5))
    assert config.timeout_keep_alive == keep_alive
    assert config.access_log is False  # the app logs each request's real outcome
