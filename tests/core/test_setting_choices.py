"""StreamOptions settings that take one of a few names refuse any other, naming the valid ones.

``cache_retention`` (pi-ai ``CacheRetention``: ``"none" | "short" | "long"``, ``None`` for the
default) and ``foreign_reasoning`` (pi-sdk's ``"drop" | "text" | "tagged"``). Each provider
tests one name and takes another branch for anything else, so a typo (``"off"``) used to be
sent as the default retention.
"""

from __future__ import annotations

from typing import Any

import pytest

from pi_sdk import StreamOptions
from pi_sdk._wire.choices import check_choice
from pi_sdk.types import CacheRetention

RETENTION = "valid values are 'none', 'short', 'long' or None"
FOREIGN = "valid values are 'drop', 'text', 'tagged'"


@pytest.mark.parametrize("value", ["off", "None", "Long", "", 0, False])
def test_a_wrong_cache_retention_is_refused(value: Any) -> None:
    with pytest.raises(ValueError) as info:
        StreamOptions(cache_retention=value)
    assert str(info.value) == f"unknown cache_retention {value!r}: {RETENTION}"


@pytest.mark.parametrize("value", [None, "none", "short", "long"])
def test_every_cache_retention_and_none_are_taken(value: Any) -> None:
    assert StreamOptions(cache_retention=value).cache_retention == value


@pytest.mark.parametrize("value", [None, "keep", "Drop", "tag"])
def test_a_wrong_foreign_reasoning_is_refused(value: Any) -> None:
    with pytest.raises(ValueError) as info:
        StreamOptions(foreign_reasoning=value)
    assert str(info.value) == f"unknown foreign_reasoning {value!r}: {FOREIGN}"


@pytest.mark.parametrize("value", ["drop", "text", "tagged"])
def test_every_foreign_reasoning_is_taken(value: Any) -> None:
    assert StreamOptions(foreign_reasoning=value).foreign_reasoning == value


def test_a_checked_value_is_compared_by_equality_not_identity() -> None:
    built = "".join(["sh", "ort"])  # equal to "short", another object
    check_choice("cache_retention", built, CacheRetention)
