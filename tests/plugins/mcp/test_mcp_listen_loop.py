"""The ``subscriptions/listen`` loop by class: what marks the tools stale, the backoff, the end.

Driven in process with a scripted client and a recorded ``anyio.sleep``: each event and each
gap marks the tools stale; a stream that ends or drops is opened again after 1 s, doubling to at
most 30 s, back to 1 s once a stream opens; a server that refuses the stream is left alone.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp.client.subscriptions import SubscriptionLost
from pi_sdk_mcp import HttpServer
from pi_sdk_mcp._connection import ServerConnection

# One attempt: ("refuse", exc) fails on opening; (n, exc | None) opens, yields n events, then
# raises exc (None: the stream ends).
Attempt = tuple[Any, BaseException | None]


class _Client:
    def __init__(self, attempts: list[Attempt]) -> None:
        self.attempts = attempts
        self.opened: list[dict[str, Any]] = []

    @asynccontextmanager
    async def listen(self, **options: Any) -> AsyncIterator[AsyncIterator[object]]:
        self.opened.append(options)
        events, end = self.attempts.pop(0)
        if events == "refuse":
            assert end is not None
            raise end

        async def stream() -> AsyncIterator[object]:
            for n in range(events):
                yield n
            if end is not None:
                raise end

        yield stream()


async def _run(
    attempts: list[Attempt], monkeypatch: pytest.MonkeyPatch
) -> tuple[list[float], int, _Client]:
    connection = ServerConnection(
        HttpServer(name="s", url="http://127.0.0.1:9/mcp"), sampler=None, on_change=lambda c: None
    )
    stale = 0
    sleeps: list[float] = []
    mark = connection.mark_stale

    def mark_stale() -> None:
        nonlocal stale
        stale += 1
        mark()

    async def sleep(delay: float) -> None:
        sleeps.append(delay)
        if not client.attempts:
            connection._stopping = True  # noqa: SLF001

    client = _Client(attempts)
    monkeypatch.setattr(connection, "mark_stale", mark_stale)
    monkeypatch.setattr(anyio, "sleep", sleep)
    await connection._listen(client)  # type: ignore[arg-type]  # noqa: SLF001
    return sleeps, stale, client


LOST = SubscriptionLost("dropped")


@pytest.mark.parametrize(
    ("attempts", "sleeps", "stale"),
    [
        ([(3, None)], [1.0], 3 + 1),  # each event, then the gap
        ([(0, None)], [1.0], 1),
        ([(2, LOST)], [1.0], 2 + 1),
        ([("refuse", LOST)] * 7, [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0], 7),
        (
            [("refuse", LOST), ("refuse", LOST), (0, None), ("refuse", LOST)],
            [1.0, 2.0, 1.0, 2.0],
            4,
        ),  # fmt: skip
        ([("refuse", LOST), (1, LOST), (0, LOST)], [1.0, 1.0, 1.0], 1 + 2 + 1),
        ([("refuse", ValueError("no listen"))], [], 0),  # refused: notifications only
        ([(2, LOST), ("refuse", RuntimeError("gone"))], [1.0], 3),
        ([(1, ValueError("bad event"))], [], 1),
    ],
    ids=[
        "ends",
        "empty",
        "drops",
        "backoff-capped",
        "reset",
        "reset-after-events",
        "refused",
        "refused-later",
        "fails-inside",
    ],  # fmt: skip
)
async def test_the_listen_loop_marks_stale_backs_off_and_gives_up_on_a_refusal(
    attempts: list[Attempt],
    sleeps: list[float],
    stale: int,
    monkeypatch: pytest.MonkeyPatch,
):
    count = len(attempts)
    slept, marked, client = await _run(list(attempts), monkeypatch)
    assert (slept, marked) == (sleeps, stale)
    assert client.opened == [{"tools_list_changed": True}] * count
    assert client.attempts == []


async def test_a_stopping_connection_does_not_listen(monkeypatch: pytest.MonkeyPatch):
    connection = ServerConnection(
        HttpServer(name="s", url="http://127.0.0.1:9/mcp"), sampler=None, on_change=lambda c: None
    )
    connection._stopping = True  # noqa: SLF001
    client = _Client([(1, None)])
    await connection._listen(client)  # type: ignore[arg-type]  # noqa: SLF001
    assert client.opened == []
