"""The ``provider_error`` diagnostic of a failed reply, field by field (issue 34).

``note_provider_error`` records what an error's text cannot carry: the HTTP status as
``error.code`` (only when there is one), ``details.retryable`` and ``details.retryAfterMs``
(only when given); an error with none of them adds nothing. A sample (seed 20261206) inverted
the status rule unnoticed.
"""

from __future__ import annotations

import pytest

from pi_sdk._stream.provider_errors import note_provider_error
from pi_sdk._wire.retry_policy import PROVIDER_ERROR_DIAGNOSTIC
from pi_sdk.provider import ProviderError
from pi_sdk.types import AssistantMessage


def _failed() -> AssistantMessage:
    return AssistantMessage(
        content=[], api="a", provider="p", model="m", stop_reason="error", error_message="boom"
    )


@pytest.mark.parametrize(
    ("error", "code", "details"),
    [
        (
            ProviderError("x", status=429, retryable=True, retry_after_ms=1500),
            429,
            {"retryable": True, "retryAfterMs": 1500},
        ),
        (ProviderError("x", status=400), 400, {"retryable": False}),
        (ProviderError("x", retryable=True), None, {"retryable": True}),
    ],
)
def test_the_diagnostic_carries_what_the_error_knew(
    error: ProviderError, code: int | None, details: dict[str, object]
) -> None:
    message = _failed()
    note_provider_error(message, error)
    (diagnostic,) = message.diagnostics or []
    assert diagnostic.type == PROVIDER_ERROR_DIAGNOSTIC
    expected = {"name": "ProviderError", "message": "boom"}
    assert diagnostic.error == (expected if code is None else {**expected, "code": code})
    assert diagnostic.details == details


def test_an_error_that_knows_nothing_more_adds_nothing() -> None:
    message = _failed()
    note_provider_error(message, ProviderError("x"))
    assert not message.diagnostics
