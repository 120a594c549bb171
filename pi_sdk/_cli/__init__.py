"""The ``pi-sdk`` command: one private module per subcommand (docs/cli.md).

```
pi-sdk prompt -m PROVIDER/ID TEXT     stream one answer (on the Agent)
pi-sdk chat [-m PROVIDER/ID]          an interactive session: /model, /reasoning, /save ...
pi-sdk keys set|list|remove PROVIDER  API keys in the user's config folder
pi-sdk replay CASSETTE | demo         play recorded calls through the real adapters
pi-sdk models [--refresh]             the models: the catalog and the servers' lists
pi-sdk plugins                        the installed plugins
pi-sdk mcp list CONFIG                MCP servers' tools (needs pi-sdk-mcp)
pi-sdk --version
```

Each subcommand has a registration function, ``register(commands)``, that adds its parser to the
``argparse`` subcommands and sets ``run`` (``run(args) -> exit status``) as the parser's default;
adding a subcommand means adding ``"module:function"`` to :data:`COMMANDS`. ``prompt``,
``chat`` and ``keys`` need the ``cli`` extra (rich, platformdirs): without it they end with one
line naming the extra. Errors from pi-sdk (:class:`pi_sdk.PiSdkError`) and input errors end
with one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
from collections.abc import Sequence
from importlib import metadata

from pi_sdk._cli.closed_stdout import EXIT_BROKEN_PIPE, silence_stdout
from pi_sdk._cli.common import EXIT_USAGE, UsageError, load_registry
from pi_sdk._cli.replay import DEMO_CASSETTE
from pi_sdk.errors import PiSdkError

__all__ = ["COMMANDS", "DEMO_CASSETTE", "main"]

COMMANDS = (
    "pi_sdk._cli.prompt:register",
    "pi_sdk._cli.chat:register",
    "pi_sdk._cli.keys:register",
    "pi_sdk._cli.replay:register",
    "pi_sdk._cli.models:register",
    "pi_sdk._cli.listing:register",
    "pi_sdk._cli.mcp:register",
    "pi_sdk._cli.serve:add_serve_parser",
)
"""The subcommands' registration functions (``"module:function"``), in help order."""


def _version() -> str:
    try:
        return metadata.version("pi-sdk-core")
    except metadata.PackageNotFoundError:  # a source tree on sys.path, not installed
        return "unknown"


class _Parser(argparse.ArgumentParser):
    """An ``argparse`` parser whose unknown-option error suggests the closest option."""

    def unknown(self, extras: list[str]) -> None:
        options = [o for action in self._actions for o in action.option_strings]
        names: list[str] = []
        for extra in extras:
            close = difflib.get_close_matches(extra.split("=", 1)[0], options, n=1)
            names.append(f"{extra} (did you mean {close[0]}?)" if close else extra)
        self.error(f"unrecognized arguments: {' '.join(names)}")


def _parser() -> tuple[_Parser, dict[str, _Parser]]:
    parser = _Parser(
        prog="pi-sdk", description="pi-sdk: one streaming event protocol for every LLM vendor."
    )
    parser.add_argument("--version", action="version", version=f"pi-sdk {_version()}")
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Parser
    )
    for entry in COMMANDS:
        module, _, function = entry.partition(":")
        getattr(importlib.import_module(module), function)(commands)
    return parser, dict(commands.choices)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``pi-sdk`` command line.

    Args:
        argv: Arguments without the program name; default ``sys.argv[1:]``.

    Returns:
        The exit status: 0 on success; 1 when ``demo`` has a call that ended in an error,
        ``plugins`` has a plugin that failed to load, ``models`` could not list a provider,
        ``prompt`` ended in an error or was aborted, or ``keys remove`` found no key; 2 for a
        usage or input error (bad option, path, model or provider, unknown API, a cassette no
        installed provider understands, a missing ``cli`` extra; ``prompt``, ``chat`` or
        ``serve`` with a plugin that failed to load and no ``--allow-broken-plugins``); 130 when
        interrupted; 141 when stdout's reader left early (``| head``; nothing is said on stderr).
    """
    parser, subparsers = _parser()
    args, extras = parser.parse_known_args(argv)
    if extras:  # named by the subcommand's parser, with its usage line
        subparsers[args.command].unknown(extras)
    out, err = sys.stdout, sys.stderr
    try:
        load_registry(err)
        status = args.run(args)
        out.flush()  # here, not at exit, so that a reader that left is noticed below
        return status
    except BrokenPipeError:  # stdout's reader left early (`| head`): end quietly
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except (PiSdkError, UsageError) as exc:
        out.flush()
        err.write(f"pi-sdk: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        err.write("pi-sdk: interrupted\n")
        return 130
