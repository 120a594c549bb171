"""Calling conventions of the marked signatures in the MCP plugin.

The rows and what callers rely on: ``_support.signatures``.
"""

from __future__ import annotations

from _support.signatures import convention_test

CONVENTIONS = [
    ("pi_sdk_mcp._config_file:load_config", "source, *, environ"),
    ("pi_sdk_mcp._config_file:_string", "raw, key, where, *, required"),
    ("pi_sdk_mcp._connection:ServerConnection.__init__", "self, config, *, sampler, on_change"),
    (
        "pi_sdk_mcp._servers:McpServers.__init__",
        "self, config, *, sampling_model, sampling_options",
    ),
    ("pi_sdk_mcp._tool:McpTool.__init__", "self, *, name, definition, connection, owner"),
    ("pi_sdk_mcp.cli:list_servers", "config, *, as_json, out"),
]


test_each_marked_signature_keeps_its_calling_convention = convention_test(CONVENTIONS)
