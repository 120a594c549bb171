"""Every form a fallback chain's entry may take, and every malformed one, refused whole.

A chain entry is a :class:`Model`, ``"provider/model-id"``, a :class:`FallbackEntry`, or a
``(model, option overrides)`` pair; anything else is refused when the policy is built, with a
message naming the entry (pi_sdk/_models/fallback.py ``_check_item``).
"""

from __future__ import annotations

import pytest

import pi_sdk
from pi_sdk._models.fallback import FallbackEntry, FallbackPolicy

MODEL = pi_sdk.get_model("openai", "gpt-4o-mini")


@pytest.mark.parametrize("spec", ["gpt-4o", "/gpt-4o", "openai/", "/", ""])
def test_a_model_name_without_both_halves_is_refused(spec: str) -> None:
    with pytest.raises(ValueError) as raised:
        FallbackPolicy([spec])
    assert str(raised.value) == f"fallback model {spec!r}: expected 'provider/model-id'"


@pytest.mark.parametrize("spec", ["gpt-4o", "/gpt-4o", "openai/"])
def test_the_same_names_are_refused_inside_a_pair_and_an_entry(spec: str) -> None:
    expected = f"fallback model {spec!r}: expected 'provider/model-id'"
    with pytest.raises(ValueError) as in_pair:
        FallbackPolicy([(spec, {"max_tokens": 10})])
    with pytest.raises(ValueError) as in_entry:
        FallbackPolicy([FallbackEntry(spec, {})])  # type: ignore[arg-type]
    assert str(in_pair.value) == str(in_entry.value) == expected


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ((MODEL,), "a fallback pair is (model, options); got 1 items"),
        ((MODEL, {}, {}), "a fallback pair is (model, options); got 3 items"),
        (42, "fallback models are Model, 'provider/id' or (model, options); got int"),
        (None, "fallback models are Model, 'provider/id' or (model, options); got NoneType"),
    ],
)
def test_what_is_no_entry_is_a_type_error_naming_what_it_got(item: object, expected: str) -> None:
    with pytest.raises(TypeError) as raised:
        FallbackPolicy([item])  # type: ignore[list-item]
    assert str(raised.value) == expected


def test_unknown_option_names_are_listed_sorted_with_the_entry_named() -> None:
    with pytest.raises(ValueError) as raised:
        FallbackPolicy([("openai/gpt-4o", {"zeta": 1, "alpha": 2, "max_tokens": 5})])
    assert str(raised.value) == "fallback entry openai/gpt-4o: unknown option(s) ['alpha', 'zeta']"
    with pytest.raises(ValueError) as raised:
        FallbackPolicy([FallbackEntry(MODEL, {"nope": 1})])
    assert str(raised.value) == "fallback entry openai/gpt-4o-mini: unknown option(s) ['nope']"


@pytest.mark.parametrize(
    "item",
    [
        "openai/gpt-4o",
        "openrouter/openai/gpt-4o",  # the id may hold a slash: only the first one splits
        MODEL,
        (MODEL, {"max_tokens": 100}),
        ("openai/gpt-4o", None),
        FallbackEntry(MODEL, {"temperature": 0.5}),
    ],
)
def test_every_well_formed_entry_is_accepted(item: object) -> None:
    FallbackPolicy([item])  # type: ignore[list-item]
