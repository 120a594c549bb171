"""The model layer's answers are values: frozen, compared and hashed by their fields.

``AuthCheck``, ``StoredModels``, ``RateLimit``, ``TokenCount``, ``FallbackEntry``,
``PluginInfo`` and the kit's ``ContextParts`` are handed to callers (and kept by them, in sets or
as keys): changing one in place would change what another holder sees, so each refuses it; the
ones with ``kw_only`` take their fields by name only (a new field cannot shift the others).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import pi_sdk
from pi_sdk._kit.context_parts import ContextParts
from pi_sdk._models.fallback import FallbackEntry
from pi_sdk._plugins.listing import PluginInfo

MODEL = pi_sdk.Model(id="m", api="a", provider="p")


def _values() -> list[tuple[Any, str, bool]]:
    """``(value, a field, hashable)`` of each kind."""
    context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
    return [
        (pi_sdk.AuthCheck(provider="p", available=True, source="explicit"), "source", True),
        (pi_sdk.StoredModels(models=[MODEL], etag='"e"'), "etag", False),
        (pi_sdk.RateLimit(requests=5), "requests", True),
        (pi_sdk.TokenCount(12, "estimate", "why"), "tokens", True),
        (FallbackEntry(MODEL), "model", False),
        (PluginInfo(name="x", hooks=("get_api_key",)), "name", True),
        (ContextParts.read(context, MODEL), "system_prompt", False),
    ]


@pytest.mark.parametrize("index", range(7))
def test_a_value_refuses_a_change_in_place(index: int) -> None:
    value, name, _ = _values()[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, name, getattr(value, name))


@pytest.mark.parametrize("index", [i for i, (_, _, hashable) in enumerate(_values()) if hashable])
def test_a_hashable_value_is_found_by_an_equal_one(index: int) -> None:
    value, _, _ = _values()[index]
    twin = _values()[index][0]
    assert value == twin and value is not twin
    assert {value: 1}[twin] == 1


@pytest.mark.parametrize(
    ("kind", "positional"),
    [
        (pi_sdk.StoredModels, ([MODEL],)),
        (pi_sdk.RefreshResult, (["p"],)),
        (PluginInfo, ("x", ("get_api_key",))),
    ],
)
def test_fields_by_name_only(kind: Any, positional: tuple[Any, ...]) -> None:
    with pytest.raises(TypeError):
        kind(*positional)
