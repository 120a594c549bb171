"""The library's advice, said in terms a command-line user can act on.

The library's messages give Python advice (``pass StreamOptions(api_key=...)``, ``pass
allow_truncated=True``); at the command line the fix is a command or an option:

* a provider with no models: the first-party package that brings them
  (:func:`pi_sdk._wire.first_party.install_hint`), in :func:`unknown_provider`;
* a call without an API key: ``pi-sdk keys set PROVIDER`` or the vendor's variable
  (:func:`missing_key_hint`);
* a session file that lost its tail: ``--allow-truncated`` (:func:`truncated_hint`).
"""

from __future__ import annotations

import difflib
import os
import re

from pi_sdk._agent.session import TRUNCATED_HINT
from pi_sdk._models.default import get_providers
from pi_sdk._plugins.manager import LOAD_PLUGINS_ENV, get_plugin_manager
from pi_sdk._wire.first_party import FIRST_PARTY_PROVIDERS, install_hint

__all__ = ["CLOSE_MATCH", "missing_key_hint", "truncated_hint", "unknown_provider"]

CLOSE_MATCH = 0.75
"""How alike a typed provider name and a real one must be to be suggested (:mod:`difflib`'s
ratio: ``antropic`` and ``anthropic`` are 0.94; ``nope`` and ``openai``, 0.6, are not)."""

_NO_KEY = re.compile(r"No API key for provider '?(?P<provider>[^'\s:]+)'?:")
_VARIABLE = re.compile(r"\b[A-Z][A-Z0-9_]*_(?:API_KEY|TOKEN)\b")


def _installed(names: tuple[str, ...]) -> frozenset[str]:
    """Which of the distributions ``names`` are installed."""
    from importlib import metadata

    found: set[str] = set()
    for name in names:
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        found.add(name)
    return frozenset(found)


def unknown_provider(provider: str) -> str:
    """The message for a provider no loaded plugin has models for.

    Names the close matches among the registered providers; else the first-party package that
    brings the provider's models (``pip install pi-sdk-anthropic``); or, when that package is
    installed, why it registered none (:data:`LOAD_PLUGINS_ENV` left it out, or it failed to
    load).
    """
    close = difflib.get_close_matches(provider, get_providers(), n=3, cutoff=CLOSE_MATCH)
    if close:
        hint = f"; did you mean {', '.join(close)}?"
    else:
        hint = _installed_hint(provider) or install_hint(provider)
    return f"no models registered for provider {provider!r}{hint} (`pi-sdk models` lists them)"


def _installed_hint(provider: str) -> str:
    installed = _installed(FIRST_PARTY_PROVIDERS.get(provider, ()))
    if not installed:
        return ""
    names = " and ".join(sorted(installed))
    verb, it = ("is", "it") if len(installed) == 1 else ("are", "them")
    loaded = {dist for dist, _ in get_plugin_manager().distributions.values()}
    if LOAD_PLUGINS_ENV in os.environ and not installed & loaded:
        return f"; {names} {verb} installed but {LOAD_PLUGINS_ENV} leaves {it} out"
    return f"; {names} {verb} installed but registered none (`pi-sdk plugins` says why)"


def missing_key_hint(error_message: str) -> str | None:
    """A command-line fix for a call that had no API key, or ``None`` for any other error.

    Args:
        error_message: The error of a failed answer (``AssistantMessage.error_message``); the
            providers' missing-key errors start ``No API key for provider 'anthropic':`` and
            name the vendor's variables.

    Returns:
        ``no API key for provider 'anthropic': store one with `pi-sdk keys set anthropic`, or
        set ANTHROPIC_API_KEY``.
    """
    match = _NO_KEY.match(error_message)
    if match is None:
        return None
    provider = match.group("provider")
    variables = list(dict.fromkeys(_VARIABLE.findall(error_message)))
    where = f", or set {' or '.join(variables)}" if variables else ""
    command = f"`pi-sdk keys set {provider}`"
    return f"no API key for provider {provider!r}: store one with {command}{where}"


def truncated_hint(message: str) -> str | None:
    """A :class:`pi_sdk.SessionFileError` about a lost tail, with the CLI's option as its fix.

    Returns:
        The message with ``--allow-truncated`` in place of ``allow_truncated=True``; ``None``
        when the error is not about a lost tail.
    """
    if TRUNCATED_HINT not in message:
        return None
    return message.replace(
        TRUNCATED_HINT, "; pass --allow-truncated to continue from the entries before it"
    )
