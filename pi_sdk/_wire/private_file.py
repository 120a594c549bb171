"""Owner-only files: written atomically, read only when nobody else could have written them.

* :func:`write_atomically` writes a temporary file (mode 0600, from :func:`tempfile.mkstemp`)
  in the target's folder, flushes it to disk and renames it over the target: a reader sees the
  old file or the new one, never half of one (session files, the models store).
* :func:`read_private` reads a file only when it is a regular file of the current user that
  no other user can read or write (on POSIX; Windows has no such modes and skips the checks),
  through a descriptor opened without following a symbolic link, so what is checked is what is
  read.
* :func:`locked` holds an exclusive advisory lock on a sidecar file while a process reads,
  changes and writes a shared file (``flock`` on POSIX, ``msvcrt.locking`` on Windows), so that
  two processes updating one file do not lose each other's change.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["locked", "read_private", "write_atomically"]


def write_atomically(target: Path, text: str, *, what: str = "session") -> None:
    """Write ``text`` (UTF-8, LF line ends) to ``target`` through a temporary file (mode 0600).

    Raises:
        FileNotFoundError: the folder does not exist (nothing is written).
        IsADirectoryError: ``target`` is a folder.
        OSError: the file cannot be written (the previous file, if any, is untouched). Every
            ``OSError`` names ``target``, never the temporary file; messages start with
            ``cannot save <what>``.
    """
    if not target.parent.is_dir():
        raise FileNotFoundError(
            errno.ENOENT,
            f"cannot save {what}: folder {os.fspath(target.parent)!r} does not exist",
            os.fspath(target),
        )
    if target.is_dir():
        raise IsADirectoryError(
            errno.EISDIR, f"cannot save {what}: the target is a folder", os.fspath(target)
        )
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _naming_target(exc, target, what) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException as exc:
        Path(tmp_name).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _naming_target(exc, target, what) from exc
        raise


def _naming_target(exc: OSError, target: Path, what: str) -> OSError:
    """The same kind of error, naming the target instead of the temporary file."""
    if exc.errno is None:  # not a system error: nothing names the temporary file
        return exc
    return type(exc)(exc.errno, f"cannot save {what}: {exc.strerror}", os.fspath(target))


def read_private(path: Path, *, max_bytes: int) -> bytes | None:
    """The bytes of ``path``, or ``None`` when there is no such file.

    Raises:
        PermissionError: the file is not trusted: a symbolic link, not a regular file, owned by
            another user, or readable or writable by group or others (the message says which,
            with the mode in octal).
        OSError: it cannot be read, or it is larger than ``max_bytes`` (``EFBIG``).
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a link
            raise PermissionError(errno.EPERM, "a symbolic link", os.fspath(path)) from None
        raise
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        problem = _untrusted(info)
        if problem:
            raise PermissionError(errno.EPERM, problem, os.fspath(path))
        if info.st_size > max_bytes:
            raise OSError(
                errno.EFBIG, f"larger than {max_bytes:,} bytes ({info.st_size:,})", os.fspath(path)
            )
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise OSError(errno.EFBIG, f"larger than {max_bytes:,} bytes", os.fspath(path))
    return data


def _untrusted(info: os.stat_result) -> str | None:
    """Why a file with this status is not trusted, or ``None``."""
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if sys.platform == "win32":
        return None
    if info.st_uid != os.getuid():
        return f"owned by another user (uid {info.st_uid})"
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        return f"readable or writable by others (mode {mode:04o}; expected 0600)"
    return None


@contextmanager
def locked(path: Path) -> Generator[None]:
    """Hold an exclusive lock on ``path`` (created 0600 if missing) for the block.

    Blocks until the lock is free; it is released when the block ends, also on error, and when
    the process dies. The lock file is left in place (removing it would race with a waiting
    process).

    Raises:
        OSError: the lock file cannot be created or locked.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
            try:
                yield
            finally:
                os.lseek(fd, 0, os.SEEK_SET)
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
