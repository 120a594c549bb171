"""The ``pi-sdk`` command: replay recorded calls, run the offline demo, list the model catalog.

```
pi-sdk replay CASSETTE [--api API] [--json]   play a vcrpy cassette through the real adapters
pi-sdk demo [--json]                          the same on tests/cassettes/anthropic_demo.yaml
pi-sdk models [--provider P] [--json]         the registered models and their prices
pi-sdk plugins [--json]                       installed plugins and the hooks each implements
```

Output for people streams each call's text live (colour on a terminal, unless ``NO_COLOR`` is
set), then summarizes the final message. ``--json`` prints one JSON object per line instead:
every event in pi-mono's wire shape (:func:`pi_sdk.event_to_dict`, without the ``partial``
snapshot, as pi-mono's proxy sends it; ``done``/``error`` carry the final message) plus
``"interaction": i``. A bad path, a cassette no installed provider understands, or an unknown
API ends with one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from pi_sdk._registry import get_api_providers, get_models
from pi_sdk._serve import add_serve_parser
from pi_sdk.errors import PiSdkError
from pi_sdk.events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    event_to_dict,
)
from pi_sdk.types import AssistantMessage, Model, TextContent, ThinkingContent, ToolCall

__all__ = ["DEMO_CASSETTE", "main"]

DEMO_CASSETTE = (
    Path(__file__).resolve().parent.parent / "tests" / "cassettes" / "anthropic_demo.yaml"
)
"""The cassette ``pi-sdk demo`` plays (present in a source checkout)."""

_EXIT_USAGE = 2


class _Style:
    """ANSI styling, or none."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, *codes: str) -> str:
        if not self.enabled or not codes:
            return text
        return f"\033[{';'.join(codes)}m{text}\033[0m"

    def start(self, *codes: str) -> str:
        return f"\033[{';'.join(codes)}m" if self.enabled else ""

    def reset(self) -> str:
        return "\033[0m" if self.enabled else ""


BOLD, DIM, ITALIC, RED, GREEN, YELLOW, BLUE, MAGENTA, CYAN = (
    "1", "2", "3", "31", "32", "33", "34", "35", "36",
)  # fmt: skip


def _use_colour(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty()


def _load_registry(err: TextIO) -> None:
    """Load the plugins now, turning plugin-load warnings into one line each on stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        get_api_providers()
    for warning in caught:
        err.write(f"pi-sdk: warning: {warning.message}\n")


# --- human output -----------------------------------------------------------------------------


class _LivePrinter:
    """Prints one call's events as they arrive."""

    def __init__(self, out: TextIO, style: _Style) -> None:
        self.out = out
        self.style = style
        self.at_line_start = True

    def _write(self, text: str) -> None:
        if text:
            self.out.write(text)
            self.at_line_start = text.endswith("\n")
            self.out.flush()

    def _newline(self) -> None:
        if not self.at_line_start:
            self._write("\n")

    def event(self, event: AssistantMessageEvent) -> None:
        s = self.style
        if isinstance(event, (TextDeltaEvent, ThinkingDeltaEvent, ToolCallDeltaEvent)):
            self._write(event.delta)
        elif isinstance(event, ThinkingStartEvent):
            self._newline()
            self._write(s("thinking ", MAGENTA, BOLD) + s.start(DIM, ITALIC))
        elif isinstance(event, TextStartEvent):
            self._newline()
        elif isinstance(event, ToolCallStartEvent):
            self._newline()
            block = event.partial.content[event.content_index]
            name = block.name if isinstance(block, ToolCall) else "?"
            self._write(s("tool call ", CYAN, BOLD) + s(name, CYAN) + " " + s.start(DIM))
        elif isinstance(event, (ThinkingEndEvent, ToolCallEndEvent, DoneEvent, ErrorEvent)):
            self._write(s.reset())
            self._newline()
        elif isinstance(event, TextEndEvent):
            self._newline()


def _short(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _summary(message: AssistantMessage, style: _Style) -> list[str]:
    s = style
    ok = message.stop_reason not in ("error", "aborted")
    lines = [
        s("✔ " if ok else "✘ ", GREEN if ok else RED, BOLD)
        + s("stop reason ", BOLD)
        + s(message.stop_reason, GREEN if ok else RED)
    ]
    if message.error_message:
        lines.append("  " + s("error      ", BOLD) + s(message.error_message, RED))
    text = "".join(b.text for b in message.content if isinstance(b, TextContent))
    lines.append(
        "  " + s("text       ", BOLD) + (f"“{_short(text)}”" if text else s("(none)", DIM))
    )
    thinking = [b for b in message.content if isinstance(b, ThinkingContent)]
    if thinking:
        visible = sum(len(b.thinking) for b in thinking if not b.redacted)
        redacted = sum(1 for b in thinking if b.redacted)
        signed = any(b.thinking_signature for b in thinking)
        detail = f"{len(thinking)} block(s), {visible} chars"
        if redacted:
            detail += f", {redacted} redacted"
        detail += ", signature present" if signed else ", unsigned"
        lines.append("  " + s("thinking   ", BOLD) + detail)
    for call in (b for b in message.content if isinstance(b, ToolCall)):
        arguments = json.dumps(call.arguments, ensure_ascii=False)
        lines.append(
            "  "
            + s("tool call  ", BOLD)
            + s(call.name, CYAN)
            + f" {_short(arguments, 200)}"
            + s(f"  (id {call.id})", DIM)
        )
    u = message.usage
    lines.append(
        "  "
        + s("usage      ", BOLD)
        + f"input {u.input} · output {u.output} · cache read {u.cache_read}"
        + f" · cache write {u.cache_write} · total {u.total_tokens} tokens"
    )
    c = u.cost
    lines.append(
        "  "
        + s("cost       ", BOLD)
        + s(f"${c.total:.6f}", YELLOW)
        + s(
            f"  (input ${c.input:.6f}, output ${c.output:.6f}, cache read ${c.cache_read:.6f},"
            f" cache write ${c.cache_write:.6f})",
            DIM,
        )
    )
    return lines


def _header(index: int, model: Model, method: str, uri: str, style: _Style) -> str:
    s = style
    return (
        s(f"━━ interaction {index} ", BLUE, BOLD)
        + s(f"{model.api} · {model.provider}/{model.id}", BLUE)
        + s(f" · {method} {uri}", DIM)
    )


# --- commands ---------------------------------------------------------------------------------


_WHOLE_DOCUMENT_NOTE = (
    "interaction {index}: the recorded answer is a whole JSON document, not a stream;"
    " its events are replayed from that document"
)


async def _replay(
    path: Path, api: str | None, as_json: bool, out: TextIO, err: TextIO, *, strict: bool = False
) -> int:
    """Play a cassette; with ``strict``, exit 1 when a call ends in ``error`` / ``aborted``."""
    from pi_sdk.testing._replay import replay

    style = _Style(_use_colour(out) and not as_json)
    played = 0
    failed: list[int] = []
    async for call in replay(path, api=api):
        item = call.interaction
        played += 1
        if as_json:
            if item.whole_document:  # stdout stays pure JSON lines
                err.write(f"pi-sdk: note: {_WHOLE_DOCUMENT_NOTE.format(index=item.index)}\n")
            async for event in call.events:
                record = event_to_dict(event, include_partial=False)
                record["interaction"] = item.index
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()
            if (await call.events.result()).stop_reason in ("error", "aborted"):
                failed.append(item.index)
            continue
        if played > 1:
            out.write("\n")
        out.write(_header(item.index, call.model, item.method, item.display_uri, style) + "\n")
        if item.whole_document:
            note = _WHOLE_DOCUMENT_NOTE.format(index=item.index).split(": ", 1)[1]
            out.write(style(f"({note})", DIM) + "\n")
        printer = _LivePrinter(out, style)
        async for event in call.events:
            printer.event(event)
        message = await call.events.result()
        out.write("\n".join(_summary(message, style)) + "\n")
        out.flush()
        if message.stop_reason in ("error", "aborted"):
            failed.append(item.index)
    if strict and failed:
        err.write(
            f"pi-sdk: error: interaction(s) {', '.join(map(str, failed))} ended in an error;"
            " the demo should replay cleanly (is the installation complete?)\n"
        )
        return 1
    return 0


def _models(provider: str | None, as_json: bool, out: TextIO) -> int:
    models = get_models(provider)
    if as_json:
        for model in models:
            out.write(json.dumps(model.model_dump(mode="json"), ensure_ascii=False) + "\n")
        return 0
    if not models:
        out.write(f"no models registered{f' for provider {provider!r}' if provider else ''}\n")
        return 0
    style = _Style(_use_colour(out))
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
    out.write(style(f"{len(rows)} models · prices in USD per million tokens", DIM) + "\n")
    return 0


def _plugins(as_json: bool, out: TextIO) -> int:
    from pi_sdk.plugins._listing import describe_plugins

    infos = describe_plugins()
    if as_json:
        for info in infos:
            out.write(json.dumps(info.to_dict(), ensure_ascii=False) + "\n")
        return 1 if any(i.error for i in infos) else 0
    style = _Style(_use_colour(out))
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pi-sdk", description="pi-sdk: one streaming event protocol for every LLM vendor."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    replay = commands.add_parser(
        "replay", help="play every interaction of a vcrpy cassette through the real adapters"
    )
    replay.add_argument("cassette", type=Path, help="path of a vcrpy cassette (YAML or .json)")
    replay.add_argument("--api", help="API id to use for every interaction (default: detected)")
    replay.add_argument("--json", action="store_true", help="one JSON event per line")
    demo = commands.add_parser("demo", help="replay the bundled Anthropic demo cassette, offline")
    demo.add_argument("--json", action="store_true", help="one JSON event per line")
    models = commands.add_parser("models", help="list the registered model catalog")
    models.add_argument("--provider", help="only this provider's models, e.g. anthropic")
    models.add_argument("--json", action="store_true", help="one JSON model per line")
    plugins = commands.add_parser("plugins", help="list installed plugins and the hooks of each")
    plugins.add_argument("--json", action="store_true", help="one JSON plugin per line")
    add_serve_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``pi-sdk`` command line.

    Args:
        argv: Arguments without the program name; default ``sys.argv[1:]``.

    Returns:
        The exit status: 0 on success; 1 when ``demo`` has a call that ended in an error or
        ``plugins`` has a plugin that failed to load; 2 for a usage or input error (bad path,
        unknown API, a cassette no installed provider understands); 130 when interrupted.
    """
    args = _parser().parse_args(argv)
    out, err = sys.stdout, sys.stderr
    try:
        _load_registry(err)
        if args.command == "serve":
            return args.run(args)
        if args.command == "models":
            return _models(args.provider, args.json, out)
        if args.command == "plugins":
            return _plugins(args.json, out)
        if args.command == "demo":
            if not DEMO_CASSETTE.is_file():
                raise _UsageError(
                    f"demo cassette not found at {DEMO_CASSETTE} "
                    "(`pi-sdk demo` runs from a source checkout of pi-sdk)"
                )
            return asyncio.run(_replay(DEMO_CASSETTE, None, args.json, out, err, strict=True))
        return asyncio.run(_replay(args.cassette, args.api, args.json, out, err))
    except (PiSdkError, _UsageError) as exc:
        out.flush()
        err.write(f"pi-sdk: error: {exc}\n")
        return _EXIT_USAGE
    except KeyboardInterrupt:
        err.write("pi-sdk: interrupted\n")
        return 130


class _UsageError(Exception):
    """A command-line input problem reported as one line."""


if __name__ == "__main__":
    sys.exit(main())
