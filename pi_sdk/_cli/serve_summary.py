"""What ``pi-sdk serve`` checks and says before it serves: its models, keys, address and limits.

* Every ``--allow`` pattern must match at least one registered model: a pattern that matches
  none (``gogle/*``) is a typo that would refuse every call for it, so the command stops
  (status 2) naming it and the close providers.
* Then a summary on stderr: where it listens, that calls need the bearer token (and where the
  token comes from), the models it serves, for each of their providers whether a key was found
  (never the key), and its limits. A provider without a key is a warning: its calls will fail.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from pi_sdk._cli.common import UsageError, plural
from pi_sdk._cli.hints import CLOSE_MATCH
from pi_sdk._models.default import get_api_key, get_models, get_providers
from pi_sdk._serve.limits import ServerLimits
from pi_sdk.types import Model

__all__ = ["Serving", "served_models", "summary"]

_SHOWN = 8
"""Models named in the summary; the rest are counted."""

_SHORT_TOKEN = 16
"""A bearer token shorter than this is warned about (``openssl rand -hex 32`` makes 64)."""


def served_models(patterns: Sequence[str]) -> list[Model]:
    """The registered models the ``--allow`` patterns match, sorted by provider and id.

    Raises:
        UsageError: a pattern matches no registered model (named, with close providers).
    """
    models = get_models()
    served: dict[tuple[str, str], Model] = {}
    for pattern in patterns:
        matched = [m for m in models if fnmatchcase(f"{m.provider}/{m.id}", pattern)]
        if not matched:
            raise UsageError(_matches_nothing(pattern))
        served.update(((m.provider, m.id), m) for m in matched)
    return [served[key] for key in sorted(served)]


def _matches_nothing(pattern: str) -> str:
    provider = pattern.partition("/")[0]
    close = difflib.get_close_matches(provider, get_providers(), n=3, cutoff=CLOSE_MATCH)
    hint = f"; did you mean {' or '.join(f'{c}/...' for c in close)}?" if close else ""
    return (
        f"--allow {pattern!r} matches no registered model{hint} (`pi-sdk models` lists them;"
        " --models FILE adds your own)"
    )


@dataclass(frozen=True, kw_only=True)
class Serving:
    """What the server runs with."""

    url: str
    token_source: str
    token_length: int
    models: list[Model]
    limits: ServerLimits
    body_timeout_ms: float
    max_body_bytes: int
    cors_origins: tuple[str, ...]
    workers: int = 1
    keys: int = 1
    """Bearer keys: the token and those of ``--keys-file``."""
    rate_limit: str | None = None
    usage_db: str | None = None


def summary(serving: Serving) -> list[str]:
    """The lines ``pi-sdk serve`` prints on stderr before it serves (no secret in them)."""
    lines = [
        f"pi-sdk serve: listening on {serving.url}",
        "  protocols: pi's proxy (POST /api/stream) and pi-messages (POST /messages, model"
        " '<provider>/<id>')",
        f"  auth: on, every call needs the bearer token from {serving.token_source}",
    ]
    if serving.token_length < _SHORT_TOKEN:
        lines.append(
            f"  warning: the token is {plural(serving.token_length, 'character')} long; use a"
            " long random one (openssl rand -hex 32)"
        )
    names = [f"{m.provider}/{m.id}" for m in serving.models]
    more = f", and {len(names) - _SHOWN} more" if len(names) > _SHOWN else ""
    lines.append(f"  models: {plural(len(names), 'model')}: {', '.join(names[:_SHOWN])}{more}")
    for provider in sorted({m.provider for m in serving.models}):
        if get_api_key(provider):
            lines.append(f"  keys: {provider}: found (its environment variable or a plugin)")
        else:
            lines.append(
                f"  warning: no API key for {provider}: its calls will fail until its key"
                " variable is set (the provider's page names it)"
            )
    limits = serving.limits
    lines.append(
        f"  limits: {plural(limits.max_connections, 'connection')}; request head within"
        f" {limits.header_timeout_s:g} s, body within {serving.body_timeout_ms / 1000:g} s and"
        f" {serving.max_body_bytes:,} bytes; idle connections closed after"
        f" {limits.idle_timeout_s:g} s"
    )
    if serving.cors_origins:
        lines.append(f"  browsers: pages of {', '.join(serving.cors_origins)} may call it")
    if serving.workers > 1:
        lines.append(
            f"  workers: {serving.workers} processes on the one port (the connection limit"
            " holds in each)"
        )
    if serving.keys > 1:
        lines.append(f"  keys: {plural(serving.keys, 'bearer key')} (the token and --keys-file)")
    if serving.usage_db:
        limit = f"at most {serving.rate_limit} per key" if serving.rate_limit else "no rate limit"
        lines.append(f"  usage: {limit}; counted per key in {serving.usage_db}")
    return lines
