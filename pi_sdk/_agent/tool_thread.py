"""Run a sync tool function in its own daemon thread, awaitable and abandonable.

``asyncio.to_thread`` uses the loop's default executor, whose threads ``asyncio.run`` joins at
shutdown: a sync tool that ignores its abort signal (``time.sleep(20)``) then holds the program
for its whole run after the agent gave up on it. A daemon thread per call is never joined: when
the awaiting task is cancelled (the agent's abort grace period ran out), the thread is left
behind with a logged warning and its eventual result is dropped. The context (contextvars) is
copied into the thread, as ``asyncio.to_thread`` does.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["run_in_daemon_thread"]

logger = logging.getLogger(__name__)


async def run_in_daemon_thread(name: str, function: Callable[..., Any], /, **kwargs: Any) -> Any:
    """Return ``function(**kwargs)`` run in a new daemon thread named after tool ``name``.

    Raises:
        Whatever ``function`` raises; :class:`asyncio.CancelledError` when the awaiting task
        is cancelled (the thread then runs on, left behind, with a WARNING on this logger).
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def deliver(ok: bool, value: Any) -> None:
        if future.done():
            return  # abandoned: the agent no longer waits for this call
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def target() -> None:
        try:
            outcome = (True, context.run(function, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - delivered to the awaiting task
            outcome = (False, exc)
        try:
            loop.call_soon_threadsafe(deliver, *outcome)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass

    thread = threading.Thread(target=target, name=f"pi-sdk tool {name}", daemon=True)
    thread.start()
    try:
        return await future
    except asyncio.CancelledError:
        if thread.is_alive():
            logger.warning(
                "tool %r did not stop after the run was aborted; its thread is left behind"
                " (a sync function cannot be cancelled) and its result will be dropped",
                name,
            )
        raise
