"""What the ``pi-sdk`` command does with MCP servers: ``pi-sdk mcp list``, ``pi-sdk chat --mcp``.

``pi_sdk._cli`` imports this module when one of those is used (so the command works without
pi-sdk-mcp installed, and says how to install it). Output is plain text, one line per tool:

```text
$ pi-sdk mcp list mcp.json
time · stdio · MCP 2026-07-28 · 2 tools
  get_current_time  read-only    Get current time in a specific timezone
  convert_time      read-only    Convert time between timezones
1 server · 2 tools
```

A tool's kind is ``read-only``, ``destructive`` or ``additive`` (its MCP annotations); a tool
renamed by the naming rule shows its server-side name (``= status``). ``--json`` prints one
JSON object per server instead. The ``pi_sdk_mcp`` and ``mcp`` loggers are silenced here: a
server's failure is printed once, by the command, not again by a log handler.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from ._servers import McpServers, ServerStatus
from ._tool import McpTool

if TYPE_CHECKING:
    from pi_sdk import Agent

__all__ = ["ChatServers", "list_servers", "status_lines"]

Note = Callable[[str, str], None]
"""``note(text, style)``: how the chat prints one of its own lines (style ``dim``, ``red``...)."""

_DESCRIPTION = 72


def list_servers(config: str, *, as_json: bool, out: TextIO) -> int:
    """``pi-sdk mcp list CONFIG``: start every server, print its tools, stop them all.

    Returns:
        0, or 1 when a server failed to start.

    Raises:
        ConfigurationError: the configuration is invalid (the command's exit status 2).
    """
    _quiet_logs()
    servers = McpServers(config)

    async def run() -> list[ServerStatus]:
        async with servers:
            return servers.statuses

    statuses = asyncio.run(run())
    if as_json:
        for status in statuses:
            out.write(json.dumps(_status_json(status), ensure_ascii=False) + "\n")
    else:
        for status in statuses:
            out.write(_heading(status) + "\n")
            out.writelines(line + "\n" for line in _tool_lines(status.tools))
        out.write(_summary(statuses) + "\n")
    return 1 if any(s.state == "failed" for s in statuses) else 0


def status_lines(statuses: list[ServerStatus]) -> list[tuple[str, str]]:
    """One ``(text, style)`` per server, for the chat's start: ``mcp: time · 2 tools``."""
    lines: list[tuple[str, str]] = []
    for status in statuses:
        if status.state == "failed":
            lines.append((f"mcp: {status.name} failed: {status.error}", "red"))
        else:
            names = ", ".join(t.name for t in status.tools)
            lines.append((f"mcp: {status.name} · {len(status.tools)} tools ({names})", "dim"))
    return lines


class ChatServers:
    """The MCP servers of one ``pi-sdk chat``, run on the chat's event loop.

    The chat's model (when the chat starts) answers the sampling requests of servers whose
    configuration allows sampling.

    Args:
        config: The ``mcpServers`` JSON file.
        agent: The chat's Agent; its tools become its own plus the servers'.
        note: Prints one of the chat's lines.

    Raises:
        ConfigurationError: the configuration is invalid.
    """

    def __init__(self, config: str, agent: Agent, note: Note) -> None:
        _quiet_logs()
        self.servers = McpServers(config, sampling_model=agent.model)
        self._agent = agent
        self._note = note
        self._reported: set[str] = set()

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the servers, print one line each, offer their tools to the agent."""
        loop.run_until_complete(self.servers.start())
        for text, style in status_lines(self.servers.statuses):
            self._note(text, style)
        self._reported = {s.name for s in self.servers.statuses if s.state == "failed"}
        self.servers.attach(self._agent)
        self.servers.subscribe(self._changed)

    def stop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Stop every server."""
        loop.run_until_complete(self.servers.stop())

    def _changed(self, tools: list[McpTool]) -> None:
        for status in self.servers.statuses:
            if status.state == "failed" and status.name not in self._reported:
                self._reported.add(status.name)
                self._note(f"mcp: {status.name} stopped: {status.error}", "red")
        self._note(f"mcp: the tools changed: {len(tools)} tools", "dim")


def _quiet_logs() -> None:
    for name in ("pi_sdk_mcp", "mcp"):
        logger = logging.getLogger(name)
        if not logger.handlers:
            logger.addHandler(logging.NullHandler())
            logger.propagate = False


def _heading(status: ServerStatus) -> str:
    if status.state == "failed":
        return f"{status.name} · {status.transport} · failed: {status.error}"
    version = f" · MCP {status.protocol_version}" if status.protocol_version else ""
    return f"{status.name} · {status.transport}{version} · {len(status.tools)} tools"


def _kind(tool: McpTool) -> str:
    if tool.annotations["readOnlyHint"]:
        return "read-only"
    return "destructive" if tool.annotations["destructiveHint"] else "additive"


def _tool_lines(tools: list[McpTool]) -> list[str]:
    if not tools:
        return []
    width = max(len(t.name) for t in tools)
    lines: list[str] = []
    for tool in tools:
        about = (tool.description.strip().splitlines() or [""])[0]
        if len(about) > _DESCRIPTION:
            about = about[: _DESCRIPTION - 1] + "…"
        renamed = f"(= {tool.mcp_name}) " if tool.mcp_name != tool.name else ""
        lines.append(
            f"  {tool.name.ljust(width)}  {_kind(tool).ljust(11)}  {renamed}{about}".rstrip()
        )
    return lines


def _summary(statuses: list[ServerStatus]) -> str:
    count = sum(len(s.tools) for s in statuses)
    failed = sum(1 for s in statuses if s.state == "failed")
    noun = "server" if len(statuses) == 1 else "servers"
    text = f"{len(statuses)} {noun} · {count} tools"
    return text + (f" · {failed} failed" if failed else "")


def _status_json(status: ServerStatus) -> dict[str, Any]:
    return {
        "server": status.name,
        "transport": status.transport,
        "state": status.state,
        "error": status.error,
        "protocolVersion": status.protocol_version,
        "tools": [
            {
                "name": t.name,
                "mcpName": t.mcp_name,
                "description": t.description,
                "annotations": dict(t.annotations),
                "inputSchema": t.parameters,
            }
            for t in status.tools
        ],
    }
