"""Real MCP servers for the pi-sdk-mcp tests, started by the tests, offline.

* ``mcp-server-time`` and ``mcp-server-git`` (the reference servers from PyPI, in the dev
  group), over stdio; git on a temporary repository (:func:`make_repository`).
* ``mcp_edge_server.py`` beside this file (written with the ``mcp`` SDK's server API) for the
  edge cases, over stdio (:func:`edge_stdio`) and over HTTP on a loopback port
  (:class:`EdgeProcess`).

Each is started by the test as a reader's program starts it (the SDK spawns the command), but the
command is ``_support/warm_stub.py``: the server is forked from a warm server of the test process
that imported the ``mcp`` SDK once (:data:`PREIMPORTED`), instead of an interpreter importing it
again (0.6 to 0.9 CPU seconds a start; the stub says what stays the same). ``warm=False`` (the
tests of a server process's own end, and ``PI_SDK_TEST_COLD_CLI=1`` for all) starts the real
command cold.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp.client.stdio import get_default_environment
from pi_sdk_mcp import HttpServer, StdioServer

from _support import warm_cli

BIN = Path(sys.executable).parent
EDGE = Path(__file__).resolve().parent / "mcp_edge_server.py"
STUB = Path(__file__).resolve().parent / "warm_stub.py"
PREIMPORTED = ("mcp.server.mcpserver", "mcp.server.stdio", "mcp_server_time.server", "uvicorn")
"""What the warm server of the MCP servers imports (not ``mcp_server_git``: GitPython reads the
whole environment at import, so no child could differ from the server in any variable)."""


def command(script: Path, *args: str, warm: bool = True) -> tuple[str, tuple[str, ...]]:
    """The command and arguments that run the Python script ``script`` with ``args`` as a server
    the SDK starts: ``warm_stub.py`` and a warm server's socket, or, cold, the script itself
    (an installed command, ``BIN/...``) or the interpreter on it."""
    server = warm_cli.server_for(get_default_environment(), PREIMPORTED) if warm else None
    if server is None:
        if script.parent == BIN:
            return str(script), args
        return sys.executable, (str(script), *args)
    return sys.executable, ("-I", "-S", str(STUB), server.socket, str(script), *args)


def time_server(name: str = "time", *, warm: bool = True, **options: Any) -> StdioServer:
    """``mcp-server-time`` in UTC."""
    program, args = command(BIN / "mcp-server-time", "--local-timezone", "UTC", warm=warm)
    return StdioServer(name=name, command=program, args=args, **options)


def git_server(repository: Path, name: str = "git", **options: Any) -> StdioServer:
    """``mcp-server-git`` on ``repository``."""
    program, args = command(BIN / "mcp-server-git", "-r", str(repository))
    return StdioServer(name=name, command=program, args=args, **options)


def make_repository(root: Path) -> Path:
    """A git repository with one commit (``README.md``) and one untracked file (``notes.txt``)."""
    repo = root / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}  # fmt: skip
    (repo / "README.md").write_text("# demo\n", encoding="utf-8")
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "README.md"],
        ["commit", "-q", "-m", "first"],
    ):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    (repo / "notes.txt").write_text("untracked\n", encoding="utf-8")
    return repo


def edge_stdio(log: Path, name: str = "edge", *, warm: bool = True, **options: Any) -> StdioServer:
    """The edge server over stdio, noting what it saw in ``log``."""
    env = {"EDGE_LOG": str(log)}
    program, args = command(EDGE, warm=warm)
    return StdioServer(name=name, command=program, args=args, env=env, **options)


class EdgeProcess:
    """The edge server over HTTP (``kind``: ``http`` or ``sse``) in a subprocess of the test."""

    def __init__(self, log: Path, kind: str = "http", *, warm: bool = True) -> None:
        env = {**get_default_environment(), "EDGE_LOG": str(log)}
        program, args = command(EDGE, kind, warm=warm)
        self.process = subprocess.Popen(
            [program, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.strip().isdigit():
            self.stop()
            raise RuntimeError(f"the edge server did not start: {line!r}")
        path = "/mcp" if kind == "http" else "/sse"
        self.url = f"http://127.0.0.1:{int(line)}{path}"
        self.kind = kind

    def config(self, name: str = "edge", **options: Any) -> HttpServer:
        transport = "http" if self.kind == "http" else "sse"
        return HttpServer(name=name, url=self.url, transport=transport, **options)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
        if self.process.stdout is not None:
            self.process.stdout.close()


def log_lines(log: Path) -> list[str]:
    """The lines the edge server noted so far."""
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []
