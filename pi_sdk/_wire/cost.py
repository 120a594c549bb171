"""What a call costs and where a provider's catalog comes from (pure functions over the wire types).

:func:`calculate_cost` prices a :class:`~pi_sdk.types.Usage` from a model's prices (USD per
million tokens, pi-mono ``calculateCost``); :func:`load_models_json` reads a provider package's
generated ``models.json`` (pi-mono's model JSON).
"""

from __future__ import annotations

import json

from pi_sdk.types import Model, Usage

__all__ = ["calculate_cost", "load_models_json"]


def calculate_cost(model: Model, usage: Usage) -> None:
    """Set ``usage.cost`` from ``model.cost`` (USD per million tokens); mutates ``usage``."""
    prices = model.cost
    cost = usage.cost
    cost.input = prices.input * usage.input / 1e6
    cost.output = prices.output * usage.output / 1e6
    cost.cache_read = prices.cache_read * usage.cache_read / 1e6
    cost.cache_write = prices.cache_write * usage.cache_write / 1e6
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write


def load_models_json(package: str, resource: str = "models.json") -> list[Model]:
    """Read a provider package's generated catalog (``{"models": [...]}`` in pi-mono's shape)."""
    from importlib import resources  # lazy: keeps `import pi_sdk` cheap

    text = resources.files(package).joinpath(resource).read_text(encoding="utf-8")
    data = json.loads(text)
    return [Model.model_validate(m) for m in data["models"]]
