"""What a recorded cassette must never contain, and the functions that remove it.

Applied when a cassette is *recorded* (replayed requests are not changed):

* request headers :data:`SCRUBBED_REQUEST_HEADERS` (API keys, auth, cookies, organization and
  project ids) are removed;
* query parameters :data:`SCRUBBED_QUERY_PARAMETERS` (Gemini's ``?key=``) are removed;
* response headers :data:`SCRUBBED_RESPONSE_HEADERS` (cookies, organization and project ids) are
  removed;
* then every *value* seen in those headers and parameters, and the value of every environment
  variable that looks like a credential (:func:`secrets_from_environ`), is replaced by
  :data:`PLACEHOLDER` wherever it still appears: URL, request body, any header, response body
  (vendors echo keys in error messages).

Bodies are otherwise stored byte for byte (SSE streams verbatim).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = [
    "PLACEHOLDER",
    "SCRUBBED_QUERY_PARAMETERS",
    "SCRUBBED_REQUEST_HEADERS",
    "SCRUBBED_RESPONSE_HEADERS",
    "SECRET_ENV_SUFFIXES",
    "scrub_text",
    "secrets_from_environ",
    "split_credential",
    "strip_query_parameters",
]

SCRUBBED_REQUEST_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "x-goog-api-key",
        "api-key",
        "cookie",
        "openai-organization",
        "openai-project",
    }
)
"""Request headers (lower-case) removed from recorded requests."""

SCRUBBED_RESPONSE_HEADERS = frozenset(
    {"set-cookie", "openai-organization", "openai-project", "anthropic-organization-id"}
)
"""Response headers (lower-case) removed from recorded responses."""

SCRUBBED_QUERY_PARAMETERS = frozenset({"key"})
"""Query parameters removed from recorded URLs (Gemini API keys)."""

SECRET_ENV_SUFFIXES = ("_API_KEY", "_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
"""Environment variables whose names end like this hold credentials."""

PLACEHOLDER = "<scrubbed>"
"""What a secret value is replaced with."""

_MIN_SECRET_LEN = 8  # shorter values are too likely to occur by chance in a body


def split_credential(value: str) -> set[str]:
    """Return the secret parts of a header value: the value and, for ``Bearer x``, ``x``."""
    value = value.strip()
    parts = {value}
    scheme, _, token = value.partition(" ")
    if token and scheme.lower() in ("bearer", "basic", "token"):
        parts.add(token.strip())
    return {p for p in parts if len(p) >= _MIN_SECRET_LEN}


def secrets_from_environ(environ: Mapping[str, str] | None = None) -> set[str]:
    """Return credential-looking values of the environment (names ending in a secret suffix).

    Args:
        environ: Defaults to ``os.environ``.
    """
    env = os.environ if environ is None else environ
    return {
        value
        for name, value in env.items()
        if name.upper().endswith(SECRET_ENV_SUFFIXES) and len(value) >= _MIN_SECRET_LEN
    }


def strip_query_parameters(uri: str, names: Iterable[str]) -> tuple[str, set[str]]:
    """Remove query parameters ``names`` from ``uri``.

    Returns:
        ``(new_uri, removed_values)``; ``uri`` itself when nothing was removed.
    """
    parts = urlsplit(uri)
    if not parts.query:
        return uri, set()
    drop = {n.lower() for n in names}
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(k, v) for k, v in pairs if k.lower() not in drop]
    if len(kept) == len(pairs):
        return uri, set()
    removed = {v for k, v in pairs if k.lower() in drop and len(v) >= _MIN_SECRET_LEN}
    return urlunsplit(parts._replace(query=urlencode(kept))), removed


def scrub_text(value: Any, secrets: Iterable[str]) -> Any:
    """Replace every secret in ``value`` by :data:`PLACEHOLDER`.

    ``value`` may be ``str``, ``bytes`` (secrets matched as UTF-8), or lists / dicts of those
    (dict keys included); other values are returned unchanged. Longer secrets are replaced first,
    so a secret containing another is removed whole.
    """
    ordered = sorted({s for s in secrets if s}, key=len, reverse=True)
    if not ordered:
        return value
    return _scrub(value, ordered)


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, PLACEHOLDER)
        return value
    if isinstance(value, bytes):
        for secret in secrets:
            encoded = secret.encode("utf-8", "surrogatepass")
            if encoded in value:
                value = value.replace(encoded, PLACEHOLDER.encode())
        return value
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in value]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, dict):
        return {_scrub(k, secrets): _scrub(v, secrets) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    return value
