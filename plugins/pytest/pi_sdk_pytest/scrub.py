"""What a recorded cassette must never contain, and the functions that remove it.

Applied when a cassette is *recorded* (replayed requests are not changed). Rules, not lists of
vendors, so that a header nobody listed is caught too:

* request headers are removed when their name is in :data:`SCRUBBED_REQUEST_HEADERS`
  (organization and project ids besides the credentials) or *says* it carries a credential
  (:func:`pi_sdk.plugins.is_credential_name`: ``auth``, ``key``, ``token``, ``secret``,
  ``passw``, ``cookie``, ``session``, ``signature``, ``credential`` in the name, so
  ``x-custom-auth``, ``cf-aig-authorization``, ``helicone-auth``, ``x-portkey-api-key`` and
  Bedrock's ``x-amz-security-token`` go), or is one the caller names (``secret_headers``);
* query parameters go by the same rules (Gemini's ``?key=``, a presigned URL's
  ``X-Amz-Security-Token``), and the user and password of a URL (``http://user:PASS@host``);
* response headers :data:`SCRUBBED_RESPONSE_HEADERS` (cookies, organization and project ids)
  and the caller's ``secret_headers`` are removed;
* then every *value* seen in those headers, parameters and URLs, every credential the process
  knows (:func:`known_credentials`: secret-looking environment variables, the AWS credentials
  and config files, Google's application default credentials, ``pi-sdk keys``), and the
  caller's ``secrets`` are replaced by :data:`PLACEHOLDER` wherever they still appear: URL,
  request body, any header, response body (vendors echo keys in error messages).

Bodies are otherwise stored byte for byte (SSE streams verbatim).
"""

from __future__ import annotations

import configparser
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pi_sdk.plugins import is_credential_name

__all__ = [
    "PLACEHOLDER",
    "SCRUBBED_QUERY_PARAMETERS",
    "SCRUBBED_REQUEST_HEADERS",
    "SCRUBBED_RESPONSE_HEADERS",
    "SECRET_ENV_SUFFIXES",
    "is_secret_header",
    "known_credentials",
    "scrub_text",
    "secrets_from_environ",
    "split_credential",
    "strip_query_parameters",
    "strip_userinfo",
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
"""Request headers (lower-case) always removed from recorded requests (besides those whose names
say they carry a credential: :func:`is_secret_header`)."""

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


def is_secret_header(name: str, extra: Iterable[str] = ()) -> bool:
    """Whether a request header (or query parameter) ``name`` is removed from a cassette.

    Args:
        name: The header or parameter name, any case.
        extra: More names the caller says are secret (any case), e.g. ``x-gateway-ticket``.
    """
    lower = name.lower()
    return (
        lower in SCRUBBED_REQUEST_HEADERS
        or is_credential_name(name)
        or lower in {e.lower() for e in extra}
    )


def strip_userinfo(uri: str) -> tuple[str, set[str]]:
    """Remove ``user:password@`` from ``uri``.

    Returns:
        ``(new_uri, removed_values)``: the user and the password (when long enough to scrub
        by value); ``uri`` itself when it has none.
    """
    parts = urlsplit(uri)
    if "@" not in parts.netloc:
        return uri, set()
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    removed = {v for v in (user, password) if len(v) >= _MIN_SECRET_LEN}
    return urlunsplit(parts._replace(netloc=hostport)), removed


def known_credentials(environ: Mapping[str, str] | None = None) -> set[str]:
    """Every credential value the process can find, to scrub wherever it appears.

    * environment variables that look like credentials (:func:`secrets_from_environ`);
    * the AWS shared credentials and config files (``AWS_SHARED_CREDENTIALS_FILE``,
      ``AWS_CONFIG_FILE``, default ``~/.aws/credentials`` and ``~/.aws/config``): every
      profile's ``aws_access_key_id``, ``aws_secret_access_key``, ``aws_session_token`` and
      ``aws_security_token`` (Bedrock's ``x-amz-security-token`` when the keys come from there);
    * Google's application default credentials (``GOOGLE_APPLICATION_CREDENTIALS``, default
      ``~/.config/gcloud/application_default_credentials.json``): ``private_key``,
      ``private_key_id``, ``client_secret``, ``refresh_token``;
    * the keys ``pi-sdk keys set`` stored (``keys.json`` of the pi-sdk config folder; read only
      when ``platformdirs``, a dependency of ``pi-sdk-core[cli]``, is installed).

    A file that is missing or unreadable adds nothing. Values shorter than 8 characters are
    left out (they would match ordinary text).

    Args:
        environ: Defaults to ``os.environ`` (also where the files' locations are read).
    """
    env = os.environ if environ is None else environ
    found = secrets_from_environ(env)
    home = Path(env.get("HOME") or Path.home())
    for path in (
        env.get("AWS_SHARED_CREDENTIALS_FILE") or home / ".aws" / "credentials",
        env.get("AWS_CONFIG_FILE") or home / ".aws" / "config",
    ):
        found |= _ini_values(Path(path), _AWS_SECRET_FIELDS)
    google = env.get("GOOGLE_APPLICATION_CREDENTIALS") or (
        home / ".config" / "gcloud" / "application_default_credentials.json"
    )
    found |= _json_values(Path(google), _GOOGLE_SECRET_FIELDS)
    store = _key_store_path()
    if store is not None:
        found |= _json_values(store, None)
    return {value for value in found if len(value) >= _MIN_SECRET_LEN}


_AWS_SECRET_FIELDS = frozenset(
    {"aws_access_key_id", "aws_secret_access_key", "aws_session_token", "aws_security_token"}
)
_GOOGLE_SECRET_FIELDS = frozenset(
    {"private_key", "private_key_id", "client_secret", "refresh_token"}
)


def _ini_values(path: Path, fields: frozenset[str]) -> set[str]:
    parser = configparser.RawConfigParser()
    try:
        parser.read_string(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, configparser.Error):
        return set()
    return {
        value.strip()
        for section in parser.sections()
        for name, value in parser.items(section)
        if name.lower() in fields and value.strip()
    }


def _json_values(path: Path, fields: frozenset[str] | None) -> set[str]:
    """String values of a JSON object file (only ``fields``, or all of them for ``None``)."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return set()
    if not isinstance(data, dict):
        return set()
    items = cast(dict[Any, Any], data).items()
    return {v for k, v in items if isinstance(v, str) and (fields is None or k in fields)}


def _key_store_path() -> Path | None:
    try:
        import platformdirs
    except ImportError:
        return None
    return platformdirs.user_config_path("pi-sdk") / "keys.json"


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


def strip_query_parameters(
    uri: str, names: Iterable[str], *, by_rule: bool = False
) -> tuple[str, set[str]]:
    """Remove query parameters ``names`` from ``uri``.

    Args:
        uri: The URL.
        names: Parameter names to remove (any case).
        by_rule: Also remove every parameter :func:`is_secret_header` catches
            (``X-Amz-Security-Token``, ``access_token``, ...).

    Returns:
        ``(new_uri, removed_values)``; ``uri`` itself when nothing was removed.
    """
    parts = urlsplit(uri)
    if not parts.query:
        return uri, set()
    drop = {n.lower() for n in names}
    pairs = parse_qsl(parts.query, keep_blank_values=True)

    def secret(name: str) -> bool:
        return name.lower() in drop or (by_rule and is_secret_header(name))

    kept = [(k, v) for k, v in pairs if not secret(k)]
    if len(kept) == len(pairs):
        return uri, set()
    removed = {v for k, v in pairs if secret(k) and len(v) >= _MIN_SECRET_LEN}
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
