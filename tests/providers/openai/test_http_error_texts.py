"""The text of an HTTP error answer to an OpenAI request (``_client._status_error``).

``"<status> <reason>: <code>: <message>"`` from the JSON error object, else an excerpt of the
body; OpenRouter's ``error.metadata.raw`` (the upstream provider's own words) on a line of its
own, only when it is a non-empty string. A body the SDK did not read falls back to the SDK's
copy when that is text, else nothing.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import openai
import pytest
from _support.conformance import Reply
from _support.models import model_maker
from _support.openai_fakes import BASE, JSON, run
from pi_sdk_openai._client import _status_error

model = model_maker(
    {"id": "gpt-4o-mini", "api": "openai-completions", "provider": "openai", "base_url": BASE}
)


@pytest.mark.parametrize(
    ("status", "error", "text"),
    [
        (429, {"message": "Slow down", "code": "rate_limit_exceeded"},
         "429 Too Many Requests: rate_limit_exceeded: Slow down"),
        (400, {"message": "Bad field", "type": "invalid_request_error"},
         "400 Bad Request: invalid_request_error: Bad field"),
        (400, {"message": "Bad field", "code": "", "type": "invalid_request_error"},
         "400 Bad Request: invalid_request_error: Bad field"),
        (400, {"message": "Bad field"}, "400 Bad Request: Bad field"),
        (502, {"message": "Provider returned error", "code": 502,
               "metadata": {"raw": "upstream  GPU\n on fire", "provider_name": "X"}},
         "502 Bad Gateway: 502: Provider returned error\nupstream GPU on fire"),
        (502, {"message": "Provider returned error", "metadata": {"raw": ""}},
         "502 Bad Gateway: Provider returned error"),
        (502, {"message": "Provider returned error", "metadata": {"raw": {"error": "x"}}},
         "502 Bad Gateway: Provider returned error"),
        (502, {"message": "Provider returned error", "metadata": "raw"},
         "502 Bad Gateway: Provider returned error"),
    ],
)  # fmt: skip
async def test_the_json_error_object_gives_the_text(
    status: int, error: dict[str, Any], text: str
) -> None:
    body = json.dumps({"error": error}).encode()
    _, message, transport = await run(model(), [Reply(status, body, JSON)])
    assert message.stop_reason == "error"
    assert message.error_message == text
    assert len(transport.requests) == 1


@pytest.mark.parametrize(
    ("body", "text"),
    [
        (b"<html><body><h1>proxy down</h1></body></html>", "503 Service Unavailable: proxy down"),
        (b'{"error": {"message": ""}}', '503 Service Unavailable: {"error": {"message": ""}}'),
        (b"", "503 Service Unavailable"),
    ],
)
async def test_without_a_message_the_body_is_excerpted(body: bytes, text: str) -> None:
    _, message, _ = await run(model(), [Reply(503, body, {"content-type": "text/html"})])
    assert message.error_message == text


def _unread_error(body: object) -> openai.APIStatusError:
    request = httpx2.Request("POST", f"{BASE}/chat/completions")
    response = httpx2.Response(500, request=request, stream=httpx2.ByteStream(b"on the wire"))
    return openai.APIStatusError("failed", response=response, body=body)


@pytest.mark.parametrize(
    ("body", "text"),
    [
        ("the SDK's copy", "500 Internal Server Error: the SDK's copy"),
        (None, "500 Internal Server Error"),
        (b"bytes are not text", "500 Internal Server Error"),
    ],
)
def test_a_body_not_read_falls_back_to_the_sdks_text(body: object, text: str) -> None:
    error = _status_error(_unread_error(body))
    assert str(error) == text
    assert error.status == 500 and error.retryable
