"""An exclusive lock on a file, across processes: one read-change-write at a time.

``pi-sdk keys set`` reads ``keys.json``, adds a key and writes it back; twenty of them at once
would each write what they read, and all but the last key would be lost. :func:`file_lock`
holds an exclusive lock on a side file (``keys.json.lock``) for the whole read-change-write:
``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows. The lock is the kernel's, so a process
that dies releases it; a holder that hangs makes the others give up after ``timeout_s`` with a
message naming the lock file, rather than wait forever.
"""

from __future__ import annotations

import os
import time
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["LockTimeout", "file_lock"]

_POLL_S = 0.02


class LockTimeout(OSError):
    """The lock stayed held by another process for the whole wait."""


def _try_lock(descriptor: int) -> bool:
    if os.name == "nt":  # pragma: no cover - Windows
        import msvcrt

        try:
            msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(descriptor: int) -> None:
    if os.name == "nt":  # pragma: no cover - Windows
        import msvcrt

        msvcrt.locking(descriptor, msvcrt.LK_UNLCK, 1)  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]
        return
    import fcntl

    fcntl.flock(descriptor, fcntl.LOCK_UN)


@contextmanager
def file_lock(path: Path, *, timeout_s: float = 10.0) -> Generator[None]:
    """Hold an exclusive lock on ``path`` (created owner-only, mode 0600) for the block.

    Args:
        path: The lock file; its folder must exist. Its content is never read.
        timeout_s: How long to wait for another holder, in seconds.

    Raises:
        LockTimeout: another process held the lock for ``timeout_s`` (the message names
            ``path``).
        OSError: the lock file cannot be created.
    """
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout_s
        while not _try_lock(descriptor):
            if time.monotonic() >= deadline:
                raise LockTimeout(
                    f"another process has held the lock {path} for {timeout_s:g} s;"
                    " let it finish, then try again"
                )
            time.sleep(_POLL_S)
        try:
            yield
        finally:
            _unlock(descriptor)
    finally:
        os.close(descriptor)
