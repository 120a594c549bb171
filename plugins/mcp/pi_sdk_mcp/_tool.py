"""An MCP server's tool as a pi-sdk :class:`~pi_sdk.AgentTool`.

The model sees the exposed name (:mod:`pi_sdk_mcp._names`), the tool's description and its
``inputSchema`` (validated by the agent loop before the call, as for any tool). Running it calls
``tools/call`` on the server: progress notifications become ``tool_execution_update`` events,
aborting the run cancels the request, and the result maps as :mod:`pi_sdk_mcp._results` says.

``annotations`` holds the tool's MCP annotations with the spec's defaults filled in (MCP spec,
"Tools: Tool Annotations"): ``readOnlyHint`` (default false), ``destructiveHint`` (default
true; false for a read-only tool), ``idempotentHint`` (default false; true for a read-only
tool), ``openWorldHint`` (default true). pi-sdk-tool-policy rules can match them
(``annotations = { destructiveHint = true }``). They are hints from the server, not guarantees.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

import mcp.types as mcp

from pi_sdk import AbortSignal, AgentTool, AgentToolResult
from pi_sdk.agent import ToolUpdateCallback

from ._results import progress_result, to_tool_result

if TYPE_CHECKING:
    from ._connection import ServerConnection

__all__ = ["McpTool", "effective_annotations"]


def effective_annotations(declared: mcp.ToolAnnotations | None) -> Mapping[str, bool]:
    """The four MCP hints of a tool, declared or by the spec's defaults (read-only mapping)."""
    hints = declared or mcp.ToolAnnotations()
    read_only = bool(hints.read_only_hint)
    destructive = hints.destructive_hint if hints.destructive_hint is not None else not read_only
    idempotent = hints.idempotent_hint if hints.idempotent_hint is not None else read_only
    open_world = hints.open_world_hint if hints.open_world_hint is not None else True
    return MappingProxyType(
        {
            "readOnlyHint": read_only,
            "destructiveHint": bool(destructive) and not read_only,
            "idempotentHint": bool(idempotent),
            "openWorldHint": bool(open_world),
        }
    )


class McpTool(AgentTool):
    """One tool of one MCP server, offered to the model under ``name``.

    Attributes:
        server: The server's configured name.
        mcp_name: The tool's name on the server (``name`` may carry a prefix).
        definition: The tool's MCP definition (``mcp.types.Tool``) as listed.
        annotations: See the module docstring.
        owner: The :class:`~pi_sdk_mcp.McpServers` that made it.
    """

    def __init__(
        self, *, name: str, definition: mcp.Tool, connection: ServerConnection, owner: object
    ) -> None:
        title = definition.title or (definition.annotations and definition.annotations.title)
        super().__init__(
            name=name,
            description=definition.description or title or "",
            parameters=dict(definition.input_schema),
            label=title or definition.name,
        )
        self.server = connection.name
        self.mcp_name = definition.name
        self.definition = definition
        self.annotations = effective_annotations(definition.annotations)
        self.owner = owner
        self._connection = connection

    def __repr__(self) -> str:
        return f"McpTool(name={self.name!r}, server={self.server!r})"

    async def execute(
        self, tool_call_id: str, args: Any, signal: AbortSignal, on_update: ToolUpdateCallback
    ) -> AgentToolResult:
        """Call the tool on its server.

        Raises:
            McpServerError: the server is not running, the call failed or timed out, the run
                was aborted, or the tool answered ``isError``; the agent makes it an error
                result naming the server.
        """

        def progress(value: float, total: float | None, message: str | None) -> None:
            on_update(progress_result(value, total, message))

        arguments = cast(dict[str, Any], args) if isinstance(args, dict) else {}
        result = await self._connection.call(self.mcp_name, arguments, signal, progress)
        return to_tool_result(result, self.server, self.mcp_name)
