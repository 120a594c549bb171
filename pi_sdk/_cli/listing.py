"""``pi-sdk plugins``, and the message every command gives for an unknown provider.

```
pi-sdk plugins [--json]                       installed plugins and the hooks each implements
```

An unknown provider (``models --provider``, ``keys set``, ``-m``) is an input error (exit
status 2) whose message names the close matches (:func:`unknown_provider`).
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from pi_sdk._cli.common import BOLD, DIM, RED, Style, add_command, use_colour
from pi_sdk._models.default import get_providers

__all__ = ["CLOSE_MATCH", "register", "unknown_provider"]

CLOSE_MATCH = 0.75
"""How alike a typed provider name and a real one must be to be suggested (:mod:`difflib`'s
ratio: ``antropic`` and ``anthropic`` are 0.94; ``nope`` and ``openai``, 0.6, are not)."""


def unknown_provider(provider: str) -> str:
    """The message for a provider no installed plugin has models for (close matches named)."""
    known = get_providers()
    close = difflib.get_close_matches(provider, known, n=3, cutoff=CLOSE_MATCH)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"no models registered for provider {provider!r}{hint} (`pi-sdk models` lists them)"


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
