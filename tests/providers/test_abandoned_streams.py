"""A consumer that breaks out of a stream and drops it leaks nothing, on every API (issue 15.1).

``async for event in pi_sdk.stream(...): break``, then no reference left: the stream is freed and
the event loop closes it in order, so its HTTP response is closed (the server sees the client
close the connection), with the default timeout on (its watchdog must not keep the stream alive)
and with none, and nothing is reported: no warning, no "Task exception was never retrieved", no
"aclose(): asynchronous generator is already running", no unraisable exception. The same for an
``agent_loop`` event stream dropped mid-reply. The server hangs after the first events, so only
the client closing the connection ends each reply.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import warnings
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from _support.loopback import APIS, LoopbackServer, model_at, sse_step, text_events

import pi_sdk
from pi_sdk.agent import AgentContext, AgentLoopConfig, agent_loop

BREAKS = 100
"""Streams broken out of per test (the no-timeout variant: :data:`FEWER_BREAKS`)."""
FEWER_BREAKS = 20
KEY = "test-key-abandoned"


def _hanging_reply(api: str) -> Any:
    body, _terminal = text_events(api, ["Hel", "lo", " there"])
    return sse_step(body, end="hang")


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@contextmanager
def _reports() -> Iterator[list[str]]:
    """Everything asyncio, ``warnings`` and the unraisable hook would print, as text."""
    seen: list[str] = []
    loop = asyncio.get_running_loop()
    previous_handler = loop.get_exception_handler()
    previous_hook = sys.unraisablehook
    loop.set_exception_handler(lambda _loop, context: seen.append(str(context.get("message"))))
    sys.unraisablehook = lambda info: seen.append(f"unraisable: {info.exc_value!r}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield seen
            gc.collect()
        finally:
            loop.set_exception_handler(previous_handler)
            sys.unraisablehook = previous_hook
    seen.extend(str(w.message) for w in caught)


async def _until(condition: Callable[[], bool]) -> None:
    """Let the event loop run until ``condition()`` holds (at most 10 s, then give up)."""
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.01)


async def _break_out(
    api: str,
    timeout_ms: float | None,
    drop: Callable[[Any, float | None], Awaitable[None]],
    breaks: int = BREAKS,
) -> None:
    async with LoopbackServer([_hanging_reply(api)]) as server:
        model = model_at(api, server.url)
        with _reports() as reports:
            await drop(model, timeout_ms)  # warm-up: the client and its pool exist from here
            await _until(lambda: server.client_closes == 1)
            fds = _open_fds()
            for _ in range(breaks - 1):
                await drop(model, timeout_ms)
            await _until(lambda: server.client_closes == breaks)
            await asyncio.sleep(0.05)  # anything scheduled by the closes has run
        assert server.connections == breaks
        assert server.client_closes == breaks, "responses left open"
        assert server.open_connections == 0
        assert _open_fds() <= fds, "client file descriptors grew"
        assert reports == []


async def _break_stream(model: Any, timeout_ms: float | None) -> None:
    options = pi_sdk.StreamOptions(api_key=KEY, max_retries=0, timeout_ms=timeout_ms)
    events = pi_sdk.stream(
        model, pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")]), options
    )
    async for event in events:
        if event.type == "text_delta":
            break
    else:
        pytest.fail("the reply's text never arrived")


async def _break_temporary(model: Any, timeout_ms: float | None) -> None:
    options = pi_sdk.StreamOptions(api_key=KEY, max_retries=0, timeout_ms=timeout_ms)
    context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
    async for event in pi_sdk.stream(model, context, options):  # no name for the stream at all
        if event.type == "text_delta":
            break


async def _break_agent(model: Any, timeout_ms: float | None) -> None:
    config = AgentLoopConfig(model=model, api_key=KEY, max_retries=0, timeout_ms=timeout_ms)
    prompt = pi_sdk.UserMessage(content="hi")
    async for event in agent_loop([prompt], AgentContext(), config):
        if event.type == "message_update":
            break
    else:
        pytest.fail("the reply never arrived")


@pytest.mark.parametrize("api", APIS)
async def test_break_closes_the_response_with_the_default_timeout(api: str) -> None:
    await _break_out(api, pi_sdk.StreamOptions().timeout_ms, _break_stream)


@pytest.mark.parametrize("api", APIS)
async def test_break_out_of_an_unnamed_stream_closes_it_without_a_timeout(api: str) -> None:
    await _break_out(api, None, _break_temporary, FEWER_BREAKS)


@pytest.mark.parametrize("api", APIS)
async def test_break_out_of_an_agent_loop_closes_the_model_response(api: str) -> None:
    await _break_out(api, pi_sdk.StreamOptions().timeout_ms, _break_agent)


async def test_a_dropped_agent_loop_ends_its_run_as_cancelled() -> None:
    """The run of a dropped agent stream is cancelled, quietly; one kept alive runs on."""
    api = APIS[0]
    async with LoopbackServer([_hanging_reply(api)]) as server:
        config = AgentLoopConfig(model=model_at(api, server.url), api_key=KEY, max_retries=0)
        with _reports() as reports:
            kept = agent_loop([pi_sdk.UserMessage(content="hi")], AgentContext(), config)
            async for event in kept:
                if event.type == "message_update":
                    break
            await asyncio.sleep(0.05)
            assert server.client_closes == 0  # still referenced: the run goes on
            task = kept._task  # pyright: ignore[reportPrivateUsage]
            del kept, event
            await _until(task.done)
            assert task.done() and not task.cancelled()  # the run caught its cancellation
            await _until(lambda: server.client_closes == 1)
        assert server.client_closes == 1
        assert reports == []
