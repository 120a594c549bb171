"""How a server's model list is asked for: one HTTP client per fetch, conditional requests.

:func:`listing_client` opens an ``httpx2`` client (the HTTP stack the ``openai`` SDK brings;
imported on first use) for one :data:`FetchModels` call: the context's timeout
for every phase of every request, the process-wide TLS context, no redirects followed (a key
must not follow one to another host). :meth:`Lister.json` sends a request with the key as a
bearer header and the provider's headers, optionally the stored validators
(``If-None-Match`` / ``If-Modified-Since``), and returns the parsed JSON body, or "not modified"
for a 304. Every failure is a :class:`ListingError` whose text starts with the method and URL
and says what went wrong: no connection, no answer in time, an HTTP error (with an excerpt of
the body), a body too large or not JSON. The key is never in it (the caller redacts as well).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_sdk.provider import FetchContext, body_excerpt, describe_exception, http_error_message

from ._client import shared_ssl_context
from ._shared_json import as_dict

if TYPE_CHECKING:
    import httpx2

__all__ = ["MAX_LIST_BYTES", "Answer", "Lister", "ListingError", "listing_client"]

MAX_LIST_BYTES = 16 * 1024 * 1024
"""The largest model list read (OpenRouter's, the largest known, is about 0.5 MB)."""


class ListingError(Exception):
    """A model list could not be had; the text names the request and the reason."""


@dataclass(frozen=True)
class Answer:
    """A JSON answer, or "not modified"."""

    payload: Any
    """The parsed body; ``None`` for a 304."""
    not_modified: bool = False
    etag: str | None = None
    last_modified: str | None = None


class Lister:
    """Requests of one fetch, on one client (:func:`listing_client`)."""

    def __init__(self, client: httpx2.AsyncClient, context: FetchContext) -> None:
        self._client = client
        self._context = context

    async def json(
        self,
        url: str,
        *,
        body: dict[str, Any] | None = None,
        conditional: bool = False,
        missing_ok: bool = False,
    ) -> Answer | None:
        """``GET url`` (``POST`` with a JSON ``body``) and its parsed JSON answer.

        Args:
            url: The full URL.
            body: A JSON body to POST (Ollama's ``/api/show``).
            conditional: Send the context's stored validators; a 304 gives an answer with
                ``not_modified`` set and the validators kept.
            missing_ok: A 404 gives ``None`` instead of an error (an endpoint this server may
                not have, a model gone meanwhile).

        Raises:
            ListingError: no connection, no answer within the timeout, an HTTP status other
                than 2xx (and 304 / 404 as above), a body over :data:`MAX_LIST_BYTES` or not
                JSON.
        """
        import httpx2

        method = "GET" if body is None else "POST"
        context = self._context
        headers = {"accept": "application/json"}
        if context.api_key:
            headers["authorization"] = f"Bearer {context.api_key}"
        headers.update(context.provider.headers or {})
        if conditional and context.etag:
            headers["if-none-match"] = context.etag
        if conditional and context.last_modified:
            headers["if-modified-since"] = context.last_modified
        where = f"{method} {url}"
        try:
            async with self._client.stream(method, url, headers=headers, json=body) as response:
                etag = response.headers.get("etag") or None
                modified = response.headers.get("last-modified") or None
                if response.status_code == 304 and conditional:
                    return Answer(
                        None,
                        not_modified=True,
                        etag=etag or context.etag,
                        last_modified=modified or context.last_modified,
                    )
                if response.status_code == 404 and missing_ok:
                    return None
                data = await _read(response, where)
                status, kind = response.status_code, response.headers.get("content-type", "")
        except httpx2.TimeoutException:
            raise ListingError(f"{where}: no answer within {context.timeout_s:g} s") from None
        except httpx2.ConnectError as exc:
            raise ListingError(f"{where}: cannot connect: {_connect_reason(exc)}") from None
        except httpx2.TransportError as exc:
            raise ListingError(f"{where}: connection failed ({describe_exception(exc)})") from None
        if not 200 <= status < 300:
            raise ListingError(f"{where}: HTTP {_status_text(status, data)}")
        try:
            payload = json.loads(data)
        except ValueError:
            shown = kind.split(";")[0].strip() or "no content type"
            raise ListingError(
                f"{where}: the answer is not JSON ({shown}): {body_excerpt(data) or 'empty'}"
            ) from None
        return Answer(payload, etag=etag, last_modified=modified)


def _status_text(status: int, data: bytes) -> str:
    """``"500 Internal Server Error: <the server's message>"``, from the error body.

    OpenAI's ``{"error": {"message", "code"}}``, Ollama's ``{"error": "..."}``, else an excerpt.
    """
    try:
        error: Any = as_dict(json.loads(data)).get("error")
    except ValueError:
        error = None
    if isinstance(error, str) and error:
        return http_error_message(status, message=error)
    message = as_dict(error).get("message")
    if isinstance(message, str) and message:
        code = as_dict(error).get("code") or as_dict(error).get("type")
        return http_error_message(status, code=code, message=message)
    return http_error_message(status, body=data)


def _connect_reason(exc: BaseException) -> str:
    """Why a connection failed, short: a refused one is named as such."""
    cause: BaseException | None = exc
    seen: set[int] = set()
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused (is the server running?)"
        cause = cause.__cause__ or cause.__context__
    return describe_exception(exc)


async def _read(response: httpx2.Response, where: str) -> bytes:
    """The whole body, refusing more than :data:`MAX_LIST_BYTES`."""
    parts: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_LIST_BYTES:
            raise ListingError(f"{where}: the answer is larger than {MAX_LIST_BYTES:,} bytes")
        parts.append(chunk)
    return b"".join(parts)


@asynccontextmanager
async def listing_client(context: FetchContext) -> AsyncGenerator[Lister]:
    """A :class:`Lister` on a new client, closed when the block ends."""
    import httpx2

    verify = await shared_ssl_context()
    async with httpx2.AsyncClient(
        timeout=httpx2.Timeout(context.timeout_s), verify=verify, follow_redirects=False
    ) as client:
        yield Lister(client, context)
