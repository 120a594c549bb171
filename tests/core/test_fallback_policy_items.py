"""What a fallback chain accepts as a model and how its repr names each form
(``pi_sdk/_models/fallback.py``): a model, ``"provider/id"``, a :class:`FallbackEntry`, a
``(model, options)`` pair; anything else refused at construction with its whole message.
"""

from __future__ import annotations

from typing import Any

import pytest

import pi_sdk
from pi_sdk._models.fallback import FallbackEntry, FallbackPolicy

MODEL = pi_sdk.Model(id="m-1", api="x-api", provider="acme")


def test_the_repr_names_every_form_of_item():
    policy = FallbackPolicy(
        [
            MODEL,
            "zeta/z-2",
            FallbackEntry(MODEL, {"max_tokens": 100}),
            ("beta/b-3", {"temperature": 0.5}),
            (MODEL, {"max_tokens": 5}),
        ],
        after_content="continue",
    )
    assert repr(policy) == (
        "FallbackPolicy([acme/m-1, zeta/z-2, acme/m-1, beta/b-3, acme/m-1],"
        " after_content='continue')"
    )


@pytest.mark.parametrize(
    ("item", "kind", "message"),
    [
        ((MODEL,), TypeError, "a fallback pair is (model, options); got 1 items"),
        ((MODEL, {}, {}), TypeError, "a fallback pair is (model, options); got 3 items"),
        (
            42,
            TypeError,
            "fallback models are Model, 'provider/id' or (model, options); got int",
        ),
        (
            (42, {}),
            TypeError,
            "fallback models are Model, 'provider/id' or (model, options); got int",
        ),
        ("no-slash", ValueError, "fallback model 'no-slash': expected 'provider/model-id'"),
        ("/m", ValueError, "fallback model '/m': expected 'provider/model-id'"),
        ("p/", ValueError, "fallback model 'p/': expected 'provider/model-id'"),
        (
            ("beta/b-3", {"nope": 1, "also_nope": 2}),
            ValueError,
            "fallback entry beta/b-3: unknown option(s) ['also_nope', 'nope']",
        ),
        (
            FallbackEntry(MODEL, {"temprature": 1}),
            ValueError,
            "fallback entry acme/m-1: unknown option(s) ['temprature']",
        ),
    ],
)
def test_what_is_no_model_of_a_chain_is_refused(item: Any, kind: type[Exception], message: str):
    with pytest.raises(kind) as caught:
        FallbackPolicy([item])
    assert str(caught.value) == message
