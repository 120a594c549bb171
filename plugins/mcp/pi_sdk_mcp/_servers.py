"""``McpServers``: every configured MCP server, started and stopped together, as agent tools.

```python
async with McpServers("mcp.json") as servers:      # starts every server, in parallel
    agent = pi_sdk.Agent(model=model, tools=[my_tool])
    servers.attach(agent)                          # the servers' tools, kept current
    await agent.prompt("What time is it in Tokyo?")
# every server is stopped here (a stdio server's process is terminated)
```

Entering never raises for a server: one that fails to start is reported (``statuses``, a WARNING
on the ``pi_sdk_mcp`` logger) and offers no tools; the others work. The tool set
(:attr:`McpServers.tools`) changes when a server's tool list changes or a server dies; the names
follow the rule of :mod:`pi_sdk_mcp._names`.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

from pi_sdk import AgentTool, ConfigurationError, Model, StreamOptions

from ._config import ServerConfig, StdioServer
from ._config_file import load_config
from ._connection import ServerConnection, ServerState
from ._names import assign_names
from ._sampling import Sampler
from ._tool import McpTool

if TYPE_CHECKING:
    from pi_sdk import Agent

__all__ = ["McpServers", "ServerStatus"]

_log = logging.getLogger("pi_sdk_mcp")

ToolsListener = Callable[[list[McpTool]], None]
"""``listener(tools)``: called with the new tool set after every change."""


@dataclass(frozen=True, kw_only=True)
class ServerStatus:
    """What one server is doing (``McpServers.statuses``)."""

    name: str
    transport: str
    """``"stdio"``, ``"http"`` (streamable HTTP) or ``"sse"``."""
    state: ServerState
    error: str | None
    """Why it failed (its stderr's last lines for stdio), secrets redacted; else ``None``."""
    protocol_version: str | None
    tools: list[McpTool]
    """The tools it offers now, under their exposed names."""


class McpServers:
    """Configured MCP servers as one async context manager and one tool set.

    Args:
        config: The servers: a path to an ``mcpServers`` JSON file, the parsed JSON object
            (:func:`pi_sdk_mcp.load_config`), or :class:`~pi_sdk_mcp.StdioServer` /
            :class:`~pi_sdk_mcp.HttpServer` objects.
        sampling_model: The model that answers the sampling requests of servers configured
            with ``allow_sampling`` (:mod:`pi_sdk_mcp._sampling`); ``None`` (default): no
            server may sample.
        sampling_options: Options for those calls (API key, retries...).

    Raises:
        ConfigurationError: an invalid configuration, or two servers with the same name.
    """

    def __init__(
        self,
        config: str | os.PathLike[str] | Mapping[str, Any] | Iterable[ServerConfig],
        *,
        sampling_model: Model | None = None,
        sampling_options: StreamOptions | None = None,
    ) -> None:
        if isinstance(config, str | os.PathLike | Mapping):
            configs = load_config(cast("str | os.PathLike[str] | Mapping[str, Any]", config))
        else:
            configs = list(config)
        names = [c.name for c in configs]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ConfigurationError(f"MCP server names must be unique: {', '.join(twice)}")
        self._connections = [
            ServerConnection(
                c,
                sampler=Sampler(c.name, sampling_model, sampling_options)
                if sampling_model is not None and c.allow_sampling
                else None,
                on_change=self._changed,
            )
            for c in configs
        ]
        self._reserved: set[str] = set()
        self._tools: list[McpTool] = []
        self._listeners: list[ToolsListener] = []

    def __repr__(self) -> str:
        states = ", ".join(f"{c.name}={c.state}" for c in self._connections)
        return f"McpServers({states})"

    # -- lifecycle ---------------------------------------------------------------------------

    async def __aenter__(self) -> McpServers:
        """Start every server (see :meth:`start`)."""
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Stop every server (see :meth:`stop`)."""
        await self.stop()

    async def start(self) -> None:
        """Start every server concurrently, each within its start timeout; never raises."""
        await asyncio.gather(*(c.start() for c in self._connections))
        self._changed(None)

    async def stop(self) -> None:
        """Stop every server concurrently (stdio processes terminated); never raises."""
        await asyncio.gather(*(c.stop() for c in self._connections))
        self._changed(None)

    async def sync(self) -> None:
        """Wait until every announced tool-list change has been listed (at most the list timeout).

        The tool set is refreshed in the background when a server announces a change; this
        waits for such refreshes that are under way. A change announced after a call's result
        (a 2026-07-28 server's ``subscriptions/listen`` stream is not ordered with the call's
        reply) is applied when it arrives; :meth:`subscribe` tells when.
        """
        await asyncio.gather(*(c.settled() for c in self._connections))

    # -- the tool set ------------------------------------------------------------------------

    @property
    def tools(self) -> list[McpTool]:
        """The tools every running server offers now (a new list; config order)."""
        return list(self._tools)

    @property
    def statuses(self) -> list[ServerStatus]:
        """One :class:`ServerStatus` per configured server, in configuration order."""
        return [
            ServerStatus(
                name=c.name,
                transport="stdio" if isinstance(c.config, StdioServer) else c.config.transport,
                state=c.state,
                error=c.error,
                protocol_version=c.protocol_version,
                tools=[t for t in self._tools if t.server == c.name],
            )
            for c in self._connections
        ]

    def owns(self, tool: AgentTool) -> bool:
        """Whether ``tool`` is one of this object's MCP tools (current or replaced)."""
        return isinstance(tool, McpTool) and tool.owner is self

    def reserve(self, names: Iterable[str]) -> None:
        """Keep ``names`` (the agent's own tools) for their owners: MCP tools get others."""
        self._reserved.update(names)
        self._changed(None)

    def subscribe(self, listener: ToolsListener) -> Callable[[], None]:
        """Call ``listener(tools)`` after every change of the tool set; returns an unsubscribe."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def attach(self, agent: Agent) -> Callable[[], None]:
        """Offer the servers' tools to ``agent`` and keep them current; returns a detach.

        See :func:`pi_sdk_mcp._attach.attach`.
        """
        from ._attach import attach

        return attach(self, agent)

    def _changed(self, connection: ServerConnection | None) -> None:
        ready = [c for c in self._connections if c.state == "ready"]
        entries = [(c.name, c.config.tool_prefix, t.name) for c in ready for t in c.tools]
        names = iter(assign_names(entries, self._reserved))
        tools = [
            McpTool(name=next(names), definition=t, connection=c, owner=self)
            for c in ready
            for t in c.tools
        ]
        if [(t.name, t.definition) for t in tools] == [(t.name, t.definition) for t in self._tools]:
            return
        self._tools = tools
        if connection is not None:
            _log.info("MCP tools changed (server %r): %d tools", connection.name, len(tools))
        for listener in list(self._listeners):
            try:
                listener(self.tools)
            except Exception:  # noqa: BLE001 - a broken listener must not stop the others
                _log.exception("an MCP tool-set listener raised")
