"""Run a shell command and get its :class:`~pi_sdk_bash_records.record.BashExecution` record."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pi_sdk import AbortSignal, now_ms

from .record import BashExecution

if TYPE_CHECKING:
    import asyncio

__all__ = ["DEFAULT_MAX_OUTPUT_CHARS", "run_bash"]

DEFAULT_MAX_OUTPUT_CHARS = 50_000
"""Characters of output kept in the record (the tail: that is where errors are)."""

_READ_SIZE = 65_536


async def run_bash(
    command: str,
    *,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    signal: AbortSignal | None = None,
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
    shell: str = "/bin/bash",
) -> BashExecution:
    """Run ``command`` with ``shell -c`` and return its record (never raises for the command).

    Output is stdout and stderr combined, in arrival order. When it is longer than
    ``max_output_chars`` the record keeps the last ``max_output_chars`` characters, sets
    ``truncated`` and saves the whole output to a temporary file (``full_output_path``).

    Args:
        command: The command line.
        cwd: Working directory (default: the current one).
        env: Environment (default: inherited).
        timeout: Seconds before the command is killed (``cancelled``; no exit code).
        signal: Abort signal; aborting kills the command the same way.
        max_output_chars: Characters kept in ``output``.
        shell: The shell executable.

    Returns:
        The record, ready to append to an agent transcript.

    Raises:
        OSError: the shell cannot be started (missing executable, bad ``cwd``).
    """
    import asyncio  # imported by the first command, not when the plugin is discovered

    started = now_ms()
    starting = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            shell,
            "-c",
            command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            start_new_session=True,  # its own process group: a kill reaches its children too
        )
    )
    try:
        process = await asyncio.shield(starting)
    except asyncio.CancelledError:
        # Cancelled while the shell starts: asyncio would kill the shell alone, and what it
        # started already would live on. Let the start finish, then end the whole group.
        with contextlib.suppress(Exception):
            _kill(await starting)
        raise
    chunks: list[bytes] = []
    assert process.stdout is not None
    stdout = process.stdout

    async def read_all() -> None:
        while chunk := await stdout.read(_READ_SIZE):
            chunks.append(chunk)
        await process.wait()

    reader: asyncio.Future[None] = asyncio.ensure_future(read_all())
    stopper: asyncio.Future[None] | None = None
    waiting: set[asyncio.Future[None]] = {reader}
    if signal is not None:
        stopper = asyncio.ensure_future(signal.wait())
        waiting.add(stopper)
    try:
        done, _ = await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        _kill(process)
        raise
    finally:
        if stopper is not None:
            stopper.cancel()
    cancelled = reader not in done
    if cancelled:
        _kill(process)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(reader, timeout=5)
    output = b"".join(chunks).decode("utf-8", errors="replace")
    truncated = len(output) > max_output_chars
    full_path: str | None = None
    if truncated:
        full_path = _save(output)
        output = output[-max_output_chars:] if max_output_chars > 0 else ""
    return BashExecution(
        command=command,
        output=output,
        exit_code=None if cancelled else process.returncode,
        cancelled=cancelled,
        truncated=truncated,
        full_output_path=full_path,
        timestamp=started,
    )


def _kill(process: asyncio.subprocess.Process) -> None:
    """Kill the command's process group: the shell and whatever it started.

    Also when the shell itself has exited: a background job it left (``sleep 60 &``) is still
    in the group and holds the output open. The group's id cannot be given to another process
    while a member lives (POSIX), and a group that is gone is a ``ProcessLookupError``.
    """
    import signal as signals  # at a kill, not when plugin discovery imports this module

    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signals.SIGKILL)


def _save(output: str) -> str:
    import tempfile

    handle, path = tempfile.mkstemp(prefix="pi-sdk-bash-", suffix=".log")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(output)
    return path
