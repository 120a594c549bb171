"""Calling conventions of the marked signatures in the MCP plugin.

Each row is a callable whose ``def`` has a bare ``*`` (keyword-only options after it) or ``/``
(positional-only parameters before it), and its parameters as the ``def`` lists them
(``_support.signatures.convention``). Callers rely on both sides of the marker: an option after
``*`` is refused by position (so a later parameter can be added before it), a parameter before
it is accepted by name (``Tracing(tracer_provider=...)``).
"""

from __future__ import annotations

import pytest
from _support.signatures import convention, resolve

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


@pytest.mark.parametrize(("target", "expected"), CONVENTIONS, ids=[t for t, _ in CONVENTIONS])
def test_each_marked_signature_keeps_its_calling_convention(target: str, expected: str) -> None:
    assert convention(resolve(target)) == expected
