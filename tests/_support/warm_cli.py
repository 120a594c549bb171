"""The tests' ``pi-sdk`` runs forked from a warm server instead of started cold.

Most of a cold ``python -m pi_sdk._cli prompt -m anthropic/...`` is ``import anthropic`` (about
1.5 of its 2 CPU seconds); the CLI tests run it dozens of times. :func:`server_for` starts, once
per test process, ``_support/cli_forkserver.py``, which imports the vendor SDK
(:data:`PREIMPORTED`) and forks a child per run that becomes ``python -m pi_sdk._cli ARGS`` with
the run's descriptors, environment and working directory (that module says what a child is and
how it ends). ``pi_sdk`` itself and every plugin are imported fresh by each child.

A run whose environment gives another value to a variable the imported modules read at import
time, or to an interpreter setting (``PYTHON*`` other than ``PYTHONPATH``, ``LANG``, ``LC_*``),
gets a fresh interpreter, as does every run when ``PI_SDK_TEST_COLD_CLI=1`` (to compare, or to
rule the server out when a CLI test fails).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import locale
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["PREIMPORTED", "WarmProcess", "WarmServer", "run_module", "server_for"]

PREIMPORTED = ("anthropic",)
"""What the server imports before forking: the vendor SDK the CLI tests' models call."""

COLD_ENV = "PI_SDK_TEST_COLD_CLI"
_SCRIPT = Path(__file__).with_name("cli_forkserver.py")
_INTERPRETER_VARIABLES = ("PYTHON", "LC_")


def _settings(env: dict[str, str], read: list[str]) -> dict[str, str | None]:
    """What of ``env`` a warm child could not take: the variables read at import, the
    interpreter's (``PYTHONPATH`` is the child's to set)."""
    names = {n for n in env if n.startswith(_INTERPRETER_VARIABLES) or n == "LANG"}
    names |= set(read)
    names -= {"PYTHONPATH", "HOME"}  # the child's own: sys.path, sysconfig's user base
    return {name: env.get(name) for name in sorted(names)}


class WarmServer:
    """One ``cli_forkserver.py`` process and its socket."""

    def __init__(self, env: dict[str, str], preimported: tuple[str, ...] = PREIMPORTED) -> None:
        self.preimported = preimported
        self._folder = tempfile.mkdtemp(prefix="pi-sdk-warm-cli-")
        self._socket = os.path.join(self._folder, "socket")
        server_env = {k: v for k, v in _settings(env, sorted(_READ)).items() if v is not None}
        server_env.update(PATH=env.get("PATH", ""), HOME=self._folder)
        self._process = subprocess.Popen(
            [sys.executable, str(_SCRIPT), self._socket, *preimported],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=server_env,
            cwd=self._folder,
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"the warm CLI server did not start (status {self._process.wait()})")
        ready = json.loads(line)
        self.read: list[str] = ready["read"]
        _READ.update(self.read)
        self.settings = _settings(server_env, self.read)
        self._added = {k: v for k, v in ready["environ"].items() if k not in server_env}
        """What the interpreter added to its environment at start (PEP 538's ``LC_CTYPE``):
        the same settings add the same to a child's."""
        facts = {"read": self.read, "settings": self.settings, "added": self._added}
        Path(self.socket + ".json").write_text(json.dumps(facts), encoding="utf-8")

    @property
    def socket(self) -> str:
        """The server's socket; ``socket.json`` beside it says what a child may not change
        (``read``, ``settings``) and what the interpreter adds (``added``): warm_stub.py."""
        return self._socket

    def takes(self, env: dict[str, str]) -> bool:
        """Whether a child forked from here is what a fresh interpreter with ``env`` would be."""
        return "*" not in self.read and _settings(env, self.read) == self.settings

    def start(
        self,
        args: list[str],
        env: dict[str, str],
        fds: list[int],
        *,
        module: str = "pi_sdk._cli",
        cwd: str | os.PathLike[str] | None = None,
        terminal: bool = False,
    ) -> tuple[int, Any, socket.socket]:
        """Fork a child for ``python -m MODULE ARGS`` on ``fds`` (0, 1, 2; ``terminal``: a
        pseudo-terminal's end, made the controlling terminal of the child's own session); return
        its pid, the reader its status comes on, and the connection."""
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(self._socket)
        request = {
            "module": module,
            "args": args,
            "env": {**self._added, **env},
            "cwd": os.fspath(cwd or os.getcwd()),
            "blocked": sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])),
            "ignored": _ignored_signals(),
            "terminal": terminal,
        }
        socket.send_fds(conn, [json.dumps(request).encode()], fds)
        reader = conn.makefile("rb")
        return int(reader.readline()), reader, conn

    def popen(
        self,
        args: list[str],
        env: dict[str, str],
        *,
        module: str = "pi_sdk._cli",
        cwd: str | os.PathLike[str] | None = None,
    ) -> WarmProcess:
        """``subprocess.Popen([python, -m, MODULE, *args], stdin=PIPE, stdout=PIPE, stderr=PIPE,
        text=True, env=env, cwd=cwd)``, forked from here (what :class:`WarmProcess` offers)."""
        child_in, to_child = os.pipe()
        from_out, child_out = os.pipe()
        from_err, child_err = os.pipe()
        try:
            pid, reader, conn = self.start(
                args, env, [child_in, child_out, child_err], module=module, cwd=cwd
            )
        finally:
            for fd in (child_in, child_out, child_err):
                os.close(fd)
        command = [sys.executable, "-m", module, *args]
        return WarmProcess(command, pid, reader, conn, (to_child, from_out, from_err))

    def run(
        self,
        args: list[str],
        env: dict[str, str],
        stdin: str,
        timeout: float,
        *,
        module: str = "pi_sdk._cli",
        cwd: str | os.PathLike[str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """``subprocess.run([python, -m, MODULE, *args], input=stdin, capture_output=True,
        text=True, env=env, cwd=cwd, timeout=timeout)``, forked from here."""
        process = self.popen(args, env, module=module, cwd=cwd)
        out, err = process.communicate(stdin, timeout=timeout)
        return subprocess.CompletedProcess(process.args, process.returncode, out, err)

    def close(self) -> None:
        assert self._process.stdin is not None
        if self._process.stdin.closed:
            return
        self._process.stdin.close()  # the server kills what still runs, then ends
        self._process.wait()
        with contextlib.suppress(OSError):
            os.unlink(self._socket)
            os.unlink(self._socket + ".json")
            os.rmdir(self._folder)


def _ignored_signals() -> list[int]:
    """The signals this process ignores (a child it starts keeps ignoring them), but SIGPIPE and
    SIGXFSZ, which the interpreter ignores itself."""
    numbers = set(signal.valid_signals()) - {signal.SIGKILL, signal.SIGSTOP}
    numbers -= {signal.SIGPIPE, signal.SIGXFSZ}
    return sorted(n for n in numbers if signal.getsignal(n) is signal.SIG_IGN)


class WarmProcess:
    """A child forked by the server, with pipes: the part of ``subprocess.Popen`` the tests use
    (``args``, ``pid``, ``returncode``, ``communicate``, ``wait``, ``kill``)."""

    def __init__(
        self, args: list[str], pid: int, reader: Any, conn: socket.socket, fds: tuple[int, ...]
    ) -> None:
        self.args, self.pid = args, pid
        self.returncode: int | None = None
        self._reader, self._conn, self._fds = reader, conn, fds

    def communicate(self, input: str = "", timeout: float | None = None) -> tuple[str, str]:
        """Write ``input``, read stdout and stderr to the end, wait; as ``Popen.communicate``
        (the child is killed and ``TimeoutExpired`` raised after ``timeout`` seconds)."""
        encoding = locale.getpreferredencoding(False)
        to_child, from_out, from_err = self._fds
        data = input.encode(encoding)
        output = _exchange(to_child, data, from_out, from_err, timeout or 3600.0, self.pid)
        self.wait()
        out, err = (_text(chunk, encoding) for chunk in output)
        return out, err

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self._conn.settimeout(timeout)
            try:
                line = self._reader.readline()
            except TimeoutError:
                raise subprocess.TimeoutExpired(self.args, timeout or 0) from None
            self.returncode = int(line)
            self._reader.close()
            self._conn.close()
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            os.kill(self.pid, signal.SIGKILL)


def _text(data: bytes, encoding: str) -> str:
    """As ``subprocess.run(text=True)`` reads a stream: universal newlines."""
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


def _exchange(
    to_child: int, data: bytes, from_out: int, from_err: int, timeout: float, pid: int
) -> tuple[bytes, bytes]:
    """Write ``data`` to the child's stdin, read its stdout and stderr to the end."""
    chunks: dict[int, list[bytes]] = {from_out: [], from_err: []}
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        if data:
            selector.register(to_child, selectors.EVENT_WRITE)
        else:
            os.close(to_child)
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                for key in list(selector.get_map().values()):
                    os.close(key.fd)
                raise subprocess.TimeoutExpired(["pi-sdk"], timeout)
            for key, _ in selector.select(left):
                if key.fd == to_child:
                    try:
                        written = os.write(to_child, data)
                    except BrokenPipeError:
                        written = len(data)
                    data = data[written:]
                    if not data:
                        selector.unregister(to_child)
                        os.close(to_child)
                    continue
                chunk = os.read(key.fd, 65536)
                if chunk:
                    chunks[key.fd].append(chunk)
                else:
                    selector.unregister(key.fd)
                    os.close(key.fd)
    return b"".join(chunks[from_out]), b"".join(chunks[from_err])


_READ: set[str] = set()
"""The variables the servers' imports read: a server started for a request is given the
request's values of these, so that it can stand for it."""
_SERVERS: list[WarmServer] = []
_MOST_SERVERS = 3
"""Servers per test process and set of preimported modules (the CLI's, the MCP servers'), one per
set of interpreter settings (the tests use one or two)."""


def server_for(
    env: dict[str, str], preimported: tuple[str, ...] = PREIMPORTED
) -> WarmServer | None:
    """A warm server of this process (having imported ``preimported``) a child of which can
    stand for ``python -m ...`` under ``env`` (started on first use, ended at exit); ``None``
    when a fresh interpreter must run."""
    if os.environ.get(COLD_ENV) == "1" or env.get(COLD_ENV) == "1":
        return None
    servers = [server for server in _SERVERS if server.preimported == preimported]
    for server in servers:
        if server.takes(env):
            return server
    if len(servers) >= _MOST_SERVERS:
        return None
    server = WarmServer(env, preimported)
    _SERVERS.append(server)
    atexit.register(server.close)
    return server if server.takes(env) else None


def run_module(
    module: str,
    args: list[str],
    env: dict[str, str],
    *,
    stdin: str = "",
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``subprocess.run([python, -m, MODULE, *args], input=stdin, capture_output=True,
    text=True, env=env, cwd=cwd, timeout=timeout)``: forked from a warm server when it can be."""
    server = server_for(env)
    if server is not None:
        return server.run(args, env, stdin, timeout, module=module, cwd=cwd)
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
    )
