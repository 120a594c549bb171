"""Every way a model-list request fails is one ``ListingError`` naming the request and why.

``Lister.json`` over an in-process transport (``httpx2.MockTransport``): no answer in time, a
connection that breaks, an HTTP error in OpenAI's, Ollama's or another shape (the server's
message and code in the text), and an answer over the size limit. The key is never in it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from pi_sdk_openai import _listing_http as listing_http
from pi_sdk_openai import openai_compatible_provider

from pi_sdk.provider import FetchContext

URL = "http://127.0.0.1:8000/v1/models"
KEY = "sk-list-0123456789abcdef"


async def _ask(handler: Callable[[httpx2.Request], httpx2.Response]) -> str:
    provider = openai_compatible_provider("local", "http://127.0.0.1:8000/v1")
    context = FetchContext(provider=provider, api_key=KEY, timeout_s=2.5)
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as client:
        with pytest.raises(listing_http.ListingError) as failed:
            await listing_http.Lister(client, context).json(URL)
    text = str(failed.value)
    assert KEY not in text
    return text


def _raising(exc: Exception) -> Callable[[httpx2.Request], httpx2.Response]:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise exc

    return handler


async def test_no_answer_in_time_names_the_budget() -> None:
    text = await _ask(_raising(httpx2.ReadTimeout("timed out")))
    assert text == f"GET {URL}: no answer within 2.5 s"


async def test_a_connection_that_breaks_says_how() -> None:
    text = await _ask(_raising(httpx2.RemoteProtocolError("Server disconnected")))
    assert text.startswith(f"GET {URL}: connection failed (")
    assert "Server disconnected" in text


def _connect_error(*chain: BaseException) -> httpx2.ConnectError:
    """A ``ConnectError`` whose causes are ``chain`` (the first its ``__cause__``, the next
    that one's ``__context__``, ...)."""
    exc = httpx2.ConnectError("All connection attempts failed")
    link: BaseException = exc
    for i, cause in enumerate(chain):
        if i == 0:
            link.__cause__ = cause
        else:
            link.__context__ = cause
        link = cause
    return exc


@pytest.mark.parametrize(
    ("chain", "reason"),
    [
        ((ConnectionRefusedError(111, "Connection refused"),),
         "connection refused (is the server running?)"),
        ((OSError("wrapped"), ConnectionRefusedError(111, "refused")),
         "connection refused (is the server running?)"),
        ((OSError(113, "No route to host"),),
         "ConnectError: All connection attempts failed ([Errno 113] No route to host)"),
        ((), "ConnectError: All connection attempts failed"),
    ],
)  # fmt: skip
async def test_a_connection_never_made_says_why(chain: tuple[Any, ...], reason: str) -> None:
    text = await _ask(_raising(_connect_error(*chain)))
    assert text == f"GET {URL}: cannot connect: {reason}"


async def test_a_cause_chain_that_loops_ends() -> None:
    exc = httpx2.ConnectError("All connection attempts failed")
    loop = OSError("loop")
    exc.__cause__, loop.__cause__ = loop, exc
    text = await _ask(_raising(exc))
    assert text == f"GET {URL}: cannot connect: ConnectError: All connection attempts failed (loop)"


@pytest.mark.parametrize(
    ("status", "body", "said"),
    [
        (401, {"error": {"message": "Invalid API key", "code": "invalid_api_key"}},
         "401 Unauthorized: invalid_api_key: Invalid API key"),
        (429, {"error": {"message": "Slow down", "type": "rate_limit"}},
         "429 Too Many Requests: rate_limit: Slow down"),
        (500, {"error": "model runner crashed"}, "500 Internal Server Error: model runner crashed"),
        (503, {"detail": "warming up"}, '503 Service Unavailable: {"detail":"warming up"}'),
        (500, {"error": ""}, '500 Internal Server Error: {"error":""}'),
        (500, {"error": {"message": ""}}, '500 Internal Server Error: {"error":{"message":""}}'),
        (500, {"error": {"message": 5, "code": "c"}},
         '500 Internal Server Error: {"error":{"message":5,"code":"c"}}'),
        (500, {"error": {"message": "m"}}, "500 Internal Server Error: m"),
    ],
    ids=["openai", "openai-type", "ollama", "other", "empty-error", "empty-message",
         "message-not-text", "message-only"],
)  # fmt: skip
async def test_an_http_error_gives_the_servers_message(status: int, body: Any, said: str) -> None:
    text = await _ask(lambda request: httpx2.Response(status, json=body))
    assert text == f"GET {URL}: HTTP {said}"


async def test_an_answer_over_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listing_http, "MAX_LIST_BYTES", 1000)
    text = await _ask(lambda request: httpx2.Response(200, content=b"[" + b"1," * 600 + b"1]"))
    assert text == f"GET {URL}: the answer is larger than 1,000 bytes"


@pytest.mark.parametrize("extra", [0, 1])
async def test_the_limit_is_16_mib_and_an_answer_of_that_size_is_read(extra: int) -> None:
    """16 MiB (:data:`MAX_LIST_BYTES`), about 30 times OpenRouter's list: the boundary itself."""
    assert listing_http.MAX_LIST_BYTES == 16 * 1024 * 1024
    body = b"[]" + b" " * (listing_http.MAX_LIST_BYTES - 2 + extra)
    provider = openai_compatible_provider("local", "http://127.0.0.1:8000/v1")
    context = FetchContext(provider=provider, api_key=KEY, timeout_s=2.5)
    handler = httpx2.MockTransport(lambda request: httpx2.Response(200, content=body))
    async with httpx2.AsyncClient(transport=handler) as client:
        lister = listing_http.Lister(client, context)
        if not extra:
            answer = await lister.json(URL)
            assert answer is not None and answer.payload == []
            return
        with pytest.raises(listing_http.ListingError) as failed:
            await lister.json(URL)
    assert str(failed.value) == f"GET {URL}: the answer is larger than 16,777,216 bytes"


@pytest.mark.parametrize(
    ("headers", "body", "said"),
    [
        ({"content-type": "text/html; charset=utf-8"}, b"<h1>Sign in</h1>  <p>to continue</p>",
         "(text/html): Sign in to continue"),
        ({"content-type": "text/plain"}, b"ok", "(text/plain): ok"),
        ({"content-type": "text/plain"}, b"", "(text/plain): empty"),
        ({"content-type": "text/plain"}, b" \n ", "(text/plain): empty"),
        ({}, b"not json", "(no content type): not json"),
        ({"content-type": " ; charset=utf-8"}, b"", "(no content type): empty"),
    ],
    ids=["html", "text", "empty", "blank", "no-type", "blank-type"],
)  # fmt: skip
async def test_an_answer_that_is_not_json_is_named_by_type_and_excerpt(
    headers: dict[str, str], body: bytes, said: str
) -> None:
    text = await _ask(lambda request: httpx2.Response(200, headers=headers, content=body))
    assert text == f"GET {URL}: the answer is not JSON {said}"


@pytest.mark.parametrize(
    ("status", "said"),
    [(199, "199"), (300, "300 Multiple Choices")],
)
async def test_a_status_outside_2xx_is_an_http_error(status: int, said: str) -> None:
    text = await _ask(lambda request: httpx2.Response(status, json={"error": "no list"}))
    assert text == f"GET {URL}: HTTP {said}: no list"


@pytest.mark.parametrize("status", [200, 299])
async def test_a_status_from_200_to_299_is_the_list(status: int) -> None:
    provider = openai_compatible_provider("local", "http://127.0.0.1:8000/v1")
    context = FetchContext(provider=provider, api_key=KEY, timeout_s=2.5)
    body = {"data": [{"id": "m"}]}
    handler = lambda request: httpx2.Response(status, json=body)  # noqa: E731
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as client:
        answer = await listing_http.Lister(client, context).json(URL)
    assert answer is not None and answer.payload == body
