"""Every default a ``pi-sdk`` option's help states is the default the option has.

A user reads ``pi-sdk serve --help`` ("port to bind (default 8787)") and relies on it; the
parser's own default is what runs. For every option of every subcommand whose help says
``(default X)`` and whose default argparse holds, the two must agree (numbers compared as
numbers: ``30`` for ``30.0``). Defaults the help names but argparse does not hold (``8 MiB``,
``<data dir>/...``: applied later) are left to the tests of what applies them.
"""

from __future__ import annotations

import argparse
import re

from pi_sdk._cli import _parser

STATED = re.compile(r"\(default ([^;)]+)[;)]")
"""``(default X)``; ``(default: from ulimit -n)`` describes a rule, not a value."""


def stated_defaults() -> list[tuple[str, str, str, object]]:
    """(subcommand, option, the help's default, argparse's default) for each stated one."""
    _, subparsers = _parser()
    found = []
    for name, sub in subparsers.items():
        for action in sub._actions:
            match = STATED.search(action.help or "")
            if match and action.option_strings and action.default is not None:
                found.append((name, action.option_strings[0], match.group(1), action.default))
    return found


def same(stated: str, default: object) -> bool:
    if isinstance(default, bool | int | float):
        try:
            return float(stated) == float(default)
        except ValueError:
            return False
    return stated == str(default)


def test_every_stated_default_is_the_real_one():
    found = stated_defaults()
    wrong = [
        (cmd, opt, text, default) for cmd, opt, text, default in found if not same(text, default)
    ]
    assert wrong == []
    # The check reaches the options users set most (a help rewording must not hide them).
    checked = {(cmd, opt) for cmd, opt, _, _ in found}
    for option in ("--host", "--port", "--token-env", "--log-level", "--workers", "--body-timeout",
                   "--header-timeout", "--idle-timeout"):  # fmt: skip
        assert ("serve", option) in checked


def test_the_comparison_tells_a_wrong_default():
    assert same("8787", 8787) and same("30", 30.0) and same("info", "info")
    assert not same("8787", 8788) and not same("5", 5.5) and not same("info", "debug")
    assert isinstance(_parser()[0], argparse.ArgumentParser)
