"""pi-sdk-mcp: Model Context Protocol servers' tools as pi-sdk agent tools.

Built on the official ``mcp`` SDK: servers over stdio, streamable HTTP or SSE, described in code
(:class:`StdioServer`, :class:`HttpServer`) or in the ``mcpServers`` JSON most MCP clients read
(:func:`load_config`), started and stopped together by :class:`McpServers`. See
``docs/plugins/mcp.md``.

Example:
    ```python
    async with McpServers("mcp.json") as servers:
        agent = pi_sdk.Agent(model=model)
        servers.attach(agent)
        await agent.prompt("What time is it in Tokyo?")
    ```
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_sdk.plugins import lazy_exports

if TYPE_CHECKING:
    from ._config import HttpServer as HttpServer
    from ._config import Protocol as Protocol
    from ._config import ServerConfig as ServerConfig
    from ._config import StdioServer as StdioServer
    from ._config import Timeouts as Timeouts
    from ._config_file import load_config as load_config
    from ._errors import McpServerError as McpServerError
    from ._names import assign_names as assign_names
    from ._names import valid_name as valid_name
    from ._servers import McpServers as McpServers
    from ._servers import ServerStatus as ServerStatus
    from ._tool import McpTool as McpTool
    from ._tool import effective_annotations as effective_annotations

# Every pi-sdk process imports the installed plugins' entry points (``pi_sdk_mcp._plugin``), and
# importing a submodule runs this file first: the names below are imported on first use, so a
# process that never starts an MCP server never imports the ``mcp`` SDK (about 0.9 s).
_HOMES = {
    "HttpServer": "_config",
    "Protocol": "_config",
    "ServerConfig": "_config",
    "StdioServer": "_config",
    "Timeouts": "_config",
    "load_config": "_config_file",
    "McpServerError": "_errors",
    "assign_names": "_names",
    "valid_name": "_names",
    "McpServers": "_servers",
    "ServerStatus": "_servers",
    "McpTool": "_tool",
    "effective_annotations": "_tool",
}

__getattr__, __dir__ = lazy_exports(__name__, {n: f"{__name__}.{h}" for n, h in _HOMES.items()})
