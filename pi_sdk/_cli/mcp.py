"""``pi-sdk mcp list CONFIG`` and ``pi-sdk chat --mcp CONFIG``: MCP servers, through pi-sdk-mcp.

```
pi-sdk mcp list CONFIG [--json]     start the servers of an mcpServers JSON file, list their tools
```

The work is pi-sdk-mcp's (:mod:`pi_sdk_mcp.cli`), imported on use: without it installed, both
end with one line saying how to install it (exit status 2).
"""

from __future__ import annotations

import argparse
import sys
from types import ModuleType
from typing import Any

from pi_sdk._cli.common import UsageError

__all__ = ["mcp_cli", "register"]


def mcp_cli(option: str) -> ModuleType:
    """``pi_sdk_mcp.cli``.

    Raises:
        UsageError: pi-sdk-mcp is not installed; the message says how to install it.
    """
    try:
        import pi_sdk_mcp.cli
    except ImportError:
        raise UsageError(
            f"{option} needs pi-sdk-mcp: install it with `pip install pi-sdk-mcp`"
        ) from None
    return pi_sdk_mcp.cli


def register(commands: Any) -> None:
    """Add ``mcp`` (with ``mcp list``) to the ``pi-sdk`` subcommands."""
    mcp = commands.add_parser("mcp", help="MCP servers: list the tools of an mcpServers file")
    actions = mcp.add_subparsers(dest="mcp_command", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="start each server of CONFIG and list its tools")
    listing.add_argument("config", metavar="CONFIG", help="an mcpServers JSON file")
    listing.add_argument("--json", action="store_true", help="one JSON object per server")
    listing.set_defaults(run=_run_list)


def _run_list(args: argparse.Namespace) -> int:
    cli: Any = mcp_cli("`pi-sdk mcp list`")
    return cli.list_servers(args.config, as_json=args.json, out=sys.stdout)
