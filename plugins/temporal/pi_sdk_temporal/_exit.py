"""Keep the interpreter from finalizing while temporalio's native threads run Python code.

temporalio's Rust bridge hands the result of every awaited call (an RPC, a poll, the worker's
``finalize_shutdown``) to asyncio from a thread of its own Tokio pool: the thread attaches to
the interpreter and calls the loop's ``call_soon_threadsafe``, whose wake-up write releases the
GIL. The woken main thread can finish the program and start finalizing before that thread takes
the GIL back. On Python < 3.14 a thread that takes the GIL during finalization is ended with
``pthread_exit``; unwinding through the bridge's frames releases a thread state that is not
current, and CPython aborts: ``Fatal Python error: PyGILState_Release: thread state ... must be
current when releasing`` (SIGABRT, sometimes SIGSEGV or SIGBUS), after the program's output.
temporalio has no way to stop its runtime's threads from Python (temporalio/sdk-python#300).

The fix: an :mod:`atexit` hook (atexit runs before finalization starts) that waits, releasing
the GIL, until no thread the :mod:`threading` module does not know is inside Python. A thread
waiting to attach is harmless: pyo3 parks it instead of letting it unwind.
"""

from __future__ import annotations

import atexit
import functools
import sys
import threading
import time

__all__ = ["EXIT_WAIT_S", "native_threads_in_python", "settle_native_threads", "settle_at_exit"]

EXIT_WAIT_S = 5.0
"""The longest the exit hook waits (s); then the interpreter finalizes anyway."""

_POLL_S = 0.001


def native_threads_in_python() -> set[int]:
    """Ids of the threads in a Python frame that :mod:`threading` did not start or adopt.

    A native thread (temporalio's Tokio pool) is seen only while it runs Python code, which is
    when the interpreter must not finalize under it.
    """
    known = {thread.ident for thread in threading.enumerate()}
    frames = sys._current_frames()  # pyright: ignore[reportPrivateUsage]  # documented in sys
    return set(frames) - known


def settle_native_threads(timeout_s: float = EXIT_WAIT_S) -> bool:
    """Wait until no native thread runs Python code (see :func:`native_threads_in_python`).

    Sleeps in steps of 1 ms, which releases the GIL so that such a thread can finish.

    Args:
        timeout_s: The longest wait, in seconds.

    Returns:
        True once none is left; False if one still was after ``timeout_s``.
    """
    deadline = time.monotonic() + timeout_s
    while native_threads_in_python():
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_S)
    return True


@functools.cache
def settle_at_exit() -> None:
    """Register :func:`settle_native_threads` to run at interpreter exit (once per process).

    Called by :func:`~pi_sdk_temporal.agent_worker` and :class:`~pi_sdk_temporal.AgentRun`,
    so that a program using them exits cleanly however it ends its event loop.
    """
    atexit.register(settle_native_threads)
