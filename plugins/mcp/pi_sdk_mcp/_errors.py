"""The one exception pi-sdk-mcp raises at run time: an MCP server or tool call failed.

Configuration mistakes are :class:`pi_sdk.ConfigurationError` (raised before any I/O). Inside
an agent run a raised :class:`McpServerError` becomes the tool call's error result, whose text
the model reads; its message always names the server.
"""

from __future__ import annotations

__all__ = ["McpServerError"]


class McpServerError(RuntimeError):
    """An MCP server failed to start, stopped, refused a request or did not answer in time.

    Attributes:
        server: The server's name in the configuration.
    """

    def __init__(self, server: str, message: str) -> None:
        super().__init__(message)
        self.server = server
