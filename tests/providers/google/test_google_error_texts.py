"""Gemini's error texts, whole, where they are made: every body form an HTTP error or a stream has.

``error_from_api`` reads the SDK's ``APIError``: Google's JSON error (``"<status> <reason>:
<STATUS NAME>: <message>"``, non-ASCII kept), a list of them (the first), the SDK's wrapper of
a non-JSON body (a proxy's page, its reason phrase), any other JSON document (shown as it
came), an empty body (the status alone), and no HTTP status at all. ``RetryInfo.retryDelay``
is the fallback wait. ``provider_error_from_body`` reads an error object inside a stream.
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from google.genai import errors
from pi_sdk_google._client import error_from_api, provider_error_from_body


def _error(message: str, status: str = "INVALID_ARGUMENT", code: int = 400) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status}}


@pytest.mark.parametrize(
    ("exc", "text", "retryable"),
    [
        pytest.param(
            errors.ClientError(400, _error("Champ invalide é")),
            "400 Bad Request: INVALID_ARGUMENT: Champ invalide é",
            False,
            id="google-json",
        ),
        pytest.param(
            errors.ClientError(400, [_error("first"), _error("second")]),
            "400 Bad Request: INVALID_ARGUMENT: first",
            False,
            id="a-list-of-errors",
        ),
        pytest.param(
            errors.ServerError(
                502, {"message": "<html><body>passerelle</body></html>", "status": "Bad Gateway"}
            ),
            "502 Bad Gateway: passerelle",
            True,
            id="a-page-the-sdk-wrapped",
        ),
        pytest.param(
            errors.ServerError(502, {"message": "page", "status": "Proxy Says No"}),
            "502 Proxy Says No: page",
            True,
            id="a-wrapped-page-without-a-response-takes-the-sdks-status-text",
        ),
        pytest.param(
            errors.ServerError(
                502,
                {"message": "page", "status": "Proxy Says No"},
                httpx2.Response(502, extensions={"reason_phrase": b"From The Wire"}),
            ),
            "502 From The Wire: page",
            True,
            id="the-responses-reason-phrase-comes-first",
        ),
        pytest.param(
            errors.ClientError(400, _error("")),
            '400 Bad Request: {"error": {"code": 400, "message": "",'
            ' "status": "INVALID_ARGUMENT"}}',
            False,
            id="google-json-with-an-empty-message-is-shown-as-it-came",
        ),
        pytest.param(
            errors.ClientError(400, {"error": {"code": 400, "message": 5}}),
            '400 Bad Request: {"error": {"code": 400, "message": 5}}',
            False,
            id="google-json-whose-message-is-no-text-is-shown-as-it-came",
        ),
        pytest.param(
            errors.ServerError(500, {"message": 5}),
            '500 Internal Server Error: {"message": 5}',
            True,
            id="a-message-that-is-no-text-is-other-json",
        ),
        pytest.param(
            errors.ServerError(500, {"message": "x", "error": "flat"}),
            '500 Internal Server Error: {"message": "x", "error": "flat"}',
            True,
            id="a-message-beside-a-non-object-error-is-other-json",
        ),
        pytest.param(
            errors.ServerError(500, {"foo": "é"}),
            '500 Internal Server Error: {"foo": "é"}',
            True,
            id="other-json",
        ),
        pytest.param(errors.ServerError(503, {}), "503 Service Unavailable", True, id="empty"),
        pytest.param(errors.ServerError(503, None), "503 Service Unavailable", True, id="none"),
        pytest.param(
            errors.APIError(None, {"error": {"message": "no code at all"}}),  # type: ignore[arg-type]
            "Gemini API error: no code at all",
            False,
            id="no-status",
        ),
        # No HTTP status: Google's message, else the body as read, else the SDK's own text.
        pytest.param(
            errors.APIError(None, {"message": "<p>page</p>", "status": "Bad Gateway"}),  # type: ignore[arg-type]
            "Gemini API error: page",
            False,
            id="no-status-a-page-the-sdk-wrapped",
        ),
        pytest.param(
            errors.APIError(None, {"foo": "é"}),  # type: ignore[arg-type]
            'Gemini API error: {"foo": "é"}',
            False,
            id="no-status-other-json",
        ),
        pytest.param(
            errors.APIError(None, {}),  # type: ignore[arg-type]
            "Gemini API error: None None. {}",
            False,
            id="no-status-empty-body-str-of-the-error",
        ),
    ],
)
def test_every_body_of_an_http_error(exc: Exception, text: str, retryable: bool) -> None:
    error = error_from_api(exc)
    assert (str(error), error.retryable) == (text, retryable)


@pytest.mark.parametrize(
    ("details", "wait_ms"),
    [
        ([{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}], 37000.0),
        ([{"@type": "x"}, {"retryDelay": "1.5s"}], 1500.0),
        ([{"retryDelay": "soon"}], None),
        ("not a list", None),
    ],
)
def test_retry_info_is_the_fallback_wait(details: Any, wait_ms: float | None) -> None:
    body = {"error": {"code": 429, "message": "slow", "status": "RESOURCE_EXHAUSTED"}}
    body["error"]["details"] = details
    error = error_from_api(errors.ClientError(429, body))
    assert (str(error), error.retry_after_ms) == (
        "429 Too Many Requests: RESOURCE_EXHAUSTED: slow",
        wait_ms,
    )


@pytest.mark.parametrize(
    ("body", "status", "text", "retryable"),
    [
        (
            {"code": 503, "message": "over", "status": "UNAVAILABLE"},
            None,
            "503 UNAVAILABLE: over",
            True,
        ),
        ({"message": "sans code é"}, None, "Gemini stream error: sans code é", False),
        ({"code": 400, "message": "bad"}, None, "400: bad", False),
        ({"message": "m", "status": "INTERNAL"}, 500, "500 INTERNAL: m", True),
        (None, None, "Gemini stream error: unknown error", False),
        ("plain text", None, "Gemini stream error: plain text", False),
    ],
)
def test_every_form_of_an_error_in_the_stream(
    body: Any, status: int | None, text: str, retryable: bool
) -> None:
    error = provider_error_from_body(body, status)
    assert (str(error), error.retryable) == (text, retryable)
