"""``pi-sdk prompt -m PROVIDER/ID TEXT``: stream one answer, on the Agent.

The answer's text goes to stdout as it streams; thinking, tool activity, retries (attempt, reason,
wait) and the usage line go to stderr, so ``pi-sdk prompt ... > answer.txt`` keeps only the answer.
``TEXT`` may be ``-`` or left out to read the prompt from stdin. ``--json`` writes every agent
event to stdout instead, one JSON object per line in pi-mono's wire shape. Ctrl-C aborts the
answer. Exit status: 0, 1 when the answer ended in an error, 130 when it was aborted, 2 for an
input error, 141 when stdout's reader left early (``| head``: the answer is aborted, nothing more
is said).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from pi_sdk._cli.broken_plugins import refuse_broken_plugins
from pi_sdk._cli.closed_stdout import EXIT_BROKEN_PIPE, PipeGuard
from pi_sdk._cli.common import UsageError, require_cli_extra
from pi_sdk._cli.keys import stored_keys
from pi_sdk._cli.model_lists import stored_lists
from pi_sdk._cli.render import JsonLines, TurnPrinter
from pi_sdk._cli.setup import add_agent_options, build_agent, model_spec, resolve_model
from pi_sdk._cli.turn import run_prompt
from pi_sdk.types import AssistantMessage

__all__ = ["register", "text_of"]


def text_of(words: list[str]) -> str:
    """The prompt: the words joined, or stdin when they are absent or ``-``.

    Raises:
        UsageError: the prompt is empty.
    """
    text = " ".join(words)
    if (not words or words == ["-"]) and not sys.stdin.isatty():
        text = sys.stdin.read()
    if not text.strip() or text == "-":
        raise UsageError("no prompt: pass it as an argument or on stdin")
    return text


async def _prompt(args: argparse.Namespace) -> int:
    from rich.console import Console

    text = text_of(args.text)
    notes = Console(stderr=True, highlight=False)
    agent = build_agent(
        args,
        resolve_model(model_spec(args), args.base_url),
        note=lambda line: notes.print(line, style="yellow", soft_wrap=True),
    )
    if args.json:
        listener: Any = JsonLines(sys.stdout, sys.stderr)
    else:
        listener = TurnPrinter(Console(highlight=False), notes=notes, thinking_hint=False)
    guard = PipeGuard(listener, agent.abort)
    agent.subscribe(guard)
    presses = await run_prompt(
        agent, text, lambda line: notes.print(line, style="yellow"), second_leaves=False
    )
    if guard.closed:
        return EXIT_BROKEN_PIPE
    last = agent.messages[-1] if agent.messages else None
    if presses or (isinstance(last, AssistantMessage) and last.stop_reason == "aborted"):
        return 130
    return 1 if isinstance(last, AssistantMessage) and last.stop_reason == "error" else 0


def _run(args: argparse.Namespace) -> int:
    require_cli_extra("prompt")
    refuse_broken_plugins(args, sys.stderr)
    stored_lists(sys.stderr)  # the servers' lists `pi-sdk models --refresh` kept
    with stored_keys():
        return asyncio.run(_prompt(args))


def register(commands: Any) -> None:
    """Add ``prompt`` to the ``pi-sdk`` subcommands."""
    prompt = commands.add_parser("prompt", help="stream one answer from a model")
    add_agent_options(prompt)
    prompt.add_argument("text", nargs="*", metavar="TEXT", help="the prompt (default: stdin)")
    prompt.set_defaults(run=_run)
