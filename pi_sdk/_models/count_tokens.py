"""Counting a request's input tokens: the vendor's counting endpoint, else the estimate.

:func:`count_with` is :meth:`pi_sdk.Models.count_tokens` (and so :func:`pi_sdk.count_tokens`,
the default collection's). A wire-API implementation that can count gives
``ApiProvider.count_tokens`` (:data:`~pi_sdk._stream.contract.CountTokensFunction`): Anthropic
Messages (``POST /v1/messages/count_tokens``), OpenAI Responses (``POST
/v1/responses/input_tokens``), Gemini (``models/{model}:countTokens``). Without one, or when the
endpoint fails (a network error, an HTTP error, a missing key), the answer is pi's estimate
(:func:`~pi_sdk.agent.estimate_context_tokens`, four characters a token, anchored on the last
reported usage) and :class:`TokenCount` says which it is and why. Issue 28, item 5.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pi_sdk._stream.call_scope import CallScope, KeyLookup, current_scope
from pi_sdk._stream.contract import ApiProvider
from pi_sdk._wire.estimate import estimate_context_tokens
from pi_sdk._wire.redact import redact_text
from pi_sdk.options import StreamOptions
from pi_sdk.types import Context, Model

__all__ = ["TokenCount", "count_with"]


@dataclass(frozen=True)
class TokenCount:
    """How many input tokens a request for a context takes, and where the figure comes from.

    Attributes:
        tokens: Input tokens (system prompt, messages, tools), nothing generated.
        source: ``"vendor"`` (the counting endpoint answered) or ``"estimate"``.
        reason: With an estimate, why: ``"no counting endpoint for <api>"``, or the failure of
            the endpoint (``"count_tokens endpoint failed: 401 Unauthorized: ..."``, never a
            key). ``None`` for a vendor count.
    """

    tokens: int
    source: Literal["vendor", "estimate"]
    reason: str | None = None


async def count_with(
    implementation: ApiProvider,
    model: Model,
    context: Context,
    options: StreamOptions,
    key_lookup: KeyLookup,
) -> TokenCount:
    """The count for ``context`` on ``model`` (module doc); never raises for the endpoint.

    Args:
        implementation: The wire API serving ``model``.
        model: The model the request is for.
        context: The request: system prompt, messages, tools.
        options: The call's options; ``api_key`` is this collection's key when not given;
            ``timeout_ms`` bounds the request (default 10 minutes as a call).
        key_lookup: The collection's keys (for a provider's own ``resolve_api_key``).
    """
    counter = implementation.count_tokens
    if counter is None:
        return _estimate(context, f"no counting endpoint for {model.api}")
    token = current_scope.set(CallScope(api_key=key_lookup))
    try:
        timeout = options.timeout_ms / 1000 if options.timeout_ms else None
        tokens = await asyncio.wait_for(counter(model, context, options), timeout)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - a failed count falls back to the estimate
        text = str(exc) or type(exc).__name__
        if isinstance(exc, TimeoutError):
            text = f"no answer within {options.timeout_ms:.0f} ms"
        secrets = [options.api_key, key_lookup(model.provider)]
        return _estimate(context, redact_text(f"count_tokens endpoint failed: {text}", secrets))
    finally:
        current_scope.reset(token)
    answer: Any = tokens
    if isinstance(answer, bool) or not isinstance(answer, int) or answer < 0:
        return _estimate(context, f"count_tokens endpoint answered {tokens!r}, not a count")
    return TokenCount(tokens, "vendor")


def _estimate(context: Context, reason: str) -> TokenCount:
    return TokenCount(estimate_context_tokens(context).tokens, "estimate", reason)


def with_key(options: StreamOptions | None, key: Callable[[], str | None]) -> StreamOptions:
    """``options`` with the collection's key when they carry none."""
    options = options or StreamOptions()
    if options.api_key:
        return options
    found = key()
    return dataclasses.replace(options, api_key=found) if found else options
