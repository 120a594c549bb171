"""A reader that leaves early (``pi-sdk prompt --json ... | head -3``) ends the command quietly.

Once ``head`` has read its lines and exited, the next write to stdout raises
:class:`BrokenPipeError` (Python ignores ``SIGPIPE``). Without care that is a traceback from the
Agent's listener log for each event, then another when the interpreter flushes stdout at exit.
Instead:

* :class:`PipeGuard` wraps the Agent listener that writes to stdout: at the first broken pipe it
  aborts the run (nobody reads the answer: stop paying for it), points stdout at the null
  device and drops the events that follow;
* :func:`silence_stdout` points stdout at the null device, so that nothing written later (the
  interpreter's flush at exit included) fails again; :func:`pi_sdk._cli.main` calls it for a
  broken pipe in any command (``pi-sdk models | head -1``).

The command then ends with :data:`EXIT_BROKEN_PIPE` (141, 128 + ``SIGPIPE``: what a shell
reports for a writer that ``SIGPIPE`` ended), and writes nothing to stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from pi_sdk._wire.agent_types import AgentEvent

__all__ = ["EXIT_BROKEN_PIPE", "PipeGuard", "silence_stdout"]

EXIT_BROKEN_PIPE = 141
"""Exit status when stdout's reader went away: 128 + ``SIGPIPE`` (13), as a shell reports."""


def silence_stdout() -> None:
    """Point stdout at the null device (its reader is gone); later writes and flushes succeed."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's capture)
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, descriptor)
    finally:
        os.close(null)


class PipeGuard:
    """An Agent listener writing to stdout, stopped (and the run aborted) when its reader goes.

    Args:
        listener: The listener that writes to stdout (``JsonLines``, ``TurnPrinter``).
        abort: Called once, at the first broken pipe (``agent.abort``).
    """

    def __init__(
        self, listener: Callable[[AgentEvent], None], abort: Callable[[str], None]
    ) -> None:
        self.listener = listener
        self.abort = abort
        self.closed = False
        """Whether stdout's reader went away (the command ends with :data:`EXIT_BROKEN_PIPE`)."""

    def __call__(self, event: AgentEvent) -> None:
        """Hand ``event`` to the listener, unless stdout is gone."""
        if self.closed:
            return
        try:
            self.listener(event)
        except BrokenPipeError:
            self.closed = True
            silence_stdout()
            self.abort("stdout was closed by its reader")
