"""``Provider.configure``: each value given is taken, each ``None`` keeps the original (issue 34).

A fresh sample (seed 20261206) inverted the ``name`` rule unnoticed: the earlier tests set only
a key and a base URL. Here every parameter is set alone, and the original is never changed.
"""

from __future__ import annotations

import pi_sdk_anthropic
import pytest

FIELDS = {
    "api_key": ("key-1234567890", lambda p: p.auth.api_key),
    "base_url": ("https://gateway.test/v1", lambda p: p.base_url),
    "headers": ({"x-team": "blue"}, lambda p: dict(p.headers or {})),
    "name": ("Anthropic via the gateway", lambda p: p.name),
}


@pytest.mark.parametrize("given", list(FIELDS))
def test_each_value_alone_is_taken_and_the_others_kept(given: str) -> None:
    base = pi_sdk_anthropic.provider()
    before = {name: read(base) for name, (_, read) in FIELDS.items()}
    value, _ = FIELDS[given]
    copy = base.configure(**{given: value})
    for name, (_, read) in FIELDS.items():
        assert read(copy) == (value if name == given else before[name]), name
        assert read(base) == before[name], name  # the original is unchanged
    assert copy.id == base.id and copy.models == base.models


def test_nothing_given_is_an_equal_copy() -> None:
    base = pi_sdk_anthropic.provider()
    assert base.configure() == base
