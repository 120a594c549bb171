"""The server's SSE frames, written as they come and several in one write when several are ready.

A call decodes each network read of the vendor's reply into events without waiting in between
(one read often holds dozens of deltas). :class:`FrameWriter` collects the frames of those events
and sends them as one body message as soon as the call waits again (for the vendor's next bytes),
so a frame is never held back while the call is waiting, and a reply of many small events costs
one socket write per vendor read instead of one per event. The bytes the client receives are the
same; only how they are split into writes changes.

At most one write is in flight: :meth:`FrameWriter.add` waits for the previous write when it has
not finished (a client reading slowly), so a slow client slows the call down instead of growing
the server's buffer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["FrameWriter"]


class FrameWriter:
    """Sends SSE frames through an ASGI ``send``, those ready together in one body message.

    Args:
        send: The response's ``send`` (``http.response.start`` already sent).
    """

    def __init__(self, send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        self._send = send
        self._frames: list[bytes] = []
        self._writing: asyncio.Future[None] | None = None
        self._loop = asyncio.get_running_loop()

    async def add(self, frame: bytes) -> None:
        """Queue ``frame``; it is sent once the caller next waits (or at :meth:`drain`).

        Raises:
            Exception: What the previous write raised (the client is gone, for one).
        """
        writing = self._writing
        if writing is not None:
            if not writing.done():
                await writing
            writing.result()  # a failed write fails the next frame, as a direct send would
        if not self._frames:
            self._loop.call_soon(self._flush)
        self._frames.append(frame)

    def _flush(self) -> None:
        if not self._frames:
            return  # sent by drain() already
        body = b"".join(self._frames)
        self._frames = []
        self._writing = asyncio.ensure_future(self._write(body, self._writing))

    async def _write(self, body: bytes, previous: asyncio.Future[None] | None) -> None:
        if previous is not None and not previous.done():
            await asyncio.shield(previous)  # in order; its failure is raised by add() or drain()
        await self._send({"type": "http.response.body", "body": body, "more_body": True})

    async def drain(self) -> None:
        """Send the frames queued so far and wait until every write has finished.

        Raises:
            Exception: What a write raised.
        """
        self._flush()
        writing = self._writing
        if writing is not None:
            await writing
