"""The edges of the JSON-data rule for tool details (``pi_sdk/_wire/json_data.py``): a value
that looks like JSON data but is not quite (a non-finite float, an integer near Python's
conversion limit) is converted as a copy, never passed through, and a set whose items do not
compare keeps its iteration order.
"""

from __future__ import annotations

import math
import sys

import pytest

from pi_sdk._wire.json_data import NotJsonData, to_json_data
from pi_sdk._wire.strict_json import MAX_NESTING


def test_json_data_passes_through_as_the_same_object():
    value = {"a": [1, 2.5, "x", None, True], "b": {"c": 10**100}}
    assert to_json_data(value) is value


@pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf])
def test_non_finite_floats_become_null_in_a_copy(number: float):
    value = {"rows": [1.5, number], "ok": 2.0}
    result = to_json_data(value)
    assert result == {"rows": [1.5, None], "ok": 2.0}
    assert math.isnan(value["rows"][1]) or math.isinf(value["rows"][1])  # input untouched


def test_an_integer_near_the_conversion_limit_is_checked_and_kept():
    limit = sys.get_int_max_str_digits()
    if not limit:
        pytest.skip("no integer conversion limit in this interpreter")
    big = 10 ** (limit - 1)  # fewer digits than the limit, more bits than the quick check
    assert big.bit_length() >= 3 * limit
    value = {"n": big}
    result = to_json_data(value)
    assert result == {"n": big} and result is not value  # checked, so copied
    with pytest.raises(NotJsonData) as caught:
        to_json_data({"n": 10 ** (limit + 1)})
    assert str(caught.value) == (
        f"details['n']: an integer longer than Python converts"
        f" (sys.get_int_max_str_digits(): {limit} digits)"
    )


def test_a_set_of_items_that_do_not_compare_keeps_its_iteration_order():
    items = {3, "b", 1, "a"}
    assert to_json_data({"s": items}) == {"s": list(items)}
    assert to_json_data({"s": {3, 1, 2}}) == {"s": [1, 2, 3]}  # comparable: sorted


def test_json_data_nested_too_deep_is_refused_naming_the_limit():
    deep: list[object] = []
    for _ in range(MAX_NESTING + 1):
        deep = [deep]
    with pytest.raises(NotJsonData) as caught:
        to_json_data({"rows": deep})
    assert str(caught.value) == f"details: nested deeper than {MAX_NESTING} levels"


class _Opaque:
    """A value pydantic's JSON mode would hand back unchanged (not JSON data)."""


def test_a_converted_value_that_still_is_not_json_data_is_refused_not_converted_again(
    monkeypatch: pytest.MonkeyPatch,
):
    import pydantic_core

    calls: list[object] = []

    def unchanged(value: object) -> object:
        calls.append(value)
        return value

    monkeypatch.setattr(pydantic_core, "to_jsonable_python", unchanged)
    thing = _Opaque()
    with pytest.raises(NotJsonData) as caught:
        to_json_data({"rows": [1, thing]})
    assert str(caught.value) == "details['rows'][1]: _Opaque is not JSON data (no JSON form)"
    assert calls == [thing]  # converted once, then refused
