"""Drive the real ``pi-sdk`` command in a pseudo-terminal against loopback vendors.

:class:`ThreadedLoopback` runs :class:`_support.loopback.LoopbackServer` on its own event loop in
a thread, so that a synchronous pexpect test can talk to the CLI while the server answers.
:func:`cli_env` gives the child a private home (config and data folders under ``tmp_path``), no
colour, and the loopback servers as the vendors' base URLs (``<PROVIDER>_BASE_URL``).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from _support import warm_cli
from _support.loopback import LoopbackServer, Step
from _support.wire import wire_for

__all__ = [
    "PROMPT",
    "ThreadedLoopback",
    "ask",
    "cli_env",
    "popen_cli",
    "run_cli",
    "spawn",
    "vendor_env",
]

PROMPT = "you › "
"""What ``pi-sdk chat`` shows when it waits for a line."""

pexpect = pytest.importorskip("pexpect", reason="pexpect is not installed (dev group)")


class ThreadedLoopback:
    """A :class:`LoopbackServer` serving ``steps`` from a background thread."""

    def __init__(self, steps: list[Step]) -> None:
        self.server = LoopbackServer(steps)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> ThreadedLoopback:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.server.__aenter__(), self._loop).result(10)
        return self

    def __exit__(self, *exc_info: object) -> None:
        asyncio.run_coroutine_threadsafe(self.server.__aexit__(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def bodies(self) -> list[bytes]:
        """The request bodies received so far."""
        return [body for _, _, body in self.server.requests]


def vendor_env(api: str, server: ThreadedLoopback) -> dict[str, str]:
    """``<PROVIDER>_BASE_URL`` pointing ``api``'s test provider at ``server``."""
    wire = wire_for(api)
    name = wire.provider.upper().replace("-", "_") + "_BASE_URL"
    return {name: server.url + wire.prefix}


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    """The child's environment: a private home, no colour, a dumb terminal, plus ``extra``."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "NO_COLOR": "1",
        "TERM": "dumb",
        "PYTHONUNBUFFERED": "1",
    }
    return {**env, **extra}


def spawn(args: list[str], env: dict[str, str], *, interrupts: bool = False) -> Any:
    """``pi-sdk ARGS`` in a pseudo-terminal (a ``pexpect.spawn``, text mode, 20 s timeout).

    Forked from a warm server (:class:`_support.warm_terminal.WarmTerminal`, the same
    ``pexpect`` calls) when it can be; ``interrupts`` (the test sends Ctrl-C): always a fresh
    interpreter, as a child forked from a warm server did not always die of the terminal's
    Ctrl-C (stop 39's fresh-clone run).
    """
    server = None if interrupts else warm_cli.server_for(env)
    if server is not None:
        from _support.warm_terminal import WarmTerminal

        return WarmTerminal(server, args, env, timeout=20, dimensions=(50, 200))
    return pexpect.spawn(
        sys.executable,
        ["-m", "pi_sdk._cli", *args],
        env=env,
        encoding="utf-8",
        timeout=20,
        dimensions=(50, 200),
    )


def ask(child: Any, line: str, *expected: str) -> None:
    """Send ``line`` to a chat, wait for each ``expected`` (a regex), then the prompt."""
    child.sendline(line)
    for pattern in expected:
        child.expect(pattern)
    child.expect(PROMPT)


def run_cli(
    args: list[str], env: dict[str, str], stdin: str = "", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``pi-sdk ARGS`` without a terminal: ``stdin`` in, stdout and stderr captured.

    Forked from a warm server (:mod:`_support.warm_cli`) when it can be, a fresh interpreter
    otherwise; the result is the same ``CompletedProcess`` either way.
    """
    return warm_cli.run_module("pi_sdk._cli", args, env, stdin=stdin, cwd=cwd, timeout=60)


def popen_cli(args: list[str], env: dict[str, str]) -> Any:
    """``pi-sdk ARGS`` started with pipes for stdin, stdout and stderr (text): a
    ``subprocess.Popen``, or a :class:`_support.warm_cli.WarmProcess` forked from a warm server
    (``communicate``, ``returncode``, ``wait``, ``kill`` alike)."""
    server = warm_cli.server_for(env)
    if server is not None:
        return server.popen(args, env)
    return subprocess.Popen(
        [sys.executable, "-m", "pi_sdk._cli", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
