"""What a call costs and where a provider's catalog comes from (pure functions over the wire types).

:func:`calculate_cost` prices a :class:`~pi_sdk.types.Usage` from a model's prices (USD per
million tokens, pi-ai 1.6 ``calculateCost``: price tiers by request size, one-hour cache writes at
their own rate); :func:`load_models_json` reads a provider package's generated ``models.json``
(pi-mono's model JSON).
"""

from __future__ import annotations

import json

from pi_sdk.types import Model, ModelCost, ModelCostTier, Usage

__all__ = ["LONG_CACHE_WRITE_FACTOR", "calculate_cost", "load_models_json", "prices_for"]

LONG_CACHE_WRITE_FACTOR = 2.0
"""A one-hour cache write costs this many times the input price (Anthropic's published prices:
five-minute writes 1.25x, one-hour writes 2x the base input price; pi-ai 1.6 ``calculateCost``)."""


def prices_for(cost: ModelCost, input_tokens: int) -> ModelCost | ModelCostTier:
    """The prices of a request with ``input_tokens`` input tokens (pi-ai 1.6 ``calculateCost``).

    The tier with the highest ``input_tokens_above`` that ``input_tokens`` exceeds, else the base
    prices. Request-wide: the tier's prices apply to every token of the request.
    """
    rates: ModelCost | ModelCostTier = cost
    threshold = -1
    for tier in cost.tiers or ():
        if input_tokens > tier.input_tokens_above > threshold:
            rates, threshold = tier, tier.input_tokens_above
    return rates


def calculate_cost(model: Model, usage: Usage) -> None:
    """Set ``usage.cost`` (USD) from ``model.cost`` (USD per million tokens); mutates ``usage``.

    pi-ai 1.6 ``calculateCost``, to the last bit: the prices are those of the request's size
    (:func:`prices_for` over ``input + cache_read + cache_write`` tokens, ``model.cost.tiers``);
    of ``cache_write``, the ``cache_write_1h`` tokens cost :data:`LONG_CACHE_WRITE_FACTOR` times
    the input price and the rest the cache-write price. ``total`` is the sum of the four parts,
    and a ``total_from_provider`` mark is cleared (a provider that knows the billed cost sets
    both after this).
    """
    rates = prices_for(model.cost, usage.input + usage.cache_read + usage.cache_write)
    long_write = usage.cache_write_1h or 0
    short_write = usage.cache_write - long_write
    cost = usage.cost
    cost.input = rates.input / 1e6 * usage.input
    cost.output = rates.output / 1e6 * usage.output
    cost.cache_read = rates.cache_read / 1e6 * usage.cache_read
    long_rate = rates.input * LONG_CACHE_WRITE_FACTOR
    cost.cache_write = (rates.cache_write * short_write + long_rate * long_write) / 1e6
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    if cost.total_from_provider is not None:
        cost.total_from_provider = None


def load_models_json(package: str, resource: str = "models.json") -> list[Model]:
    """Read a provider package's generated catalog (``{"models": [...]}`` in pi-mono's shape)."""
    from importlib import resources  # lazy: keeps `import pi_sdk` cheap

    text = resources.files(package).joinpath(resource).read_text(encoding="utf-8")
    data = json.loads(text)
    return [Model.model_validate(m) for m in data["models"]]
