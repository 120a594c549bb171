"""The proxy's per-key limit and counters on the wire: the 429 refusal, ``GET /api/usage``.

* Over its key's rate limit (:class:`~pi_sdk._serve.usage_store.RateLimit`), a call is answered
  ``429 Too Many Requests`` with ``Retry-After`` (whole seconds, rounded up) and a JSON
  ``{"error": "rate limit: ..."}`` body (pi's client shows it as ``Proxy error: ...``), before
  its body is read.
* ``GET /api/usage`` with a key's bearer token answers that key's counters, summed over every
  worker (:meth:`~pi_sdk._serve.usage_store.KeyUsage.to_json`); without a valid token, 401.
"""

from __future__ import annotations

import math
from typing import Any

from pi_sdk._serve.outcome_log import log_refusal
from pi_sdk._serve.policy import ProxyPolicy
from pi_sdk._serve.usage_store import UsageStore

__all__ = ["UsageEndpoint", "rate_limited"]


async def rate_limited(usage: UsageStore, key: str, scope: Any, receive: Any, send: Any) -> bool:
    """Admit a call of ``key``, or answer 429 and return True."""
    from starlette.responses import JSONResponse

    wait = await usage.admit(key)
    if wait is None:
        return False
    seconds = max(1, math.ceil(wait))
    reason = f"rate limit: key {key!r} may make {usage.rate_limit}; retry in {seconds} s"
    log_refusal(scope, 429, reason)
    reply = JSONResponse({"error": reason}, 429, headers={"retry-after": str(seconds)})
    await reply(scope, receive, send)
    return True


class UsageEndpoint:
    """``GET /api/usage``: the calling key's counters."""

    def __init__(self, policy: ProxyPolicy, usage: UsageStore) -> None:
        self.policy = policy
        self.usage = usage

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.requests import Request
        from starlette.responses import JSONResponse

        key = self.policy.key_name(Request(scope, receive).headers.get("authorization"))
        if key is None:
            reason = "unauthorized: a valid bearer token is required"
            log_refusal(scope, 401, reason)
            reply = JSONResponse(
                {"error": reason}, status_code=401, headers={"www-authenticate": "Bearer"}
            )
        else:
            reply = JSONResponse((await self.usage.usage(key)).to_json())
        await reply(scope, receive, send)
