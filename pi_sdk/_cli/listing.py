"""``pi-sdk models`` and ``pi-sdk plugins``: the model catalog and the installed plugins.

```
pi-sdk models [--provider P] [--json]         the registered models and their prices
pi-sdk plugins [--json]                       installed plugins and the hooks each implements
```

An unknown ``--provider`` is an input error (exit status 2) naming the close matches.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from pi_sdk._cli.common import (
    BOLD,
    DIM,
    RED,
    Style,
    UsageError,
    add_command,
    plural,
    use_colour,
)
from pi_sdk._cli.hints import unknown_provider
from pi_sdk._models.default import get_models

__all__ = ["register"]


def _models(provider: str | None, as_json: bool, out: TextIO) -> int:
    models = get_models(provider)
    if provider is not None and not models:
        raise UsageError(unknown_provider(provider))
    if as_json:
        for model in models:
            out.write(json.dumps(model.model_dump(mode="json"), ensure_ascii=False) + "\n")
        return 0
    if not models:
        out.write("no models registered\n")
        return 0
    style = Style(use_colour(out))
    header = ("provider", "id", "context", "max out", "reasoning", "input", "$/M in", "$/M out",
              "$/M cache r", "$/M cache w")  # fmt: skip
    rows = [
        (
            m.provider,
            m.id,
            f"{m.context_window:,}",
            f"{m.max_tokens:,}",
            "yes" if m.reasoning else "no",
            "+".join(m.input),
            f"{m.cost.input:g}",
            f"{m.cost.output:g}",
            f"{m.cost.cache_read:g}",
            f"{m.cost.cache_write:g}",
        )
        for m in models
    ]
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    numeric = {2, 3, 6, 7, 8, 9}

    def fmt(row: Sequence[str]) -> str:
        cells = [
            c.rjust(w) if i in numeric else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    out.write(style(fmt(header), BOLD) + "\n")
    for row in rows:
        out.write(fmt(row) + "\n")
    out.write(style(f"{plural(len(rows), 'model')} · prices in USD per million tokens", DIM) + "\n")
    return 0


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
    """Add ``models`` and ``plugins`` to the ``pi-sdk`` subcommands."""
    models = add_command(
        commands, "models", "list the registered model catalog", _run_models,
        json_help="one JSON model per line",
    )  # fmt: skip
    models.add_argument("--provider", help="only this provider's models, e.g. anthropic")
    add_command(
        commands, "plugins", "list installed plugins and the hooks of each", _run_plugins,
        json_help="one JSON plugin per line",
    )  # fmt: skip


def _run_models(args: argparse.Namespace) -> int:
    return _models(args.provider, args.json, sys.stdout)


def _run_plugins(args: argparse.Namespace) -> int:
    return _plugins(args.json, sys.stdout)
