"""Model factories shared by the provider tests."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pi_sdk import Model


def model_maker(defaults: Mapping[str, Any]) -> Callable[..., Model]:
    """A test module's ``model(**update)``: its ``defaults`` with ``update`` on top, validated.

    Keys are Python field names or pi's JSON names (``Model.model_validate``).
    """

    def make(**update: Any) -> Model:
        return Model.model_validate({**defaults, **update})

    return make
