"""An Anthropic ``usage`` object as pi's usage (pi-ai 1.6 ``anthropic-messages.ts``).

``input_tokens``, ``output_tokens``, ``cache_read_input_tokens``, ``cache_creation_input_tokens``;
the one-hour share of the writes (``cache_creation.ephemeral_1h_input_tokens``, priced at its
own rate) as ``cache_write_1h``, and the thinking tokens inside the output
(``output_tokens_details.thinking_tokens``) as ``reasoning``, where reported.
"""

from __future__ import annotations

from typing import Any, cast

from pi_sdk.provider import MessageBuilder

__all__ = ["apply_usage"]


def _dict(value: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def apply_usage(builder: MessageBuilder, usage: dict[str, Any], *, default: int | None) -> None:
    """Set the integer fields of ``usage``; the absent ones become ``default`` (``None``: kept).

    ``message_start`` passes ``0`` (pi-ai 1.6 then records ``cacheWrite1h: 0`` without a
    breakdown), ``message_delta`` ``None``.
    """

    def count(value: Any) -> int | None:
        return value if isinstance(value, int) else default

    thinking = _dict(usage.get("output_tokens_details")).get("thinking_tokens")
    builder.set_usage(
        input=count(usage.get("input_tokens")),
        output=count(usage.get("output_tokens")),
        cache_read=count(usage.get("cache_read_input_tokens")),
        cache_write=count(usage.get("cache_creation_input_tokens")),
        cache_write_1h=count(_dict(usage.get("cache_creation")).get("ephemeral_1h_input_tokens")),
        reasoning=thinking if isinstance(thinking, int) else None,
    )
