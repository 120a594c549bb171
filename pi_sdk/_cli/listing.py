"""``pi-sdk plugins``: the installed plugins and the hooks each implements.

```
pi-sdk plugins [--json]                       installed plugins and the hooks each implements
```
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from pi_sdk._cli.common import BOLD, DIM, RED, Style, add_command, use_colour

__all__ = ["register"]


def _plugins(as_json: bool, out: TextIO) -> int:
    from pi_sdk._plugins.listing import describe_plugins

    infos = describe_plugins()
    if as_json:
        for info in infos:
            out.write(json.dumps(info.to_dict(), ensure_ascii=False) + "\n")
        return 1 if any(i.error for i in infos) else 0
    style = Style(use_colour(out))
    header = ("plugin", "distribution", "version")
    rows = [(i.name, i.distribution or "-", i.version or "-") for i in infos]
    widths = [max(len(r[c]) for r in (header, *rows)) for c in range(len(header))]

    def fmt(row: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True))

    out.write(style(fmt(header) + "  hooks", BOLD) + "\n")
    for info, row in zip(infos, rows, strict=True):
        hooks = style(f"failed to load: {info.error}", RED) if info.error else ", ".join(info.hooks)
        out.write(f"{fmt(row)}  {hooks}\n")
    failed = sum(1 for i in infos if i.error)
    noun = "plugin" if len(infos) == 1 else "plugins"
    summary = f"{len(infos)} {noun}" + (f" · {failed} failed to load" if failed else "")
    out.write(style(summary, DIM) + "\n")
    return 1 if failed else 0


def register(commands: Any) -> None:
    """Add ``plugins`` to the ``pi-sdk`` subcommands."""
    add_command(
        commands, "plugins", "list installed plugins and the hooks of each", _run_plugins,
        json_help="one JSON plugin per line",
    )  # fmt: skip


def _run_plugins(args: argparse.Namespace) -> int:
    return _plugins(args.json, sys.stdout)
