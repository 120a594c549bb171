"""Token usage of one call and what it cost (pi-ai 1.6 ``Usage``, ``types.ts``).

Public as :class:`pi_sdk.Usage` / :class:`pi_sdk.Cost` (re-exported by :mod:`pi_sdk.types`).
:func:`pi_sdk._wire.cost.calculate_cost` fills the cost from a model's prices.
"""

from __future__ import annotations

from pydantic import Field

from pi_sdk._wire.wire_model import WireModel

__all__ = ["Cost", "Usage"]


class Cost(WireModel):
    """Cost of one call in USD, split like :class:`Usage` (pi-ai 1.6 ``Usage.cost``).

    JSON: ``{"input", "output", "cacheRead", "cacheWrite", "total", "totalFromProvider"?}``.
    The four parts are catalog estimates (:func:`pi_sdk._wire.cost.calculate_cost`); ``total``
    is their sum, unless the vendor reported what it billed.
    """

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    """Both cache-write rates: five-minute writes and one-hour writes (``Usage.cache_write_1h``)."""
    total: float = 0.0
    """The best total known: the vendor's billed cost when :attr:`total_from_provider`, else the
    sum of the four catalog estimates."""
    total_from_provider: bool | None = None
    """``True`` when :attr:`total` is the cost the vendor billed (OpenRouter reports it), which
    wins over the catalog estimate; ``False`` or ``None`` (left out of the JSON): an estimate.
    pi-ai 1.6 ``totalFromProvider``; pi-ai's ``calculateCost`` writes ``false``, pi-sdk leaves it
    out (absent means false in pi-ai too)."""


class Usage(WireModel):
    """Token usage of one call (pi-ai 1.6 ``Usage``), in tokens.

    ``input`` counts non-cached input tokens; ``cache_read`` / ``cache_write`` count tokens read
    from / written to the prompt cache; ``output`` counts every generated token, reasoning
    included; ``total_tokens`` is the sum of the four.

    JSON: ``{"input", "output", "cacheRead", "cacheWrite", "cacheWrite1h"?, "reasoning"?,
    "totalTokens", "cost"}``.
    """

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cache_write_1h: int | None = Field(default=None, alias="cacheWrite1h")
    """The part of :attr:`cache_write` written with one-hour retention, priced at its own rate
    (:func:`pi_sdk._wire.cost.calculate_cost`); ``None`` when the vendor reports no split (only
    Anthropic does). pi-ai 1.6 ``cacheWrite1h``."""
    reasoning: int | None = None
    """Reasoning (thinking) tokens, a part of :attr:`output` (never added to it); ``None`` when the
    vendor reports no breakdown. pi-ai 1.6 ``reasoning``."""
    total_tokens: int = 0
    cost: Cost = Field(default_factory=Cost)

    def update_total(self) -> None:
        """Recompute ``total_tokens`` as input + output + cache_read + cache_write."""
        self.total_tokens = self.input + self.output + self.cache_read + self.cache_write
