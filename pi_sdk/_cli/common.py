"""What every ``pi-sdk`` subcommand shares: the one-line usage error, ANSI style, plugin loading."""

from __future__ import annotations

import argparse
import os
import warnings
from collections.abc import Callable, Generator
from contextlib import contextmanager
from typing import Any, TextIO

from pi_sdk._models.default import get_api_providers

__all__ = [
    "BLUE",
    "BOLD",
    "CYAN",
    "DIM",
    "EXIT_USAGE",
    "GREEN",
    "ITALIC",
    "MAGENTA",
    "RED",
    "YELLOW",
    "Style",
    "add_command",
    "plural",
    "UsageError",
    "load_registry",
    "require_cli_extra",
    "use_colour",
    "warnings_on",
]

EXIT_USAGE = 2
"""Exit status of a usage or input error (argparse's own)."""


class UsageError(Exception):
    """A command-line input problem, reported as one line on stderr with exit status 2."""


class Style:
    """ANSI styling, or none (the commands that do not need the ``cli`` extra)."""

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


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``"1 model"``, ``"2 models"``: ``count`` with ``noun`` in the number it takes.

    Args:
        count: How many.
        noun: The singular.
        nouns: The plural when it is not ``noun + "s"`` (``"entries"``).
    """
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


def use_colour(stream: TextIO) -> bool:
    """Colour on a terminal, unless ``NO_COLOR`` is set; ``FORCE_COLOR`` forces it."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty()


@contextmanager
def warnings_on(err: TextIO) -> Generator[None]:
    """The block's warnings as one line each on ``err`` (``pi-sdk: warning: ...``)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for warning in caught:
        err.write(f"pi-sdk: warning: {warning.message}\n")


def load_registry(err: TextIO) -> None:
    """Load the plugins now, turning plugin-load warnings into one line each on stderr."""
    with warnings_on(err):
        get_api_providers()


def require_cli_extra(command: str) -> None:
    """Check that the ``cli`` extra (rich, platformdirs) is installed.

    Raises:
        UsageError: one of them is missing; the message names the extra to install.
    """
    import importlib.util

    missing = [name for name in ("rich", "platformdirs") if importlib.util.find_spec(name) is None]
    if missing:
        raise UsageError(
            f"`pi-sdk {command}` needs the cli extra ({', '.join(missing)} missing):"
            " install it with `pip install 'pi-sdk-core[cli]'`"
        )


def add_command(
    commands: Any,
    name: str,
    help: str,
    run: Callable[[argparse.Namespace], int],
    *,
    json_help: str | None = None,
) -> argparse.ArgumentParser:
    """Add the subcommand ``name`` running ``run(args)``; ``json_help``: it takes ``--json``."""
    parser: argparse.ArgumentParser = commands.add_parser(name, help=help)
    if json_help:
        parser.add_argument("--json", action="store_true", help=json_help)
    parser.set_defaults(run=run)
    return parser
