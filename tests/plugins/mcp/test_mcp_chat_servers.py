"""``pi-sdk chat``'s MCP servers: the lines it prints at the start and at each tool change.

At the start, one line per server (its tools, or why it failed). At each change of the tool
set, one line for every server that has failed since it was last reported (once per server),
then the new number of tools. A server that is running, or whose failure was already shown, is
not reported again. The servers are a stand-in with the real statuses, so nothing starts.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_sdk_mcp import ServerStatus
from pi_sdk_mcp.cli import ChatServers

from pi_sdk import Agent


def _status(name: str, state: str, error: str | None = None) -> ServerStatus:
    return ServerStatus(
        name=name, transport="stdio", state=state, error=error, protocol_version=None, tools=[]
    )  # type: ignore[arg-type]


class StandInServers:
    """What ChatServers uses of ``McpServers``: start, statuses, attach and subscribe."""

    def __init__(self, statuses: list[ServerStatus]) -> None:
        self.statuses = statuses
        self.listeners: list[Callable[[list[Any]], None]] = []

    async def start(self) -> None:
        return None

    def attach(self, agent: Agent) -> Callable[[], None]:
        return lambda: None

    def subscribe(self, listener: Callable[[list[Any]], None]) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: None

    def change(self, *statuses: ServerStatus, tools: int = 0) -> None:
        self.statuses = list(statuses)
        for listener in self.listeners:
            listener([object()] * tools)


def test_each_failure_is_shown_once_and_every_change_counts_the_tools(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    servers = {"time": {"command": "x"}, "files": {"command": "y"}, "web": {"command": "z"}}
    config.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    lines: list[tuple[str, str]] = []
    chat = ChatServers(str(config), Agent(), lambda text, style: lines.append((text, style)))
    stand_in = StandInServers(
        [_status("time", "ready"), _status("files", "failed", "no such command: y")]
    )
    chat.servers = stand_in  # type: ignore[assignment]
    loop = asyncio.new_event_loop()
    try:
        chat.start(loop)
    finally:
        loop.close()
    assert lines == [
        ("mcp: time · 0 tools ()", "dim"),
        ("mcp: files failed: no such command: y", "red"),
    ]

    lines.clear()
    failed_at_start = _status("files", "failed", "no such command: y")
    stand_in.change(_status("time", "ready"), failed_at_start, _status("web", "starting"), tools=2)
    assert lines == [("mcp: the tools changed: 2 tools", "dim")]

    lines.clear()
    stand_in.change(_status("time", "failed", "exit 1"), failed_at_start, _status("web", "ready"))
    assert lines == [
        ("mcp: time stopped: exit 1", "red"),
        ("mcp: the tools changed: 0 tools", "dim"),
    ]

    lines.clear()
    stand_in.change(_status("time", "failed", "exit 1"), failed_at_start, tools=1)
    assert lines == [("mcp: the tools changed: 1 tools", "dim")]
