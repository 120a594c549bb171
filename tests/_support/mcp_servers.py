"""Real MCP servers for the pi-sdk-mcp tests, started by the tests, offline.

* ``mcp-server-time`` and ``mcp-server-git`` (the reference servers from PyPI, in the dev
  group), over stdio; git on a temporary repository (:func:`make_repository`).
* ``mcp_edge_server.py`` beside this file (written with the ``mcp`` SDK's server API) for the
  edge cases, over stdio (:func:`edge_stdio`) and over HTTP on a loopback port
  (:class:`EdgeProcess`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from pi_sdk_mcp import HttpServer, StdioServer

BIN = Path(sys.executable).parent
EDGE = Path(__file__).resolve().parent / "mcp_edge_server.py"


def time_server(name: str = "time", **options: Any) -> StdioServer:
    """``mcp-server-time`` in UTC."""
    command = str(BIN / "mcp-server-time")
    return StdioServer(name=name, command=command, args=("--local-timezone", "UTC"), **options)


def git_server(repository: Path, name: str = "git", **options: Any) -> StdioServer:
    """``mcp-server-git`` on ``repository``."""
    command = str(BIN / "mcp-server-git")
    return StdioServer(name=name, command=command, args=("-r", str(repository)), **options)


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


def edge_stdio(log: Path, name: str = "edge", **options: Any) -> StdioServer:
    """The edge server over stdio, noting what it saw in ``log``."""
    env = {"EDGE_LOG": str(log)}
    return StdioServer(name=name, command=sys.executable, args=(str(EDGE),), env=env, **options)


class EdgeProcess:
    """The edge server over HTTP (``kind``: ``http`` or ``sse``) in a subprocess of the test."""

    def __init__(self, log: Path, kind: str = "http") -> None:
        env = {**os.environ, "EDGE_LOG": str(log)}
        self.process = subprocess.Popen(
            [sys.executable, str(EDGE), kind],
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
