"""A Chat Completions ``usage`` object as pi's usage (pi-ai 1.6 ``parseChunkUsage``).

``input`` is ``prompt_tokens`` less the cached ones (``prompt_tokens_details.cached_tokens``,
DeepSeek's ``prompt_cache_hit_tokens``), ``output`` is ``completion_tokens``, and ``reasoning``
the reasoning tokens inside it (``completion_tokens_details.reasoning_tokens``, or a top-level
``reasoning_tokens``; ``0`` without a breakdown, as pi-ai 1.6 writes it).
"""

from __future__ import annotations

from typing import Any

from pi_sdk.provider import MessageBuilder

from .._shared_json import as_dict

__all__ = ["apply_usage"]


def apply_usage(builder: MessageBuilder, usage: dict[str, Any]) -> None:
    """Set the builder's usage from a Chat Completions ``usage`` object."""
    prompt = int(usage.get("prompt_tokens") or 0)
    details = as_dict(usage.get("prompt_tokens_details"))
    cached = int(details.get("cached_tokens") or usage.get("prompt_cache_hit_tokens") or 0)
    output_details = as_dict(usage.get("completion_tokens_details"))
    reasoning = output_details.get("reasoning_tokens") or usage.get("reasoning_tokens")
    builder.set_usage(
        input=max(prompt - cached, 0),
        output=int(usage.get("completion_tokens") or 0),
        cache_read=cached,
        cache_write=0,
        reasoning=int(reasoning or 0),
    )
