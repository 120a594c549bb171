"""``HttpCall.request_json``: a side request built as the call's would be (``_stream/contract.py``).

The payload is built for the signature origin of the URL the client calls (``base_url``, a
string or read from the client), and only the model's own ``base_url`` when the plan names
none: the same origin a call's payload gets, so a token count sends the signatures the call
would send.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

import pi_sdk
from pi_sdk._stream.contract import HttpCall

MODEL = pi_sdk.Model(id="m", api="x-api", provider="p", base_url="https://model.example/v1")


class _Client:
    url = "https://called.example/v1"

    async def __aenter__(self) -> _Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


class _Response:
    headers: dict[str, str] = {"content-type": "application/json"}

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.closed = False

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        yield self.body

    async def aclose(self) -> None:
        self.closed = True


@pytest.mark.parametrize(
    ("base_url", "origin"),
    [
        ("https://called.example/v1", "x-api@https://called.example"),
        (lambda client: client.url, "x-api@https://called.example"),
        ("", "x-api@https://model.example"),
        (None, "x-api@https://model.example"),
        (lambda client: None, "x-api@https://model.example"),
    ],
    ids=["a-string", "read-from-the-client", "empty", "none", "the-client-says-none"],
)
async def test_the_payload_is_built_for_the_called_url_s_origin(
    base_url: str | Callable[[Any], str | None] | None, origin: str
) -> None:
    origins: list[str] = []
    sent: list[dict[str, Any]] = []
    response = _Response(b'{"input_tokens": 7}')

    def build(signature_origin: str) -> dict[str, Any]:
        origins.append(signature_origin)
        return {"model": "m", "messages": [], "stream": True}

    async def send(client: _Client, payload: dict[str, Any]) -> Any:
        sent.append(payload)
        return response

    plan: HttpCall[_Client] = HttpCall(
        lease=_Client(), base_url=base_url, build_payload=build, send=send, decoder=lambda b: None
    )
    answer = await plan.request_json(MODEL, send, fields=("model", "messages", "absent"))
    assert (answer, origins, sent) == (
        {"input_tokens": 7},
        [origin],
        [{"model": "m", "messages": []}],
    )
    assert response.closed
