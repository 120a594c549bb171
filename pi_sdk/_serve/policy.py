"""What a proxy server lets through: its token, its model allow-list, its size limit.

The settings of :func:`pi_sdk.agent.proxy_app` (and of ``pi-sdk serve``), with the checks they
make on each request. The token is compared in constant time (:func:`hmac.compare_digest`) and
never appears in a ``repr``, a log line or a reply.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from pi_sdk.types import Model

__all__ = ["DEFAULT_BODY_TIMEOUT_MS", "DEFAULT_KEY", "DEFAULT_MAX_BODY_BYTES", "ProxyPolicy"]

DEFAULT_KEY = "default"
"""The key name of :attr:`ProxyPolicy.token` (rate limits and usage are counted per key)."""

_KEY_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


def _checked_keys(token: str, keys: Mapping[str, str]) -> dict[str, str]:
    """``keys`` as a dict, checked: names of ``[A-Za-z0-9._-]``, tokens set and distinct."""
    checked = dict(keys)
    seen = {token}
    for name, value in checked.items():
        if not _KEY_NAME.fullmatch(name) or name == DEFAULT_KEY:
            raise ValueError(
                f"key name {name!r}: use 1 to 64 letters, digits, '.', '_' or '-' (not"
                f" {DEFAULT_KEY!r}, the main token's)"
            )
        if not value:
            raise ValueError(f"key {name!r} has an empty token")
        if value in seen:
            raise ValueError(f"key {name!r} has the token of another key: give each its own")
        seen.add(value)
    return checked


DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024
"""Largest request body a proxy accepts by default: 8 MiB (a context with a few images)."""

DEFAULT_BODY_TIMEOUT_MS = 30_000
"""How long a request body may take to arrive whole by default: 30 s (8 MiB at 280 kB/s)."""


@dataclass(frozen=True, kw_only=True)
class ProxyPolicy:
    """A proxy server's access rules.

    Args:
        token: The bearer token a client must send (``Authorization: Bearer <token>``); not
            empty. Hidden from ``repr``.
        allow: The models served, as ``"provider/id"`` glob patterns (:func:`fnmatch.fnmatchcase`:
            ``"anthropic/*"``, ``"openai/gpt-5*"``, ``"*/*"`` for every registered model). A
            call for any other model is refused with 403.
        max_body_bytes: Largest request body, in bytes; a larger one is refused with 413.
        resolve_model: Finds the model to call from the requested provider and id; default
            :func:`pi_sdk.get_model` (the server's registry). The client's other model fields
            (``baseUrl``, ``headers``, prices) are never used: the server decides where its
            keys go.
        cors_origins: Web origins whose pages may call the proxy from a browser
            (``"https://app.example.com"``; ``"*"`` for any), answered with CORS headers and
            preflights (Starlette's ``CORSMiddleware``). Default none: same-origin and
            non-browser clients only.
        body_timeout_ms: The request body must arrive whole within this many milliseconds
            after the request's head (default 30 s); a slower one is refused with 408 and its
            connection closed, so that a client sending a byte a second cannot hold it.
        keepalive_ms: Once a reply has started, an SSE comment (``: keep-alive``) is sent
            after this many milliseconds without an event, so that proxies and load balancers
            keep a quiet stream open (a reasoning model may think for minutes); ``None``:
            never. Clients skip comments.
        keys: More bearer tokens by the name of their holder (``{"app-a": "<token>"}``): each
            is a key of its own for the rate limit and the usage counters
            (:class:`~pi_sdk._serve.usage_store.UsageStore`); ``token`` is the key
            :data:`DEFAULT_KEY`. Hidden from ``repr``.

    Raises:
        ValueError: an empty token, an empty allow-list, a pattern without ``/``, a
            ``max_body_bytes`` below 1, a ``keepalive_ms`` or ``body_timeout_ms`` that is not
            positive, or a key with an empty or repeated token, or a name that is not
            letters, digits, ``.``, ``_`` or ``-``.
    """

    token: str = field(repr=False)
    allow: tuple[str, ...]
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    resolve_model: Callable[[str, str], Model] | None = None
    cors_origins: tuple[str, ...] = ()
    keepalive_ms: float | None = 15_000
    body_timeout_ms: float = DEFAULT_BODY_TIMEOUT_MS
    keys: Mapping[str, str] = field(default_factory=dict[str, str], repr=False)

    def __post_init__(self) -> None:
        if not self.token:
            raise ValueError("the proxy token is empty: set one (e.g. PI_SDK_PROXY_TOKEN)")
        patterns: Iterable[str] = self.allow
        if isinstance(patterns, str):
            patterns = (patterns,)
        object.__setattr__(self, "allow", tuple(patterns))
        origins: Iterable[str] = self.cors_origins
        object.__setattr__(
            self, "cors_origins", (origins,) if isinstance(origins, str) else tuple(origins)
        )
        if not self.allow:
            raise ValueError("the model allow-list is empty: allow at least one provider/id")
        for pattern in self.allow:
            if "/" not in pattern:
                raise ValueError(
                    f"model pattern {pattern!r} needs the form provider/id (e.g. anthropic/*)"
                )
        if self.keepalive_ms is not None and self.keepalive_ms <= 0:
            raise ValueError(f"keepalive_ms must be positive or None, got {self.keepalive_ms}")
        if self.max_body_bytes < 1:
            raise ValueError(f"max_body_bytes must be at least 1, got {self.max_body_bytes}")
        if not self.body_timeout_ms > 0:
            raise ValueError(f"body_timeout_ms must be positive, got {self.body_timeout_ms}")
        object.__setattr__(self, "keys", _checked_keys(self.token, self.keys))

    def authorized(self, header: str | None) -> bool:
        """True when ``header`` (the ``Authorization`` value) is ``Bearer <token>``.

        The comparison takes the same time whatever the client sent (no timing oracle).
        """
        return self.key_name(header) is not None

    def key_name(self, header: str | None) -> str | None:
        """The name of the key ``header`` (``Bearer <token>``) carries; ``None``: no valid key.

        :data:`DEFAULT_KEY` for ``token``, a name of :attr:`keys` for theirs. Every token is
        compared, in constant time each, whichever matches (no timing oracle).
        """
        scheme, _, credentials = (header or "").partition(" ")
        given = credentials.strip().encode() if scheme.lower() == "bearer" else b""
        found: str | None = None
        for name, token in ((DEFAULT_KEY, self.token), *self.keys.items()):
            if hmac.compare_digest(given, token.encode()) and given:
                found = name
        return found

    def allows(self, provider: str, model_id: str) -> bool:
        """True when ``provider/model_id`` matches one of the allow-list's patterns."""
        name = f"{provider}/{model_id}"
        return any(fnmatchcase(name, pattern) for pattern in self.allow)

    def model(self, provider: str, model_id: str) -> Model:
        """The model to call for ``provider/model_id``.

        Raises:
            ModelNotFoundError: the server has no such model.
        """
        if self.resolve_model is not None:
            return self.resolve_model(provider, model_id)
        from pi_sdk._models.default import get_model

        return get_model(provider, model_id)
