"""Run an ASGI app under a real uvicorn server on a loopback port, inside the test's event loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

__all__ = ["uvicorn_serving"]


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
