"""A note when a model is slow to answer: ``pi-sdk prompt`` and ``chat`` are never silent for long.

Between a turn's start (the request is about to be sent) and the first streamed piece of the
answer, nothing else would show: a reasoning model can think for minutes before its first
token, and a retry's wait is already said by the retry notes. :class:`WaitNotes` says, after
10 s without any part of the answer, then after 20, 40, ... s, ``"anthropic/claude-sonnet-4-5:
no answer yet after 10 s (Ctrl-C aborts)"``. It is an agent listener; its timer lives on the
run's event loop and is cancelled by the first ``message_update``, the end of the assistant's
message or of the run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

__all__ = ["WaitNotes"]


class WaitNotes:
    """Agent listener: tell ``note`` when a turn's answer has not started after ``after_s``.

    Args:
        note: Prints one line (the CLI's stderr notes).
        model: The ``PROVIDER/ID`` the notes name (asked when one is printed: chat's ``/model``
            may have switched it).
        after_s: Seconds before the first note; each later note comes when the wait doubled.
        call_later: Schedules ``callback(arg)`` in ``delay`` seconds and returns a handle with
            ``cancel()`` (default: the running loop's ``call_later``).
    """

    def __init__(
        self,
        note: Callable[[str], object],
        model: Callable[[], str],
        *,
        after_s: float = 10.0,
        call_later: Callable[..., Any] | None = None,
    ) -> None:
        self._note = note
        self._model = model
        self._after_s = after_s
        self._call_later = call_later
        self._timer: Any = None
        self._waited_s = 0.0

    def __call__(self, event: Any) -> None:
        """Start the clock at ``turn_start``; stop it at the first sign of the answer."""
        kind = event.type
        if kind == "turn_start":
            self._stop()
            self._waited_s = 0.0
            self._arm(self._after_s)
        elif (
            kind == "message_update"
            or kind == "agent_end"
            or (kind == "message_end" and getattr(event.message, "role", None) == "assistant")
        ):
            self._stop()

    def _arm(self, delay_s: float) -> None:
        schedule = self._call_later or asyncio.get_running_loop().call_later
        self._timer = schedule(delay_s, self._fire, delay_s)

    def _fire(self, delay_s: float) -> None:
        self._waited_s += delay_s
        self._note(f"{self._model()}: no answer yet after {self._waited_s:.0f} s (Ctrl-C aborts)")
        self._arm(self._waited_s)  # the next note when the total wait has doubled

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
