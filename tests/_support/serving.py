"""Run an ASGI app under a real uvicorn server on a loopback port, inside the test's event loop."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

__all__ = ["free_port", "serve_command", "uvicorn_serving", "wait_until_up"]


def free_port() -> int:
    """A loopback port nobody listens on (as the system picked it a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def wait_until_up(url: str, process: subprocess.Popen[str]) -> None:
    """Wait until a server process answers HTTP at ``url`` (fail if it exits or takes 15 s)."""
    import httpx2

    async with httpx2.AsyncClient() as client:
        for _ in range(300):
            if process.poll() is not None:
                pytest.fail(f"the server exited: {process.stderr.read()}")  # type: ignore[union-attr]
            try:
                await client.get(url)
                return
            except httpx2.TransportError:
                await asyncio.sleep(0.05)
    pytest.fail("the server did not start listening")


@asynccontextmanager
async def uvicorn_serving(app: Any) -> AsyncIterator[str]:
    """Serve ``app`` on ``127.0.0.1`` (a free port) until the block ends; yields the base URL."""
    import uvicorn

    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", lifespan="off", backlog=1024
    )
    server = uvicorn.Server(config)
    task = asyncio.ensure_future(server.serve())
    while not server.started:
        if task.done():
            task.result()  # the server failed to start: raise its error
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@asynccontextmanager
async def serve_command(
    args: list[str], env: dict[str, str], *, descriptors: int | None = None
) -> AsyncIterator[tuple[str, list[str]]]:
    """``pi-sdk serve --port <free> ARGS`` as a process: yields its URL and, at the end, stderr.

    Args:
        args: The options after ``--port``.
        env: Variables added to this process's environment (the token, the vendor keys).
        descriptors: Lower the server's ``ulimit -n`` to this (POSIX).
    """
    port = free_port()
    command = [sys.executable, "-m", "pi_sdk._cli", "serve", "--port", str(port), *args]

    def limit() -> None:
        if descriptors is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors))

    process = subprocess.Popen(
        command, env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, preexec_fn=limit if descriptors is not None else None,
    )  # fmt: skip
    stderr: list[str] = []
    try:
        url = f"http://127.0.0.1:{port}"
        await wait_until_up(url, process)
        yield url, stderr
    finally:
        process.terminate()
        stderr.append(process.communicate(timeout=30)[1])
