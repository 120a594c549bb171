"""Exception frames -> ProviderError, retryable per AWS (Bedrock API ``ConverseStreamOutput``)."""

from __future__ import annotations

import json
from typing import Any, cast

from pi_sdk.provider import ProviderError

__all__ = ["RETRYABLE_EXCEPTIONS", "exception_error"]

RETRYABLE_EXCEPTIONS = frozenset(
    {
        "throttlingException",
        "serviceUnavailableException",
        "internalServerException",
        "modelStreamErrorException",
        "modelNotReadyException",
    }
)
"""Exception frames AWS documents as transient ("retry your request"; botocore's retry
handler treats the matching HTTP errors as retryable)."""


def _dict(value: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def exception_error(name: str, payload: bytes) -> ProviderError:
    """The error for an exception frame: ``"<exceptionType>: <message>"``, retryable per AWS.

    ``modelStreamErrorException`` adds the model's ``originalStatusCode`` and
    ``originalMessage`` when present.
    """
    try:
        data = _dict(json.loads(payload))
    except ValueError:
        data = {"message": payload.decode("utf-8", errors="replace")[:300]}
    message = data.get("message") or data.get("Message") or "(no message)"
    extra = [f"{k}={data[k]}" for k in ("originalStatusCode", "originalMessage") if data.get(k)]
    text = f"{name or 'exception'}: {message}" + (f" ({', '.join(extra)})" if extra else "")
    return ProviderError(text, retryable=name in RETRYABLE_EXCEPTIONS)
