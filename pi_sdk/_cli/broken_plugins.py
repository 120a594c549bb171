"""Plugins that failed to load stop the commands that run models, unless the user opts out.

A plugin that fails to load (an import error, a misspelt hook such as ``after_tool_calls``)
has none of its hooks registered: its ``before_tool_call`` policy, its ``on_payload``
redaction, its audit log would silently stop applying. So ``prompt``, ``chat`` and ``serve``
fail closed: they refuse to run (status 2) with one line naming each such plugin, its
distribution and the fixes. The same holds for a name :data:`LOAD_PLUGINS_ENV` asks for that no
installed plugin has (a typo there leaves the intended plugin out just as surely).

The user opts out explicitly, for one run, with ``--allow-broken-plugins`` or with the
environment variable :data:`ALLOW_BROKEN_PLUGINS_ENV` set to ``1`` (also ``true``, ``yes``,
``on``); the command then runs without those plugins, saying so on stderr. The listing commands
(``plugins``, ``models``) and ``replay`` / ``demo`` run models of no one and keep reporting a
failed plugin as a warning (``plugins`` with status 1).
"""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from pi_sdk._cli.common import UsageError
from pi_sdk._plugins.manager import LOAD_PLUGINS_ENV, get_plugin_manager

__all__ = ["ALLOW_BROKEN_PLUGINS_ENV", "add_broken_plugins_option", "refuse_broken_plugins"]

ALLOW_BROKEN_PLUGINS_ENV = "PI_SDK_ALLOW_BROKEN_PLUGINS"
"""Set to ``1`` to run ``prompt``, ``chat`` and ``serve`` without plugins that failed to load."""


def _opt_out(one: bool) -> str:
    """The way to run anyway, naming one plugin as ``it`` and several as ``them``."""
    return (
        f"run without {'it' if one else 'them'}: --allow-broken-plugins"
        f" (or {ALLOW_BROKEN_PLUGINS_ENV}=1)"
    )


def add_broken_plugins_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--allow-broken-plugins`` to a command that runs models."""
    parser.add_argument(
        "--allow-broken-plugins",
        action="store_true",
        help=f"run even if a plugin failed to load, without it (or {ALLOW_BROKEN_PLUGINS_ENV}=1)",
    )


def _allowed(args: argparse.Namespace) -> bool:
    if getattr(args, "allow_broken_plugins", False):
        return True
    value = os.environ.get(ALLOW_BROKEN_PLUGINS_ENV, "").strip().lower()
    return value in ("1", "true", "yes", "on")


def refuse_broken_plugins(args: argparse.Namespace, err: TextIO) -> None:
    """Stop unless every plugin loaded, or the user opted out (then one warning per plugin).

    The plugins have been loaded already (:func:`pi_sdk._cli.common.load_registry`, which
    printed each failure's cause).

    Raises:
        UsageError: a plugin failed to load, or :data:`LOAD_PLUGINS_ENV` names one that is not
            installed, and neither ``--allow-broken-plugins`` nor
            :data:`ALLOW_BROKEN_PLUGINS_ENV` says to run anyway. The message names the plugin,
            its distribution and the fixes.
    """
    manager = get_plugin_manager()
    failed = [error.plugin for error in manager.load_errors]
    if not failed and not manager.missing:
        return
    if _allowed(args):
        for name in failed:
            err.write(f"pi-sdk: warning: running without plugin {name!r}, which failed to load\n")
        for name in manager.missing:
            err.write(f"pi-sdk: warning: running without plugin {name!r}, which is not installed\n")
        return
    if failed:
        one = len(failed) == 1
        its, it = ("its", "it") if one else ("their", "them")
        distributions = [
            d for d in (manager.distributions.get(n, ("", ""))[0] for n in failed) if d
        ]
        uninstall = f" or `pip uninstall {' '.join(distributions)}`" if distributions else ""
        raise UsageError(
            f"plugin{'' if one else 's'} {_labels(failed, manager.distributions)} failed to"
            f" load, so none of {its} hooks would apply (a tool policy, a redaction, ...);"
            f" fix {it}{uninstall}, or {_opt_out(one)}"
        )
    one = len(manager.missing) == 1
    what, its = ("is not an installed plugin", "its") if one else ("are not installed", "their")
    names = "name" if one else "names"
    raise UsageError(
        f"{LOAD_PLUGINS_ENV} names {', '.join(map(repr, manager.missing))}, which {what}, so"
        f" none of {its} hooks would apply; correct the {names} (`pi-sdk plugins` lists the"
        f" installed ones), or {_opt_out(one)}"
    )


def _labels(names: list[str], distributions: dict[str, tuple[str, str]]) -> str:
    """``'policy' (pi-sdk-policy), 'other'``: each name, with its distribution when known."""
    labels: list[str] = []
    for name in names:
        distribution = distributions.get(name, ("", ""))[0]
        labels.append(f"{name!r} ({distribution})" if distribution else repr(name))
    return ", ".join(labels)
