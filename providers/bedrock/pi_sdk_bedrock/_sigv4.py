"""SigV4 headers for a Bedrock Runtime ``POST``: what ``botocore.auth.SigV4Auth`` computes.

botocore's signer rebuilds everything on every request: an ``AWSRequest``, the URL's host,
canonical path and query, and the key chain (four HMACs of the secret, the day, the region and
the service). What depends only on the URL is computed once per URL here (with botocore's own
functions), and the signing key once per secret, day, region and service (:class:`Signer`,
one per client: a refreshed secret or a new day gives a new key); the canonical request, the
string to sign and the signature are SigV4's, byte for byte botocore's
(``tests/providers/bedrock/test_bedrock_sigv4.py`` compares the two). A request with a header
that botocore's signer treats specially (``authorization``, ``date``, ``x-amz-date``, a security
token, a content hash, ``host``) is signed by botocore itself.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import time
from importlib import import_module
from typing import Any
from urllib.parse import urlsplit

__all__ = ["Signer", "botocore_sigv4"]

_SPECIAL = frozenset(
    {"authorization", "date", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256", "host"}
)
"""Headers botocore's signer removes, replaces or reads: a request with one goes to botocore."""


def botocore_sigv4(
    frozen: Any, service: str, region: str, url: str, body: bytes, headers: dict[str, str]
) -> dict[str, str]:
    """SigV4 headers (``x-amz-date``, ``x-amz-security-token``, ``authorization``) by botocore."""
    auth: Any = import_module("botocore.auth")  # botocore ships no type information
    aws_request: Any = import_module("botocore.awsrequest")
    request = aws_request.AWSRequest(method="POST", url=url, data=body, headers=dict(headers))
    auth.SigV4Auth(frozen, service, region).add_auth(request)
    signed = {k.lower(): str(v) for k, v in request.headers.items()}
    return {k: v for k, v in signed.items() if k not in headers}


@functools.lru_cache(maxsize=64)
def _url_parts(url: str) -> tuple[str, str, str]:
    """The host, canonical path and canonical query botocore's signer derives from ``url``."""
    auth: Any = import_module("botocore.auth")
    parts = urlsplit(url)
    signer = auth.SigV4Auth(None, "", "")
    return (
        auth._host_from_url(url),  # noqa: SLF001 - botocore's own rule, not restated
        signer._normalize_url_path(parts.path),  # noqa: SLF001
        signer._canonical_query_string_url(parts),  # noqa: SLF001
    )


@functools.lru_cache(maxsize=1)
def _unsigned_headers() -> frozenset[str]:
    """The headers botocore leaves out of the signature (``user-agent``, ``expect``, ...)."""
    auth: Any = import_module("botocore.auth")
    return frozenset(auth.SIGNED_HEADERS_BLACKLIST)


def _timestamp() -> str:
    """Now, as SigV4 writes it (``20261206T163143Z``, UTC)."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest()


class Signer:
    """Signs ``POST`` requests for one service, keeping the last signing key.

    The key is derived from the secret, the day, the region and the service; it is kept with
    the three it came from and derived again when any of them differs (credentials refreshed,
    the date turned, the client's region changed).
    """

    __slots__ = ("_key", "service")

    def __init__(self, service: str) -> None:
        self.service = service
        self._key: tuple[str, str, str, bytes] | None = None

    def signing_key(self, secret: str, day: str, region: str) -> bytes:
        """``HMAC(HMAC(HMAC(HMAC("AWS4" + secret, day), region), service), "aws4_request")``."""
        kept = self._key
        if kept is not None and kept[0] == secret and kept[1] == day and kept[2] == region:
            return kept[3]
        key = _hmac(("AWS4" + secret).encode("utf-8"), day)
        for part in (region, self.service, "aws4_request"):
            key = _hmac(key, part)
        self._key = (secret, day, region, key)
        return key

    def headers(
        self, frozen: Any, region: str, url: str, body: bytes, headers: dict[str, str]
    ) -> dict[str, str]:
        """The SigV4 headers of a ``POST`` of ``body`` to ``url`` with ``headers``.

        ``headers`` have lower-case names; the result is in botocore's order: ``x-amz-date``,
        ``x-amz-security-token`` (with a session token), ``authorization``.
        """
        if not _SPECIAL.isdisjoint(headers):
            return botocore_sigv4(frozen, self.service, region, url, body, headers)
        stamp = _timestamp()
        day = stamp[:8]
        token = frozen.token
        host, path, query = _url_parts(url)
        unsigned = _unsigned_headers()
        signed = {k: v for k, v in headers.items() if k not in unsigned}
        signed["host"] = host
        signed["x-amz-date"] = stamp
        if token:
            signed["x-amz-security-token"] = token
        names = sorted(signed)
        canonical_headers = "".join(f"{k}:{' '.join(signed[k].split())}\n" for k in names)
        signed_names = ";".join(names)
        canonical = "\n".join(
            ["POST", path, query, canonical_headers, signed_names, hashlib.sha256(body).hexdigest()]
        )
        scope = f"{day}/{region}/{self.service}/aws4_request"
        to_sign = "\n".join(
            [
                "AWS4-HMAC-SHA256",
                stamp,
                scope,
                hashlib.sha256(canonical.encode("utf-8")).hexdigest(),
            ]
        )
        key = self.signing_key(frozen.secret_key, day, region)
        signature = hmac.new(key, to_sign.encode("utf-8"), hashlib.sha256).hexdigest()
        out = {"x-amz-date": stamp}
        if token:
            out["x-amz-security-token"] = token
        out["authorization"] = (
            f"AWS4-HMAC-SHA256 Credential={frozen.access_key}/{scope},"
            f" SignedHeaders={signed_names}, Signature={signature}"
        )
        return out
