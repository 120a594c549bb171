"""A fallback policy resolves its models once per collection (``pi_sdk/_models/fallback.py``).

``FallbackPolicy.entries(collection)`` looks every ``"provider/id"`` up and checks every model's
wire API in the collection; later calls with the same collection object reuse that resolution
(no lookup again, the same entries), and a call with another collection resolves against that
one: its models, its errors.
"""

from __future__ import annotations

from typing import Any

import pytest

import pi_sdk
from pi_sdk._models.fallback import FallbackPolicy
from pi_sdk.errors import ModelNotFoundError

FIRST = pi_sdk.Model(id="first", api="x-api", provider="acme")


class RecordingCollection:
    """A ``ModelLookup`` over ``models`` that records every lookup."""

    def __init__(self, models: dict[str, pi_sdk.Model]) -> None:
        self.models = models
        self.asked: list[str] = []

    def get_model(self, provider: str, model_id: str) -> pi_sdk.Model:
        self.asked.append(f"model {provider}/{model_id}")
        try:
            return self.models[f"{provider}/{model_id}"]
        except KeyError:
            raise ModelNotFoundError(f"no model {provider}/{model_id}") from None

    def api_provider(self, api: str, provider: str | None = None) -> Any:
        self.asked.append(f"api {api}")
        return object()


def _collection(tag: str) -> RecordingCollection:
    return RecordingCollection(
        {
            "acme/backup": pi_sdk.Model(id="backup", api=f"{tag}-api", provider="acme"),
            "beta/b-2": pi_sdk.Model(id="b-2", api=f"{tag}-api", provider="beta", name=tag),
        }
    )


ITEMS: list[Any] = ["acme/backup", ("beta/b-2", {"max_tokens": 64}), FIRST]


def _asked(tag: str) -> list[str]:
    """The lookups resolving :data:`ITEMS` makes (a pair's model is checked, then its entry)."""
    return ["model acme/backup", f"api {tag}-api", "model beta/b-2", f"api {tag}-api",
            f"api {tag}-api", "api x-api"]  # fmt: skip


@pytest.mark.parametrize("at_construction", [True, False])
def test_the_same_collection_is_resolved_once(at_construction: bool) -> None:
    collection = _collection("one")
    policy = FallbackPolicy(ITEMS, collection=collection if at_construction else None)
    first = policy.entries(collection)
    asked = list(collection.asked)
    assert asked == _asked("one")
    assert policy.entries(collection) is first  # the same entries, not looked up again
    chain = policy.chain(pi_sdk.Model(id="head", api="x-api", provider="h"), collection=collection)
    assert chain[1:] == list(first)
    assert collection.asked == asked
    assert [(e.model.id, e.model.api, e.options) for e in first] == [
        ("backup", "one-api", {}),
        ("b-2", "one-api", {"max_tokens": 64}),
        ("first", "x-api", {}),
    ]


def test_another_collection_is_resolved_against_its_own_models() -> None:
    one, two = _collection("one"), _collection("two")
    policy = FallbackPolicy(ITEMS, collection=one)
    from_one = policy.entries(one)
    from_two = policy.entries(two)
    assert two.asked == _asked("two")  # every item looked up and checked in the new collection
    assert [e.model.api for e in from_two] == ["two-api", "two-api", "x-api"]
    assert [e.model.api for e in from_one] == ["one-api", "one-api", "x-api"]
    # An equal collection that is another object is another collection.
    twin = _collection("one")
    assert [e.model for e in policy.entries(twin)] == [e.model for e in from_one]
    assert twin.asked == _asked("one")
    # Back to the first: its own models again.
    assert [e.model.api for e in policy.entries(one)] == ["one-api", "one-api", "x-api"]


def test_a_collection_missing_a_model_raises_each_time_and_caches_nothing() -> None:
    policy = FallbackPolicy(ITEMS)
    empty = RecordingCollection({})
    for _ in range(2):
        with pytest.raises(ModelNotFoundError, match="no model acme/backup"):
            policy.entries(empty)
    assert empty.asked == ["model acme/backup", "model acme/backup"]
    full = _collection("full")
    assert [e.model.api for e in policy.entries(full)] == ["full-api", "full-api", "x-api"]
