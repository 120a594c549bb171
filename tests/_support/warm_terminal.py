"""``python -m MODULE ARGS`` in a pseudo-terminal, forked from the warm server (``warm_cli``).

A cold ``pexpect.spawn`` of ``pi-sdk chat`` spends most of its time importing the vendor SDK;
:class:`WarmTerminal` opens the pseudo-terminal here (the window size set on it), has the warm
server fork the child on its other end (the child leads a session of its own whose controlling
terminal it is, as ``pexpect.spawn`` makes it: ``cli_forkserver.py``), and talks to it through
``pexpect``'s ``fdspawn``: the part of ``pexpect.spawn`` the CLI tests use (``expect``,
``sendline``, ``sendeof``, ``before``/``after``/``match``, ``logfile_read``, ``close``,
``exitstatus``, ``signalstatus``).

Not Ctrl-C: a forked child did not always die of the terminal's Ctrl-C (stop 39's fresh-clone
run), so :meth:`WarmTerminal.sendintr` refuses, and a test that sends it asks for a fresh
interpreter (``_support.cli.spawn(..., interrupts=True)``).
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import termios
from typing import Any

from pexpect.fdpexpect import fdspawn

from _support.warm_cli import WarmServer

__all__ = ["WarmTerminal"]

_CLOSE_WAIT_S = 5.0
"""How long a child may take to end after its terminal closes (the hangup) before SIGKILL."""


class WarmTerminal(fdspawn):
    """A child of ``server`` running ``python -m MODULE ARGS`` on a new pseudo-terminal."""

    def __init__(
        self,
        server: WarmServer,
        args: list[str],
        env: dict[str, str],
        *,
        module: str = "pi_sdk._cli",
        timeout: float = 20,
        dimensions: tuple[int, int] = (50, 200),
    ) -> None:
        master, child_end = pty.openpty()
        try:
            rows, columns = dimensions
            fcntl.ioctl(child_end, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
            self.pid, self._reader, self._conn = server.start(
                args, env, [child_end] * 3, module=module, terminal=True
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(child_end)  # the child's end is the child's only: its exit is our EOF
        super().__init__(master, timeout=timeout, encoding="utf-8")
        self.args = [module, *args]
        self.exitstatus: int | None = None
        self.signalstatus: int | None = None

    def sendeof(self) -> None:
        """The terminal's end-of-file character (Ctrl-D), as ``pexpect.spawn.sendeof``."""
        eof: Any = termios.tcgetattr(self.child_fd)[6][termios.VEOF]
        self.send(eof.decode() if isinstance(eof, bytes) else chr(eof))

    def sendintr(self) -> None:
        raise AssertionError(
            "Ctrl-C goes to a fresh interpreter: spawn(..., interrupts=True) (_support.cli)"
        )

    def wait(self) -> int:
        """The child's return code (negative: the signal that ended it), once it has ended."""
        if self.exitstatus is None and self.signalstatus is None:
            code = int(self._reader.readline())
            self._reader.close()
            self._conn.close()
            if code < 0:
                self.signalstatus = -code
            else:
                self.exitstatus = code
        return self.exitstatus if self.exitstatus is not None else -(self.signalstatus or 0)

    def isalive(self) -> bool:
        return self.exitstatus is None and self.signalstatus is None and not self.closed

    def close(self, force: bool = True) -> None:
        """Close the terminal (a hangup for the child), then wait for the child's end;
        ``force``: SIGKILL it if it has not ended within 5 s."""
        super().close()
        if self.exitstatus is None and self.signalstatus is None and force:
            ended, _, _ = select.select([self._conn], [], [], _CLOSE_WAIT_S)
            if not ended:
                os.kill(self.pid, signal.SIGKILL)
        self.wait()
