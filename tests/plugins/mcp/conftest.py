"""Fixtures of the pi-sdk-mcp tests: real MCP servers (see ``_support/mcp_servers.py``).

Every server process a test starts is stopped when it ends. The servers are forked warm; the
tests of a server process's own end (killed mid-call, stopped and started again, a command that
does not start) start theirs cold, as a reader's program does.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _support.mcp_servers import EdgeProcess, edge_stdio, make_repository
from pi_sdk_mcp import HttpServer, StdioServer


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A git repository with one commit (``README.md``) and one untracked file."""
    return make_repository(tmp_path)


@pytest.fixture
def edge_log(tmp_path: Path) -> Path:
    """Where the edge server notes what it saw (``started slow-1``, ``cancelled slow-1``)."""
    return tmp_path / "edge.log"


@pytest.fixture
def edge_http(edge_log: Path) -> Iterator[EdgeProcess]:
    """The edge server over streamable HTTP on a loopback port."""
    process = EdgeProcess(edge_log)
    yield process
    process.stop()


@pytest.fixture(params=["stdio", "http"])
def edge(request: pytest.FixtureRequest, edge_log: Path) -> Iterator[StdioServer | HttpServer]:
    """The edge server's configuration, over stdio and over streamable HTTP (started cold for a
    test marked ``cold_server``: _support/mcp_servers.py)."""
    warm = request.node.get_closest_marker("cold_server") is None
    if request.param == "stdio":
        yield edge_stdio(edge_log, warm=warm)
        return
    process = EdgeProcess(edge_log, warm=warm)
    yield process.config()
    process.stop()
