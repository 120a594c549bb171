"""``event_post_call``'s rules by class: the request it sends, the errors it raises, its helpers.

The call's ``send`` runs against an ``httpx2.MockTransport`` (in process): each transport error
maps to a retryable connection error naming its phase, a status from 400 up is read whole and
turned into the protocol's refusal text, any lower status is the stream.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from pi_sdk._serve.event_post import bearer_headers, event_post_call, json_object
from pi_sdk._stream.provider_errors import ProviderError

URL = "https://proxy.example/api/stream"


def _refusal(seen: list[tuple[int, str, bytes]]) -> Any:
    def refusal(status: int, reason: str, body: bytes) -> str:
        seen.append((status, reason, body))
        return f"refused {status}"

    return refusal


async def _send(handler: Any, seen: list[tuple[int, str, bytes]] | None = None) -> Any:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    call = await event_post_call(
        URL,
        lambda origin: {"origin": origin},
        headers=bearer_headers("tok-1"),
        refusal=_refusal([] if seen is None else seen),
        source="proxy",
        client=client,
    )
    async with call.lease as http:
        return await call.send(http, {"model": "m", "n": 1})


def _raises(error: type[Exception]) -> Any:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise error("boom", request=request)

    return handler


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (httpx2.ConnectError, "could not connect to the server: ConnectError: boom"),
        (httpx2.ConnectTimeout, "timed out connecting to the server: ConnectTimeout: boom"),
        (httpx2.ReadError, "connection closed by the server before the response: ReadError: boom"),
        (
            httpx2.RemoteProtocolError,
            "connection closed by the server before the response: RemoteProtocolError: boom",
        ),  # fmt: skip
        (httpx2.ReadTimeout, "timed out waiting for the response: ReadTimeout: boom"),
        (httpx2.WriteTimeout, "timed out waiting for the response: WriteTimeout: boom"),
        (httpx2.PoolTimeout, "timed out waiting for the response: PoolTimeout: boom"),
    ],
)
async def test_a_transport_error_is_a_retryable_error_naming_its_phase(
    error: type[Exception], text: str
):
    with pytest.raises(ProviderError) as caught:
        await _send(_raises(error))
    assert (str(caught.value), caught.value.retryable) == (text, True)


@pytest.mark.parametrize(
    ("status", "retryable"),
    [(400, False), (401, False), (404, False), (429, True), (500, True), (503, True)],  # fmt: skip
)
async def test_a_status_from_400_is_read_whole_and_given_in_the_protocols_words(
    status: int, retryable: bool
):
    seen: list[tuple[int, str, bytes]] = []
    with pytest.raises(ProviderError) as caught:
        await _send(
            lambda request: httpx2.Response(
                status, headers={"retry-after": "2"}, content=b'{"error": "no"}'
            ),
            seen,
        )
    assert seen == [(status, httpx2.codes.get_reason_phrase(status), b'{"error": "no"}')]
    error = caught.value
    assert (error.status, error.retryable, error.retry_after_ms) == (status, retryable, 2000)
    assert str(error) == f"refused {status}"


class _CutBody(httpx2.AsyncByteStream):
    async def __aiter__(self) -> Any:
        raise httpx2.ReadError("cut")
        yield b""  # pragma: no cover - makes this an async generator

    async def aclose(self) -> None:
        pass


async def test_an_error_body_cut_short_leaves_the_status_as_the_error():
    seen: list[tuple[int, str, bytes]] = []
    with pytest.raises(ProviderError) as caught:
        await _send(lambda request: httpx2.Response(502, stream=_CutBody()), seen)
    assert seen == [(502, "Bad Gateway", b"")]
    assert (caught.value.status, caught.value.retryable) == (502, True)


@pytest.mark.parametrize("status", [200, 201, 299, 304, 399])
async def test_a_status_below_400_is_the_stream(status: int):
    seen: list[tuple[int, str, bytes]] = []
    response = await _send(lambda request: httpx2.Response(status, content=b"data: {}\n\n"), seen)
    assert response.status_code == status and seen == []
    await response.aclose()


async def test_the_post_carries_the_json_body_and_the_headers_given():
    requests: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        requests.append(request)
        return httpx2.Response(200, content=b"")

    response = await _send(handler)
    await response.aclose()
    [request] = requests
    assert (request.method, str(request.url)) == ("POST", URL)
    assert json.loads(request.content) == {"model": "m", "n": 1}
    assert request.headers["authorization"] == "Bearer tok-1"
    assert request.headers["accept"] == "text/event-stream"


def test_bearer_headers_are_a_json_post_answered_by_events():
    assert bearer_headers("t-9") == {
        "Authorization": "Bearer t-9",
        "Content-Type": "application/json",
        "Accept": "text/event-stream",
    }


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        (b'{"error": "x"}', {"error": "x"}),
        (b"{}", {}),
        (b'["x"]', None),
        (b'"x"', None),
        (b"null", None),
        (b"3", None),
        (b"", None),
        (b"<html>", None),
        (b"\xff", None),
    ],
)
def test_json_object_is_a_json_object_or_none(raw: bytes, parsed: dict[str, Any] | None):
    assert json_object(raw) == parsed


async def test_the_shared_client_has_no_request_timeout_and_no_connection_cap():
    # the stream's own timeouts apply; one streamed call holds its connection for the reply
    from pi_sdk._serve.event_post import (
        _build_client,  # pyright: ignore[reportPrivateUsage]
    )

    client = _build_client(True)
    try:
        assert client.timeout == httpx2.Timeout(None)
        pool: Any = client._transport._pool  # pyright: ignore[reportPrivateUsage, reportAttributeAccessIssue, reportUnknownMemberType]
        assert pool._max_keepalive_connections == 32
        assert pool._max_connections > 10**9  # no cap
    finally:
        await client.aclose()
