"""The usage of a Responses reply: tokens from ``response.usage``, priced by its service tier."""

from __future__ import annotations

from typing import Any

from pi_sdk.provider import MessageBuilder

from .._shared_json import as_dict

__all__ = ["SERVICE_TIER_PRICE", "report_usage"]

SERVICE_TIER_PRICE = {"flex": 0.5, "priority": 2.0}
"""Cost multiplier per service tier (pi-mono ``applyServiceTierPricing``)."""


def report_usage(builder: MessageBuilder, response: dict[str, Any], requested_tier: Any) -> bool:
    """Set ``response.usage`` on ``builder`` and price it; ``False`` when the response has none.

    ``input`` excludes the cached tokens (``cache_read``); the cost is multiplied by the tier's
    factor (the response's ``service_tier``, else the one requested): flex halves, priority
    doubles (pi-ai 1.6 ``applyServiceTierPricing``).
    """
    usage = as_dict(response.get("usage"))
    if not usage:
        return False
    cached = int(as_dict(usage.get("input_tokens_details")).get("cached_tokens") or 0)
    reasoning = as_dict(usage.get("output_tokens_details")).get("reasoning_tokens")
    builder.set_usage(
        input=max(int(usage.get("input_tokens") or 0) - cached, 0),
        output=int(usage.get("output_tokens") or 0),
        cache_read=cached,
        cache_write=0,
        reasoning=int(reasoning or 0),  # pi-ai 1.6: always set, 0 without a breakdown
        price=False,
    )
    tier = response.get("service_tier") or requested_tier
    factor = SERVICE_TIER_PRICE.get(tier) if isinstance(tier, str) else None
    builder.price_usage(factor if factor is not None else 1.0)
    return True
