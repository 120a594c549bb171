"""A live JSON body and its recording of different kinds: the values are shown, nothing is walked.

An object is compared key by key only with an object, a list item by item only with a list;
an object, a list or a scalar met by another kind is one difference at that path, both values
shown as JSON.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_pytest.body_match import json_body_difference


@pytest.mark.parametrize(
    ("live", "recorded", "difference"),
    [
        ({"a": 1}, [1], '$.x: {"a": 1} != [1] (live != recorded)'),
        ({"a": 1}, "a", '$.x: {"a": 1} != "a" (live != recorded)'),
        ({"a": 1}, None, '$.x: {"a": 1} != null (live != recorded)'),
        ("a", {"a": 1}, '$.x: "a" != {"a": 1} (live != recorded)'),
        ([1], {"a": 1}, '$.x: [1] != {"a": 1} (live != recorded)'),
        (["a"], "a", '$.x: ["a"] != "a" (live != recorded)'),
        ("ab", ["a", "b"], '$.x: "ab" != ["a", "b"] (live != recorded)'),
        ({}, [], "$.x: {} != [] (live != recorded)"),
    ],
)
def test_values_of_different_kinds_are_one_difference_showing_both(
    live: Any, recorded: Any, difference: str
) -> None:
    assert json_body_difference({"x": live}, {"x": recorded}) == difference
