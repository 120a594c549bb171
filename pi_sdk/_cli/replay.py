"""``pi-sdk replay`` and ``pi-sdk demo``: play recorded calls through the real adapters.

```
pi-sdk replay CASSETTE [--api API] [--json]   play a vcrpy cassette through the real adapters
pi-sdk demo [--json]                          the same on the bundled anthropic_demo.yaml
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
import sys
from pathlib import Path
from typing import Any, TextIO

from pi_sdk._cli.common import (
    BLUE,
    BOLD,
    CYAN,
    DIM,
    GREEN,
    ITALIC,
    MAGENTA,
    RED,
    YELLOW,
    Style,
    UsageError,
    add_command,
    plural,
    use_colour,
)
from pi_sdk.errors import ProviderNotFoundError
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

__all__ = ["DEMO_CASSETTE", "register"]

DEMO_CASSETTE = Path(__file__).resolve().with_name("anthropic_demo.yaml")
"""The cassette ``pi-sdk demo`` plays (package data of pi-sdk-core, beside this module)."""


# --- human output -----------------------------------------------------------------------------


class _LivePrinter:
    """Prints one call's events as they arrive."""

    def __init__(self, out: TextIO, style: Style) -> None:
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


def _summary(message: AssistantMessage, style: Style) -> list[str]:
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
        detail = f"{plural(len(thinking), 'block')}, {plural(visible, 'char')}"
        if redacted:
            detail += f", {redacted} redacted"
        detail += ", signature present" if signed else ", unsigned"
        lines.append("  " + s("thinking   ", BOLD) + detail)
    for call in (b for b in message.content if isinstance(b, ToolCall)):
        arguments, problem = json.dumps(call.arguments, ensure_ascii=False), ""
        if call.arguments_error is not None:  # shown as the model sent them, not as `{}`
            reason, _, raw = call.arguments_error.partition("\n\nReceived arguments:\n")
            arguments = raw if call.invalid_arguments is None else call.invalid_arguments
            first_line = reason.partition("\n")[0]
            problem = s(f"  (arguments not valid: {first_line})", RED)
        lines.append(
            "  "
            + s("tool call  ", BOLD)
            + s(call.name, CYAN)
            + f" {_short(arguments, 200)}"
            + problem
            + s(f"  (id {call.id})", DIM)
        )
    u = message.usage
    lines.append(
        "  "
        + s("usage      ", BOLD)
        + f"input {u.input} · output {u.output} · cache read {u.cache_read}"
        + f" · cache write {u.cache_write} · total {plural(u.total_tokens, 'token')}"
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


def _header(index: int, model: Model, method: str, uri: str, style: Style) -> str:
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
    from pi_sdk._testing.replay import replay

    style = Style(use_colour(out) and not as_json)
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


def _run_replay(args: argparse.Namespace) -> int:
    return asyncio.run(_replay(args.cassette, args.api, args.json, sys.stdout, sys.stderr))


def _run_demo(args: argparse.Namespace) -> int:
    if not DEMO_CASSETTE.is_file():
        raise UsageError(
            f"demo cassette not found at {DEMO_CASSETTE} "
            "(`pi-sdk demo` runs from a source checkout of pi-sdk)"
        )
    try:
        return asyncio.run(
            _replay(DEMO_CASSETTE, None, args.json, sys.stdout, sys.stderr, strict=True)
        )
    except ProviderNotFoundError:  # the replay's own hint ("or pass --api") is not for demo
        raise UsageError(
            "`pi-sdk demo` replays a recorded Anthropic stream and needs the pi-sdk-anthropic"
            " provider package, which is not installed (pip install pi-sdk-anthropic)"
        ) from None


def register(commands: Any) -> None:
    """Add ``replay`` and ``demo`` to the ``pi-sdk`` subcommands."""
    replay = add_command(
        commands, "replay", "play every interaction of a vcrpy cassette through the real adapters",
        _run_replay, json_help="one JSON event per line",
    )  # fmt: skip
    replay.add_argument("cassette", type=Path, help="path of a vcrpy cassette (YAML or .json)")
    replay.add_argument("--api", help="API id to use for every interaction (default: detected)")
    add_command(
        commands, "demo", "replay the bundled Anthropic demo cassette, offline", _run_demo,
        json_help="one JSON event per line",
    )  # fmt: skip
