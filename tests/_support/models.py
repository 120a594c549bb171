"""Model factories shared by the provider tests."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pi_sdk
from pi_sdk import Model


def model_maker(defaults: Mapping[str, Any]) -> Callable[..., Model]:
    """A test module's ``model(**update)``: its ``defaults`` with ``update`` on top, validated.

    Keys are Python field names or pi's JSON names (``Model.model_validate``).
    """

    def make(**update: Any) -> Model:
        return Model.model_validate({**defaults, **update})

    return make


def recognized(api: str, uri: str, body: Any, *, method: str = "POST") -> Model | None:
    """What the registered ``api`` provider's ``recognize`` makes of a recorded request."""
    recognize = pi_sdk.get_api_provider(api).recognize
    assert recognize is not None, f"{api} has no recognizer"
    return recognize(method, uri, body)


def described(model: Model | None, *fields: str) -> tuple[Any, ...]:
    """``model``'s ``fields`` (``"api"``, ``"provider"``, ...); ``model`` must not be ``None``."""
    assert model is not None, "the request was not recognized"
    return tuple(getattr(model, name) for name in fields)
