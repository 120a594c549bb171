"""Secret redaction: by key name, by value pattern, and by known value.

Used by the core for every error message a call produces (vendors echo keys in error bodies) and
by plugins (e.g. ``pi-sdk-audit-log``) for whatever they write.

:class:`Redactor` returns a redacted copy of any JSON-like value (dicts, lists, strings,
scalars); the input is never mutated. Three rules, all configurable:

* **keys**: a mapping entry whose key names a secret (``api_key``, ``Authorization``,
  ``x-api-key``, ``password``, ``*_token``, ``cookie``, ...) has its whole value replaced;
* **patterns**: substrings of any string that look like credentials are replaced: vendor API
  keys (``sk-...``, ``sk-ant-...``, ``AIza...``), GitHub/Slack/AWS tokens, JWTs, bearer tokens,
  auth headers written inline (``-H "x-api-key: ..."``), ``key=`` / ``token=`` query
  parameters, ``password=...`` assignments and PEM private keys;
* **values**: exact secret strings (the call's API key, the proxy's token; by default also the
  values of environment variables whose names end in ``_API_KEY``, ``_TOKEN``, ``_SECRET``,
  ``_PASSWORD`` or ``_ACCESS_KEY``) are replaced wherever they appear, when they are at least
  :data:`MIN_SECRET_LENGTH` (8) characters long.

Why values shorter than 8 characters are not redacted by value: such a value cannot be told
from ordinary text. A one-character key would be replaced inside every word holding that
letter (``fa[REDACTED]e``), and a test key such as ``test`` in every message that says "test":
the messages would be destroyed while nothing is protected, since a secret that short can be
guessed anyway and no vendor issues keys that short (theirs are 30 to 200 characters). The
patterns still apply to such values where they look like credentials (``Authorization: x``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any, cast

__all__ = [
    "DEFAULT_PATTERNS",
    "DEFAULT_SECRET_KEYS",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "Redactor",
    "exception_text",
    "is_credential_name",
    "redact_text",
    "secret_header_values",
]

REDACTED = "[REDACTED]"
"""What a secret is replaced with."""

DEFAULT_SECRET_KEYS = frozenset(
    {
        "api_key",
        "apikey",
        "x_api_key",
        "x_goog_api_key",
        "authorization",
        "proxy_authorization",
        "password",
        "passwd",
        "secret",
        "client_secret",
        "token",
        "access_token",
        "refresh_token",
        "id_token",
        "session_token",
        "auth_token",
        "cookie",
        "set_cookie",
        "private_key",
        "credentials",
    }
)
"""Key names (normalized: lower case, ``-`` as ``_``) whose values are always redacted."""

_SECRET_KEY_SUFFIX = re.compile(r"(?:^|_)(?:api_?key|token|secret|password|private_?key)$")

DEFAULT_PATTERNS: tuple[str, ...] = (
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    r"\bsk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_\-]{16,}",
    r"\bAIza[0-9A-Za-z_\-]{35}",
    r"\bgh[pousr]_[A-Za-z0-9]{36,}",
    r"\bgithub_pat_[A-Za-z0-9_]{22,}",
    r"\bxox[abprs]-[A-Za-z0-9\-]{10,}",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
    r"(?i)\b(?:authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|cookie)"
    r"\s*:\s*(?P<s>[^\r\n\"']+)",
    r"(?i)\b(?:bearer|basic)\s+(?P<s>[A-Za-z0-9._~+/=\-]{8,})",
    r"(?i)[?&](?:key|api_key|apikey|access_token|token)=(?P<s>[^&\s\"']+)",
    r"(?i)\b(?:password|passwd|secret|api_key|apikey|access_token|auth_token|token)[\"']?"
    r"\s*[=:]\s*[\"']?(?P<s>(?=[^\s\"'&;,()]*[A-Za-z0-9])[^\s\"'&;,()]{6,})",
)
"""Regular expressions for credentials inside free text. A match becomes :data:`REDACTED`; when
the pattern has a group named ``s``, only that group does (``Authorization: [REDACTED]``)."""

_ENV_SECRET_NAME = re.compile(r"(?:_API_KEY|_TOKEN|_SECRET|_PASSWORD|_ACCESS_KEY)$")

MIN_SECRET_LENGTH = 8
"""Shortest value redacted by value, in characters; shorter ones are ordinary text (module doc)."""


def _replace(match: re.Match[str]) -> str:
    if "s" not in match.re.groupindex or match.start("s") < 0:
        return REDACTED
    offset = match.start()
    whole = match.group(0)
    return whole[: match.start("s") - offset] + REDACTED + whole[match.end("s") - offset :]


def _normalize_key(key: str) -> str:
    return key.strip().lower().replace("-", "_")


class Redactor:
    r"""Redacts secrets from JSON-like values.

    Example:
        ```python
        redactor = Redactor(keys={"x-internal-auth"}, patterns=[r"\bacct-\d{6}\b"])
        redactor.redact({"headers": {"Authorization": "Bearer abc"}, "note": "acct-123456"})
        # {"headers": {"Authorization": "[REDACTED]"}, "note": "[REDACTED]"}
        ```
    """

    def __init__(
        self,
        *,
        keys: Iterable[str] = (),
        patterns: Iterable[str] = (),
        values: Iterable[str] = (),
        default_keys: bool = True,
        default_patterns: bool = True,
        environment_values: bool = True,
    ) -> None:
        """Configure the three rules.

        Args:
            keys: Extra key names to redact (compared lower-case, ``-`` equal to ``_``).
            patterns: Extra regular expressions; each match is replaced.
            values: Exact secret strings to replace wherever they appear; those shorter than
                :data:`MIN_SECRET_LENGTH` characters are left out (ordinary text).
            default_keys: Include :data:`DEFAULT_SECRET_KEYS` and the ``*_token`` /
                ``*_api_key`` / ``*_secret`` / ``*_password`` suffix rule.
            default_patterns: Include :data:`DEFAULT_PATTERNS`.
            environment_values: Also redact the current values of secret-looking environment
                variables (read once, here).

        Raises:
            re.error: a pattern is not a valid regular expression.
        """
        self._keys = frozenset(_normalize_key(k) for k in keys)
        self._default_keys = default_keys
        sources = [*(DEFAULT_PATTERNS if default_patterns else ()), *patterns]
        self._patterns = [re.compile(p) for p in sources]
        secret_values = {v for v in values if v and len(v) >= MIN_SECRET_LENGTH}
        if environment_values:
            secret_values |= {
                value
                for name, value in os.environ.items()
                if _ENV_SECRET_NAME.search(name.upper()) and len(value) >= MIN_SECRET_LENGTH
            }
        # Longest first, so a secret that contains another is replaced whole.
        self._values = sorted(secret_values, key=len, reverse=True)

    def is_secret_key(self, key: str) -> bool:
        """Return whether a mapping entry named ``key`` holds a secret."""
        normalized = _normalize_key(key)
        if normalized in self._keys:
            return True
        if not self._default_keys:
            return False
        if normalized in DEFAULT_SECRET_KEYS:
            return True
        return _SECRET_KEY_SUFFIX.search(normalized) is not None

    def redact_text(self, text: str) -> str:
        """Return ``text`` with every known secret value and credential pattern replaced."""
        for value in self._values:
            if value in text:
                text = text.replace(value, REDACTED)
        for pattern in self._patterns:
            text = pattern.sub(_replace, text)
        return text

    def redact(self, value: Any) -> Any:
        """Return a redacted copy of a JSON-like value (dict keys are kept, values replaced)."""
        if isinstance(value, str):
            return self.redact_text(value)
        if isinstance(value, Mapping):
            out: dict[Any, Any] = {}
            for key, item in cast(Mapping[Any, Any], value).items():
                if isinstance(key, str) and self.is_secret_key(key) and item not in (None, ""):
                    out[key] = REDACTED
                else:
                    out[key] = self.redact(item)
            return out
        if isinstance(value, (list, tuple)):
            return [self.redact(item) for item in cast(Iterable[Any], value)]
        return value


def redact_text(text: str, values: Iterable[str | None] = ()) -> str:
    """Return ``text`` with credentials replaced by :data:`REDACTED`.

    Applies :data:`DEFAULT_PATTERNS`, the exact ``values`` given (e.g. the API key of the call),
    and the values of secret-looking environment variables.
    """
    known = [v for v in values if v]
    return Redactor(values=known).redact(text)


def exception_text(exc: BaseException) -> str:
    """``str(exc)`` (the class name when empty) with credentials replaced (:func:`redact_text`).

    The text of an error pi-sdk builds from a caller's exception (a raising ``get_api_key``,
    tool or hook), which may quote the secret it failed on.
    """
    return redact_text(str(exc) or type(exc).__name__)


_CREDENTIAL_HEADER = re.compile(
    r"auth|key|token|secret|passw|cookie|session|signature|credential", re.IGNORECASE
)
"""Words in a header name that say its value is a credential (``x-extra-auth``, ``x-api-key``)."""


def is_credential_name(name: str) -> bool:
    """Whether a header or query parameter ``name`` says its value is a credential.

    True for a name among :data:`DEFAULT_SECRET_KEYS` (``-`` read as ``_``, any case) or
    containing ``auth``, ``key``, ``token``, ``secret``, ``passw``, ``cookie``, ``session``,
    ``signature`` or ``credential``: ``Authorization``, ``x-custom-auth``,
    ``cf-aig-authorization``, ``helicone-auth``, ``x-portkey-api-key``,
    ``x-amz-security-token``, ``X-Amz-Signature``. The rule of the debug-log redaction
    (:func:`secret_header_values`) and of the test cassettes (pi-sdk-pytest).
    """
    return bool(_CREDENTIAL_HEADER.search(name)) or _normalize_key(name) in DEFAULT_SECRET_KEYS


def secret_header_values(headers: Mapping[str, str] | None) -> list[str]:
    """The values of ``headers`` whose names say they carry a credential.

    A name among :data:`DEFAULT_SECRET_KEYS` or containing ``auth``, ``key``, ``token``,
    ``secret``, ``passw``, ``cookie``, ``session``, ``signature`` or ``credential`` (any case).
    Values of other headers are redacted only when they match a credential pattern.
    """
    if not headers:
        return []
    return [value for name, value in headers.items() if value and is_credential_name(name)]
