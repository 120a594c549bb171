"""The ``pi_sdk`` entry point of pi-sdk-mcp.

The plugin has no hooks: it is listed (``pi-sdk plugins``) so an installation shows it, and
loading it imports nothing heavy (not the ``mcp`` SDK, about 0.9 s), because every pi-sdk
process loads the installed plugins. MCP servers are started by :class:`pi_sdk_mcp.McpServers`.
"""
