"""httpx2's exceptions in pi-sdk's terms: the transport every first-party provider sends on.

The vendor SDKs (``anthropic``, ``openai``, ``mistralai``, ``google-genai``) and the providers
that send with httpx2 directly (Bedrock, the proxy client, the provider guide's example) lose
connections as ``httpx2.TransportError``. httpx2 is imported inside the functions, on first
use: pi-sdk-core depends on no HTTP client.
"""

from __future__ import annotations

from pi_sdk._stream.contract import TransportErrors
from pi_sdk._stream.provider_errors import ConnectionPhase, ProviderError, connection_error

__all__ = ["connection_error_from_httpx", "httpx_transport_errors"]


def httpx_transport_errors() -> TransportErrors:
    """httpx2's ``((TransportError,), (TimeoutException,))`` (httpx2 imported on call).

    The default :attr:`~pi_sdk.provider.HttpCall.errors` of a call.
    """
    import httpx2

    return (httpx2.TransportError,), (httpx2.TimeoutException,)


def connection_error_from_httpx(exc: BaseException) -> ProviderError:
    """Turn a vendor SDK's connection error (over httpx2) into a retryable :class:`ProviderError`.

    For ``anthropic.APIConnectionError`` / ``openai.APIConnectionError`` and their
    ``APITimeoutError``: their ``__cause__`` is the transport's exception, a failed connect
    (``httpx2.ConnectError``/``ConnectTimeout``: phase ``"connect"``) or a connection the server
    closed after the request was sent, before the response (phase ``"request"``); a timeout is
    named as one (:func:`pi_sdk.provider.connection_error`). An ``httpx2.TransportError`` itself
    (a provider that sends with httpx2 directly) is classified as it is, not by its ``__cause__``
    (httpx2 chains the httpcore2 error there).
    """
    import httpx2

    cause: BaseException = exc if isinstance(exc, httpx2.TransportError) else exc.__cause__ or exc
    phase: ConnectionPhase = (
        "connect" if isinstance(cause, httpx2.ConnectError | httpx2.ConnectTimeout) else "request"
    )
    timed_out = isinstance(cause, httpx2.TimeoutException) or "Timeout" in type(exc).__name__
    return connection_error(cause, phase, timed_out=timed_out)
