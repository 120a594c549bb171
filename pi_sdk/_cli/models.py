"""``pi-sdk models``: every provider's models, their prices, and where each list came from.

```
pi-sdk models [--provider P] [--json]              the catalog and the stored server lists
pi-sdk models --refresh [--provider P] [--timeout S]
                                                    ask the servers that list their models
pi-sdk models --server ID=URL [--server ...]       list OpenAI-compatible servers (refreshes)
```

A model's ``source`` is ``catalog`` (a provider package's data), ``server`` (listed by its server
during this command, or confirmed unchanged by a 304), ``store`` (listed earlier, kept in the
config folder: :mod:`pi_sdk._cli.model_lists`) or ``by hand``. ``--refresh`` asks every provider
that can list its models, or only those named by ``--provider`` and ``--server``. A provider
that could not be listed gets one line on stderr (no traceback) naming it, its URL and the
reason; the rest is shown, and the exit status is 1. An unknown ``--provider``, or one that
cannot list its models with ``--refresh``, is an input error (exit status 2).
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
    warnings_on,
)
from pi_sdk._cli.hints import unknown_provider
from pi_sdk._cli.model_lists import use_model_lists
from pi_sdk._models.default import default_models
from pi_sdk._models.refresh import ListSource
from pi_sdk.types import Model

__all__ = ["register"]

_SOURCE: dict[ListSource, str] = {"server": "server", "not-modified": "server", "store": "store"}


def _listing_providers() -> list[str]:
    return [p.id for p in default_models().providers() if p.fetch_models is not None]


def _check_provider(provider: str | None, refresh: bool) -> None:
    """An input error for a ``--provider`` with nothing to show or refresh."""
    if provider is None:
        return
    listing = _listing_providers()
    has_models = bool(default_models().models(provider))
    if refresh and provider not in listing and has_models:
        raise UsageError(
            f"provider {provider!r} has no model list to refresh (its models are a catalog's);"
            f" providers that do: {', '.join(listing) or 'none'}"
        )
    if not refresh and provider in listing and not has_models:
        raise UsageError(
            f"no models listed for provider {provider!r} yet: `pi-sdk models --refresh"
            f" --provider {provider}` asks its server"
        )
    if provider not in listing and not has_models:
        raise UsageError(unknown_provider(provider))


def _refresh(names: list[str] | None, timeout_s: float) -> Any:
    """Refresh ``names`` (``None``: every provider) with the keys file's keys in reach."""
    from pi_sdk._cli.keys import stored_keys

    with stored_keys():
        return default_models().refresh_sync(names, timeout_s=timeout_s)


def _models(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    servers: Sequence[str] = args.server or ()
    refresh = bool(args.refresh or servers)
    if refresh:
        from pi_sdk._cli.common import require_cli_extra

        require_cli_extra("models --refresh")  # the lists are kept in the config folder
    with warnings_on(err):
        offline = use_model_lists(servers)
        sources, errors = dict(offline.sources), dict(offline.errors)
        _check_provider(args.provider, refresh)
        if refresh:
            named = [s.partition("=")[0].strip() for s in servers]
            named += [args.provider] if args.provider else []
            result = _refresh(sorted(set(named)) if named else None, args.timeout)
            sources.update(result.sources)
            errors = {**errors, **result.errors}
    for _, message in sorted(errors.items()):
        err.write(f"pi-sdk: could not list {message}\n")
    models = default_models().models(args.provider)
    if args.json:
        for model in models:
            out.write(json.dumps(model.model_dump(mode="json"), ensure_ascii=False) + "\n")
    else:
        _table(models, sources, errors, out)
    return 1 if errors else 0


def _source(model: Model, sources: dict[str, ListSource]) -> str:
    origin = default_models().origin(model.provider, model.id)
    if origin == "fetched":
        return _SOURCE.get(sources.get(model.provider, "store"), "store")
    return "by hand" if origin == "hand" else "catalog"


def _table(
    models: list[Model], sources: dict[str, ListSource], errors: dict[str, str], out: TextIO
) -> None:
    if not models:
        out.write("no models registered\n")
        return
    style = Style(use_colour(out))
    header = ("provider", "id", "context", "max out", "reasoning", "input", "$/M in", "$/M out",
              "$/M cache r", "$/M cache w", "source")  # fmt: skip
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
            _source(m, sources),
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
    summary = f"{plural(len(rows), 'model')} · prices in USD per million tokens"
    if errors:
        summary += style(f" · {len(errors)} not listed: {', '.join(sorted(errors))}", RED)
    out.write(style(summary, DIM) + "\n")


def register(commands: Any) -> None:
    """Add ``models`` to the ``pi-sdk`` subcommands."""
    parser = add_command(
        commands, "models", "list the models, their prices and where each list came from",
        _run, json_help="one JSON model per line",
    )  # fmt: skip
    parser.add_argument("--provider", help="only this provider's models, e.g. anthropic")
    parser.add_argument(
        "--refresh", action="store_true",
        help="ask the servers that list their models (all, or --provider's) and keep the lists",
    )  # fmt: skip
    parser.add_argument(
        "--server", action="append", metavar="ID=URL",
        help="an OpenAI-compatible server to list now, e.g. vllm=http://gpu-box:8000/v1"
        " (repeatable; implies --refresh)",
    )  # fmt: skip
    parser.add_argument(
        "--timeout", type=float, default=10.0, metavar="SECONDS",
        help="each server's time to answer (default: 10)",
    )  # fmt: skip


def _run(args: argparse.Namespace) -> int:
    return _models(args, sys.stdout, sys.stderr)
