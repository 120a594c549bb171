"""The ``usage`` of a Converse ``metadata`` event, as pi's usage (pi-ai 1.6 ``handleMetadata``).

``inputTokens``, ``outputTokens``, ``cacheReadInputTokens``, ``cacheWriteInputTokens``, and the
writes whose ``cacheDetails`` entry has a one-hour ``ttl`` (``"1h"``) as ``cache_write_1h``.
"""

from __future__ import annotations

from typing import Any, cast

from pi_sdk.provider import MessageBuilder

__all__ = ["apply_usage"]


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def apply_usage(builder: MessageBuilder, usage: dict[str, Any]) -> None:
    """Set the builder's usage from a Converse ``usage`` object."""
    details = usage.get("cacheDetails")
    one_hour = None
    if isinstance(details, list):
        items = cast("list[Any]", details)
        entries = [cast("dict[str, Any]", d) for d in items if isinstance(d, dict)]
        one_hour = sum(_int(d.get("inputTokens")) for d in entries if d.get("ttl") == "1h")
    builder.set_usage(
        input=_int(usage.get("inputTokens")),
        output=_int(usage.get("outputTokens")),
        cache_read=_int(usage.get("cacheReadInputTokens")),
        cache_write=_int(usage.get("cacheWriteInputTokens")),
        cache_write_1h=one_hour,
    )
