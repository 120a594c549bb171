"""``pi-sdk chat``: an interactive session on the Agent (docs/cli.md).

Each line you type is a prompt; the answer streams (:mod:`pi_sdk._cli.render`). Commands:

```
/model [PROVIDER/ID]   show or switch the model; the conversation carries over
/reasoning [LEVEL]     show or set the reasoning level: off, minimal, low, medium, high, xhigh
/save [FILE]           save the session now; with FILE, save there and keep saving there
/thinking              print the last answer's thinking in full
/help                  this list
/quit                  leave (also Ctrl-D, or Ctrl-C twice)
```

**Session file.** The transcript is saved after every turn, in pi-sdk's session format
(:func:`pi_sdk.save_session`, metadata ``{"model": "provider/id", "thinking_level": ...}``):
to ``--session FILE`` (loaded first when it exists), else to a new file in the user's data
folder (``sessions/`` of :func:`pi_sdk._cli.paths.sessions_dir`). ``--continue`` loads the
session the chat saved last (following ``/save FILE``) and goes on with its model unless
``-m`` says otherwise; ``--allow-truncated`` continues a cut file from its complete entries
(:mod:`pi_sdk._cli.chat_session`). "saved to" is said only after a save succeeded.

**/model.** The transcript stays as it is; before every call the new model's provider makes the
history valid for its API (:func:`pi_sdk.provider.transform_messages`), and the chat prints one
dim line saying what that changes (:func:`pi_sdk._cli.switch.carry_over`).

**Ctrl-C** aborts the current turn at once, while the model streams or a tool runs
(:mod:`pi_sdk._cli.turn`); the aborted turn stays in the transcript. A second Ctrl-C, or
Ctrl-D at the prompt, leaves. ``--json``: prompts are read from stdin one per line, and every
agent event is written as one JSON line (command messages go to stderr).

**--mcp CONFIG** starts the MCP servers of an ``mcpServers`` JSON file with the chat and offers
their tools (pi-sdk-mcp, :class:`pi_sdk_mcp.cli.ChatServers`); they stop when the chat ends.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pi_sdk._agent.agent import Agent
from pi_sdk._agent.session import save_session
from pi_sdk._cli.broken_plugins import refuse_broken_plugins
from pi_sdk._cli.chat_session import open_session, record_saved
from pi_sdk._cli.closed_stdout import EXIT_BROKEN_PIPE, PipeGuard
from pi_sdk._cli.common import UsageError, plural, require_cli_extra
from pi_sdk._cli.keys import stored_keys
from pi_sdk._cli.mcp import mcp_cli
from pi_sdk._cli.model_lists import stored_lists
from pi_sdk._cli.paths import private_dir, sessions_dir
from pi_sdk._cli.render import JsonLines, Totals, TurnPrinter, transcript_lines
from pi_sdk._cli.setup import (
    add_agent_options,
    build_agent,
    model_name,
    model_spec,
    resolve_model,
)
from pi_sdk._cli.switch import carry_over
from pi_sdk._cli.turn import run_prompt
from pi_sdk._wire.agent_types import AgentThinkingLevel
from pi_sdk._wire.levels import MODEL_THINKING_LEVELS
from pi_sdk.errors import PiSdkError
from pi_sdk.types import AssistantMessage

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["register"]

_HELP = __doc__.split("```")[1].strip("\n") if __doc__ else ""


class _Chat:
    """The state of one chat: agent, session file, output and Ctrl-C bookkeeping."""

    def __init__(self, args: argparse.Namespace, console: Console, notes: Console) -> None:
        self.console = console
        self.notes = notes
        self.as_json: bool = args.json
        opened = open_session(
            args.session, resume=args.resume, allow_truncated=args.allow_truncated
        )
        self.path: Path = opened.path
        self.opening_notes = opened.notes
        messages, metadata = opened.messages, opened.metadata
        saved_model = metadata.get("model") if isinstance(metadata.get("model"), str) else None
        level = metadata.get("thinking_level")
        model = resolve_model(model_spec(args, saved_model), args.base_url)
        self.agent: Agent = build_agent(
            args,
            model,
            messages=messages,
            thinking_level=level if level in MODEL_THINKING_LEVELS else None,
            note=lambda line: self.note(line, "yellow"),
        )
        totals = Totals()
        for message in messages:
            if isinstance(message, AssistantMessage):
                totals.add(message.usage)  # a continued session's totals include its past
        self.printer = TurnPrinter(
            console, notes=notes, totals=totals, session_file=lambda: self.path
        )
        listener = JsonLines(sys.stdout, sys.stderr) if self.as_json else self.printer
        self.output = PipeGuard(listener, self.agent.abort)
        self.agent.subscribe(self.output)
        self.save_error: str | None = None
        """Why the last save to :attr:`path` failed; ``None`` once one succeeds."""
        self.mcp: Any = None
        if args.mcp is not None:
            self.mcp = mcp_cli("--mcp").ChatServers(args.mcp, self.agent, self.note)

    def note(self, text: str, style: str = "dim") -> None:
        if self.as_json:
            self.notes.print(text, style=style, highlight=False, soft_wrap=True)
        else:
            self.printer.note(text, style)

    def start(self) -> None:
        model = self.agent.model
        assert model is not None
        self.note(
            f"pi-sdk chat · {model_name(model)} · reasoning {self.agent.thinking_level}"
            f" · session {self.path} · /help lists the commands",
        )
        for text in self.opening_notes:
            self.note(text, "yellow")
        if self.agent.messages:
            count = plural(len(self.agent.messages), "message")
            self.note(f"continuing {self.path}: {count}", "bold")
            for text, style in transcript_lines(self.agent.messages):
                self.note(text, style or "none")

    def save(self, path: Path | None = None) -> None:
        target = path or self.path
        if target == self.path and path is None and not self.agent.messages:
            return
        model = self.agent.model
        metadata = {
            "model": model_name(model) if model else None,
            "thinking_level": self.agent.thinking_level,
        }
        try:
            if target.parent == sessions_dir():
                private_dir(target.parent)
            save_session(target, self.agent.messages, metadata=metadata)
        except (OSError, PiSdkError) as exc:
            if target == self.path:
                self.save_error = str(exc)
            raise
        if target == self.path:
            self.save_error = None
            record_saved(target)

    # -- commands --------------------------------------------------------------------------

    def command(self, line: str) -> bool:
        """Run a ``/command``; return False when the chat should end."""
        name, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        if name in ("/quit", "/exit"):
            return False
        if name == "/help":
            self.note(_HELP, "none")
        elif name == "/model":
            self._model(rest)
        elif name == "/reasoning":
            self._reasoning(rest)
        elif name == "/save":
            self._save(rest)
        elif name == "/thinking":
            self.note(self.printer.last_thinking or "(no thinking in the last answer)", "italic")
        else:
            self.note(f"unknown command {name}; /help lists them", "red")
        return True

    def _model(self, spec: str) -> None:
        if not spec:
            model = self.agent.model
            self.note(f"model {model_name(model) if model else '-'} ({model and model.api})")
            return
        try:
            model = resolve_model(spec)
        except (UsageError, PiSdkError) as exc:
            self.note(f"✘ {exc}", "red")
            return
        self.note(carry_over(self.agent.messages, model))
        self.agent.model = model
        self.note(f"model {model_name(model)} ({model.api})", "bold")
        self._autosave()

    def _reasoning(self, level: str) -> None:
        if level:
            try:
                self.agent.thinking_level = cast("AgentThinkingLevel", level)
            except ValueError as exc:
                self.note(f"✘ {exc}", "red")
                return
            self._autosave()
        self.note(f"reasoning {self.agent.thinking_level}", "bold")

    def _autosave(self) -> None:
        try:
            self.save()
        except (OSError, PiSdkError) as exc:  # the chat goes on; the transcript is in memory
            self.note(f"✘ cannot save the session: {exc}", "red")

    def _save(self, file: str) -> None:
        path = Path(file).expanduser() if file else None
        try:  # asked for, so written even before the first message (the autosave waits for one)
            self.save(path or self.path)
        except (OSError, PiSdkError) as exc:
            self.note(f"✘ cannot save: {exc}", "red")
            return
        if path is not None:
            self.path, self.save_error = path, None
            record_saved(path)
        self.note(f"saved {plural(len(self.agent.messages), 'message')} to {self.path}", "bold")

    # -- the loop --------------------------------------------------------------------------

    def _read(self) -> str:
        if self.as_json:
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            return line.rstrip("\n")
        return input("you › ")

    def run(self) -> int:
        """Read prompts until the user leaves; return the exit status."""
        if not self.as_json:
            try:
                import readline  # noqa: F401  # pyright: ignore[reportUnusedImport] - line editing
            except ImportError:  # Windows
                pass
        self.start()
        loop = asyncio.new_event_loop()
        interrupted = False
        try:
            if self.mcp is not None:
                self.mcp.start(loop)
            while True:
                try:
                    line = self._read()
                except EOFError:
                    if not self.as_json:
                        self.console.print()
                    break
                except KeyboardInterrupt:
                    self.console.print()
                    if interrupted:
                        break
                    self.note("(Ctrl-C again or Ctrl-D leaves)")
                    interrupted = True
                    continue
                interrupted = False
                if not line.strip():
                    continue
                if line.startswith("/"):
                    if not self.command(line):
                        break
                    continue
                presses = loop.run_until_complete(run_prompt(self.agent, line, self._warn))
                self._autosave()
                if presses >= 2 or self.output.closed:  # no one reads the answers any more
                    break
                if presses:
                    interrupted = True
                    self.note("✘ turn aborted (Ctrl-C); Ctrl-C again or Ctrl-D leaves", "yellow")
        finally:
            if self.mcp is not None:
                self.mcp.stop(loop)
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
        if self.output.closed:
            return EXIT_BROKEN_PIPE
        return self._bye()

    def _warn(self, text: str) -> None:
        self.note(text, "yellow")

    def _bye(self) -> int:
        """Say goodbye, and where the session is; 1 when its last save failed."""
        totals = self.printer.totals
        head = f"session: {totals.describe()} · " if totals.calls else ""
        if self.save_error is not None:
            self.note(f"{head}✘ NOT saved to {self.path}: {self.save_error}", "red")
        elif head:
            self.note(f"{head}saved to {self.path}")
        self.note("bye")
        return 0 if self.save_error is None else 1


def _run(args: argparse.Namespace) -> int:
    require_cli_extra("chat")
    stored_lists(sys.stderr)  # the servers' lists `pi-sdk models --refresh` kept
    from rich.console import Console

    if args.session is not None and args.resume:
        raise UsageError("--session and --continue exclude each other")
    refuse_broken_plugins(args, sys.stderr)
    with stored_keys():
        chat = _Chat(args, Console(highlight=False), Console(stderr=args.json, highlight=False))
        return chat.run()


def register(commands: Any) -> None:
    """Add ``chat`` to the ``pi-sdk`` subcommands."""
    chat = commands.add_parser("chat", help="an interactive session: /model, /save, Ctrl-C ...")
    add_agent_options(chat)
    chat.add_argument(
        "--session", type=Path, metavar="FILE", help="load FILE if it exists, save the chat there"
    )
    chat.add_argument(
        "-c", "--continue", dest="resume", action="store_true",
        help="continue the most recent session of the data folder",
    )  # fmt: skip
    chat.add_argument(
        "--allow-truncated", action="store_true",
        help="continue a cut session file from its complete entries (saved to a new file)",
    )  # fmt: skip
    chat.add_argument(
        "--mcp", metavar="CONFIG", help="offer the tools of the MCP servers of an mcpServers file"
    )
    chat.set_defaults(run=_run)
