"""Fixtures of the pi-sdk-mcp tests: real MCP servers (see ``_support/mcp_servers.py``).

Every server process a test starts is stopped when it ends.
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
    """The edge server's configuration, over stdio and over streamable HTTP."""
    if request.param == "stdio":
        yield edge_stdio(edge_log)
        return
    process = EdgeProcess(edge_log)
    yield process.config()
    process.stop()
