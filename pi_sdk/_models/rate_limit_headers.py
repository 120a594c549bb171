"""What a vendor's rate-limit headers say is left: requests and tokens, and when they reset.

Read by :class:`pi_sdk._models.rate_limit.RateLimiter` from every response of a limited call.
The vendors' names:

* OpenAI (and most compatible servers): ``x-ratelimit-remaining-requests`` /
  ``x-ratelimit-reset-requests`` and ``-tokens``, the reset as a duration (``"1s"``,
  ``"6m0s"``, ``"120ms"``); OpenAI's rate-limit guide.
* Anthropic: ``anthropic-ratelimit-requests-remaining`` / ``-reset`` and
  ``anthropic-ratelimit-tokens-remaining`` / ``-reset`` (also ``input-tokens``), the reset as an
  RFC 3339 time; Anthropic's rate-limits page.
* Generic (OpenRouter, GitHub style): ``x-ratelimit-remaining`` / ``x-ratelimit-reset``, the
  reset as delay seconds or a Unix time in seconds or milliseconds (requests).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping

__all__ = ["parse_reset_s", "server_budgets"]

Budget = tuple[int, float]
"""``(remaining, seconds until reset)``."""

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_reset_s(value: str) -> float | None:
    """Seconds until a reset: a duration (``"6m0s"``), delay seconds, a Unix time, RFC 3339.

    ``None`` when unreadable; a time in the past gives 0.
    """
    text = value.strip()
    try:
        number = float(text)
    except ValueError:
        number = None
    if number is not None:
        if number >= 1e12:  # a Unix time in milliseconds (from 2001-09-09)
            return max(0.0, number / 1000 - time.time())
        if number >= 1e9:  # a Unix time in seconds (from 2001-09-09)
            return max(0.0, number - time.time())
        return max(0.0, number)
    parts = _DURATION.findall(text)
    if parts and "".join(a + b for a, b in parts) == text:
        return sum(float(amount) * _UNIT_S[unit] for amount, unit in parts)
    try:
        import datetime

        when = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return max(0.0, when.timestamp() - time.time())


def _budget(lowered: Mapping[str, str], remaining: str, reset: str) -> Budget | None:
    left = lowered.get(remaining)
    when = lowered.get(reset)
    if left is None or when is None:
        return None
    try:
        count = int(float(left))
    except ValueError:
        return None
    seconds = parse_reset_s(when)
    return None if seconds is None else (count, seconds)


def server_budgets(headers: Mapping[str, str]) -> tuple[Budget | None, Budget | None]:
    """``(requests, tokens)``: what the headers say is left of each, ``None`` when unsaid."""
    headers = {name.lower(): value for name, value in headers.items()}
    requests = (
        _budget(headers, "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests")
        or _budget(
            headers, "anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset"
        )
        or _budget(headers, "x-ratelimit-remaining", "x-ratelimit-reset")
    )
    tokens = _budget(
        headers, "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"
    ) or _budget(
        headers, "anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset"
    )
    return requests, tokens
