"""The Bedrock Runtime client: endpoint and region, credentials, signing, sending, HTTP errors.

pi-sdk sends the request itself with httpx2 and reads the body itself (binary event-stream
frames, :mod:`pi_sdk_bedrock.converse._frames`); botocore provides what the AWS SDK is for:

* **credentials**: the standard chain of ``botocore.session.Session().get_credentials()``
  (environment, shared config/credentials files and profiles, SSO, web identity, container and
  instance roles), refreshed by botocore when they expire (the refresh runs in a worker
  thread);
* **signing**: ``botocore.auth.SigV4Auth`` (service ``bedrock``) over the exact bytes sent.

A Bedrock API key (``StreamOptions.api_key`` or ``AWS_BEARER_TOKEN_BEDROCK``) is sent as
``Authorization: Bearer`` instead, and botocore is not imported at all. With
``AWS_BEDROCK_SKIP_AUTH=1`` (a proxy that signs for you) nothing is sent (pi-mono).

Region: ``provider_options["region"]``, else ``AWS_REGION`` / ``AWS_DEFAULT_REGION``, else the
profile's ``region`` (``provider_options["profile"]`` or ``AWS_PROFILE``), else the region of a
standard ``bedrock-runtime.<region>.amazonaws.com`` ``model.base_url``, else ``us-east-1``.
A standard endpoint follows a configured region; any other ``base_url`` (VPC endpoint, proxy)
is used as it is (pi-mono ``shouldUseExplicitBedrockEndpoint``).

Clients (one ``httpx2.AsyncClient`` with its connection pool, the credentials) are kept per
event loop and configuration in a :class:`pi_sdk.provider.ClientCache`, built in a worker thread.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from importlib import import_module
from typing import Any, cast
from urllib.parse import quote, urlsplit

import pi_sdk
from pi_sdk import provider as kit

__all__ = [
    "BedrockClient",
    "client_lease",
    "converse_path",
    "open_converse",
    "region_of_endpoint",
    "resolve_region",
]

DEFAULT_REGION = "us-east-1"
SERVICE = "bedrock"
"""The SigV4 signing name of Bedrock Runtime."""
TOKEN_ENV = "AWS_BEARER_TOKEN_BEDROCK"
SKIP_AUTH_ENV = "AWS_BEDROCK_SKIP_AUTH"
SSL_CONTEXT = "httpx2.ssl_context"
"""The process-wide TLS context every provider shares (:func:`pi_sdk.provider.shared_in_thread`)."""

_STANDARD_HOST = re.compile(
    r"^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$", re.IGNORECASE
)
_RETRYABLE_ERRORS = frozenset(
    {
        "ThrottlingException",
        "ServiceUnavailableException",
        "InternalServerException",
        "ModelNotReadyException",
        "ModelTimeoutException",
        "ModelStreamErrorException",
    }
)
"""HTTP error types AWS documents as transient (429/503/500/408/424)."""


def region_of_endpoint(url: str) -> str | None:
    """The region of a standard ``https://bedrock-runtime[-fips].<region>.amazonaws.com`` URL."""
    match = _STANDARD_HOST.match(urlsplit(url).hostname or "") if url else None
    return match.group(1).lower() if match else None


def _profile(options: pi_sdk.StreamOptions) -> str | None:
    return options.provider_options.get("profile") or os.environ.get("AWS_PROFILE") or None


def _configured_region(options: pi_sdk.StreamOptions) -> str | None:
    region = options.provider_options.get("region")
    return region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or None


def resolve_region(model: pi_sdk.Model, options: pi_sdk.StreamOptions, session: Any = None) -> str:
    """The region to call (see the module docstring for the order).

    ``session``: a ``botocore.session.Session`` to read a profile's region from, if any.
    """
    region = _configured_region(options)
    if region is None and session is not None:
        region = session.get_config_variable("region")
    return region or region_of_endpoint(model.base_url) or DEFAULT_REGION


def converse_path(model_id: str, *, stream: bool) -> str:
    """``/model/<modelId>/converse-stream`` (or ``/converse``), the id percent-encoded.

    ``:`` becomes ``%3A`` and an ARN's ``/`` ``%2F``, as botocore encodes the ``modelId`` label.
    """
    return f"/model/{quote(model_id, safe='')}/{'converse-stream' if stream else 'converse'}"


class BedrockClient:
    """An ``httpx2.AsyncClient`` plus what it takes to call Bedrock Runtime as one account.

    Pass one as ``StreamOptions.client`` to choose the transport, endpoint or credentials
    yourself (tests inject a transport this way); the adapter then neither builds nor closes
    a client.

    Args:
        http: The HTTP client (its transport, proxies, TLS, pool).
        region: The region signed for (and in the default endpoint).
        endpoint: Base URL, default ``https://bedrock-runtime.<region>.amazonaws.com``.
        token: A Bedrock API key, sent as ``Authorization: Bearer``.
        credentials: botocore credentials (``Credentials`` / ``RefreshableCredentials``) to
            sign with SigV4 when there is no ``token``; neither: the request goes unsigned.
    """

    __slots__ = ("_credentials", "_token", "base_url", "http", "region")

    def __init__(
        self,
        http: Any,
        *,
        region: str = DEFAULT_REGION,
        endpoint: str | None = None,
        token: str | None = None,
        credentials: Any = None,
    ) -> None:
        self.http = http
        self.region = region
        self.base_url = (endpoint or f"https://bedrock-runtime.{region}.amazonaws.com").rstrip("/")
        self._token = token
        self._credentials = credentials

    def __repr__(self) -> str:
        auth = "bearer" if self._token else "sigv4" if self._credentials is not None else "none"
        return f"BedrockClient(base_url={self.base_url!r}, region={self.region!r}, auth={auth})"

    async def close(self) -> None:
        """Close the HTTP client."""
        await self.http.aclose()

    async def auth_headers(self, url: str, body: bytes, headers: dict[str, str]) -> dict[str, str]:
        """The headers that authenticate a ``POST`` of ``body`` to ``url`` (none, bearer, SigV4)."""
        if self._token:
            return {"authorization": f"Bearer {self._token}"}
        credentials = self._credentials
        if credentials is None:
            return {}
        refresh = getattr(credentials, "refresh_needed", None)
        if callable(refresh) and refresh():
            frozen = await asyncio.to_thread(credentials.get_frozen_credentials)
        else:
            frozen = credentials.get_frozen_credentials()
        return _sigv4(frozen, self.region, url, body, headers)


def _sigv4(
    frozen: Any, region: str, url: str, body: bytes, headers: dict[str, str]
) -> dict[str, str]:
    """SigV4 headers (``authorization``, ``x-amz-date``, ``x-amz-security-token``) by botocore."""
    auth: Any = import_module("botocore.auth")  # botocore ships no type information
    aws_request: Any = import_module("botocore.awsrequest")
    request = aws_request.AWSRequest(method="POST", url=url, data=body, headers=dict(headers))
    auth.SigV4Auth(frozen, SERVICE, region).add_auth(request)
    signed = {k.lower(): str(v) for k, v in request.headers.items()}
    return {k: v for k, v in signed.items() if k not in headers}


def _ssl_context() -> Any:
    import httpx2

    return httpx2.create_ssl_context()


async def _close(client: BedrockClient) -> None:
    await client.close()


_CLIENTS: kit.ClientCache[BedrockClient] = kit.ClientCache(_close)


async def client_lease(
    model: pi_sdk.Model, options: pi_sdk.StreamOptions, token: str | None
) -> AbstractAsyncContextManager[BedrockClient]:
    """Return a lease on the cached :class:`BedrockClient` for this model's endpoint and auth.

    Args:
        model: Its ``base_url`` picks the endpoint (and a default region).
        options: ``provider_options`` ``region`` and ``profile``.
        token: A Bedrock API key (bearer auth), or ``None`` for the AWS credential chain.

    Returns:
        An async context manager; hold it for the whole call. The client is built in a worker
        thread (botocore's session and credential chain may read files or call STS/IMDS).
    """
    verify = await kit.shared_in_thread(SSL_CONTEXT, _ssl_context)
    profile = _profile(options)
    region = _configured_region(options)
    skip_auth = os.environ.get(SKIP_AUTH_ENV) == "1"
    mode = "none" if skip_auth else "bearer" if token else "sigv4"

    def build() -> BedrockClient:
        import httpx2

        session: Any = None
        if mode == "sigv4" or (profile and region is None):
            session = import_module("botocore.session").Session(profile=profile)
            import_module("botocore.auth")  # what signing needs, imported here, off the loop
            import_module("botocore.awsrequest")
        chosen = resolve_region(model, options, session)
        standard = region_of_endpoint(model.base_url)
        endpoint = model.base_url or None
        if standard is not None and standard != chosen:
            endpoint = None  # a standard endpoint follows the configured region (pi-mono)
        credentials = session.get_credentials() if mode == "sigv4" else None
        if mode == "sigv4" and credentials is None:
            raise kit.ProviderError(
                "no AWS credentials found (environment, profile, SSO, instance role) and no"
                f" Bedrock API key ({TOKEN_ENV} or StreamOptions.api_key)"
            )
        http = httpx2.AsyncClient(
            transport=kit.PooledTransport(verify=verify),
            timeout=httpx2.Timeout(600.0, connect=10.0),
        )
        return BedrockClient(
            http,
            region=chosen,
            endpoint=endpoint,
            token=token if mode == "bearer" else None,
            credentials=credentials,
        )

    key = (model.base_url, region, profile, mode)
    return _CLIENTS.lease(key, build, secret=token or "")


# --- sending ----------------------------------------------------------------------------------


def _status_error(
    status: int, reason: str, headers: Mapping[str, str], body: bytes
) -> kit.ProviderError:
    """Turn an HTTP error response into a :class:`pi_sdk.provider.ProviderError`.

    The text is ``"<status> <reason>: <ErrorType>: <message>"``: the type from the
    ``x-amzn-ErrorType`` header (or the body's ``__type``), the message from the body's
    ``message`` / ``Message``; a body that is not AWS's JSON error is excerpted. Retryable: 408,
    409, 429, 5xx, and the error types AWS calls transient (``ModelStreamErrorException`` 424).
    """
    text = body.decode("utf-8", errors="replace")
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = None
    data = cast("dict[str, Any]", parsed) if isinstance(parsed, dict) else {}
    raw_type = headers.get("x-amzn-errortype") or data.get("__type") or ""
    error_type = re.split(r"[:#]", str(raw_type))[-1 if "#" in str(raw_type) else 0] or None
    message = data.get("message") or data.get("Message")
    message = message if isinstance(message, str) else None
    error = kit.ProviderError.from_http(
        status,
        kit.http_error_message(
            status, reason=reason, code=error_type, message=message, body=None if message else text
        ),
        headers,
    )
    if error_type in _RETRYABLE_ERRORS:
        error.retryable = True
    return error


@functools.lru_cache(maxsize=64)
def _parsed_url(url: str) -> Any:
    """``httpx2.URL(url)``, parsed once per URL text.

    An immutable value, the same for every call to a model; ``build_request`` takes it without
    parsing the text again.
    """
    import httpx2

    return httpx2.URL(url)


async def open_converse(
    client: BedrockClient,
    model_id: str,
    payload: dict[str, Any],
    *,
    stream: bool,
    headers: Mapping[str, str] | None = None,
    timeout_s: float | None = None,
) -> Any:
    """Send the request and return the unread ``httpx2.Response`` (status < 400).

    Args:
        client: The client (endpoint, region, auth).
        model_id: The model or inference-profile id or ARN (goes in the path).
        payload: The JSON body (:func:`pi_sdk_bedrock.converse.build_request`).
        stream: ``/converse-stream`` (event stream) or ``/converse`` (one JSON document).
        headers: Extra request headers (``model.headers``, ``options.headers``), signed too.
        timeout_s: The request's timeout in seconds (``None``: the client's).

    Raises:
        ProviderError: HTTP 4xx/5xx (``status``, ``retryable``, ``retry_after_ms``), or a
            connection failure / timeout (retryable).
    """
    import httpx2

    url = client.base_url + converse_path(model_id, stream=stream)
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    sent = {
        "content-type": "application/json",
        "accept": "application/vnd.amazon.eventstream" if stream else "application/json",
        **{k.lower(): v for k, v in (headers or {}).items()},
    }
    sent.update(await client.auth_headers(url, body, sent))
    http: Any = client.http
    kwargs: dict[str, Any] = {} if timeout_s is None else {"timeout": timeout_s}
    target: Any = _parsed_url(url) if isinstance(http, httpx2.AsyncClient) else url
    request = http.build_request("POST", target, content=body, headers=sent, **kwargs)
    try:
        response = await http.send(request, stream=True)
    except httpx2.TransportError as exc:
        raise kit.connection_error_from_httpx(exc) from None
    if response.status_code >= 400:
        try:
            raw = await response.aread()
        except httpx2.TransportError:
            raw = b""
        finally:
            await response.aclose()
        raise _status_error(response.status_code, response.reason_phrase, response.headers, raw)
    return response
