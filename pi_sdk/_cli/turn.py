"""One agent run that Ctrl-C can abort: the first SIGINT aborts it, a second one leaves.

While the run lasts, SIGINT is handled by the event loop instead of raising
``KeyboardInterrupt`` (which could land anywhere, a listener included): the first one calls
``agent.abort()`` at once, so the model's stream is closed and a running tool gets the abort
signal, then is cancelled after the Agent's ``tool_abort_grace_ms``
(:data:`pi_sdk._cli.setup.TOOL_ABORT_GRACE_MS` in the CLI). A second one cancels the run's
task: the Agent winds the run down and the caller leaves.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

from pi_sdk._agent.agent import Agent

__all__ = ["run_prompt"]


async def run_prompt(
    agent: Agent, text: str, notify: Callable[[str], None], *, second_leaves: bool = True
) -> int:
    """Run ``agent.prompt(text)``; return how many times Ctrl-C was pressed (0, 1 or 2).

    Presses after the second are not counted: the run is cancelled once, and the caller's task
    is left uncancelled (``Task.cancelling()`` back to 0) however often Ctrl-C was pressed.

    ``notify`` gets the line to show when the first Ctrl-C aborts the run; it says that a
    second one leaves only when ``second_leaves`` (``chat``; ``prompt`` ends with the run anyway).
    """
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    presses = 0

    def interrupted() -> None:
        nonlocal presses
        if presses >= 2:  # the run is being cancelled already: a third press changes nothing
            return
        presses += 1
        if presses == 1:
            notify(
                "^C aborting the turn… (Ctrl-C again leaves)" if second_leaves else "^C aborting…"
            )
            agent.abort("interrupted with Ctrl-C")
        elif task is not None:
            task.cancel()

    try:
        loop.add_signal_handler(signal.SIGINT, interrupted)
    except (NotImplementedError, RuntimeError):  # no loop signal handlers (Windows, a thread)
        pass
    try:
        await agent.prompt(text)
    except asyncio.CancelledError:
        if presses < 2 or task is None:
            raise
        task.uncancel()
    finally:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass
    return presses
