"""Tool-argument coercion through every schema form that leads to a value
(``pi_sdk/_wire/validation.py``, AJV ``coerceTypes``): a list of types, ``allOf``, ``$ref``
(JSON-pointer escapes, empty segments, a reference outside the document left alone), the
draft-07 tuple form with ``additionalItems`` and the 2020-12 ``prefixItems``, and ``anyOf``
when no branch can take the value. Also the name a ``required`` error reports.
"""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import ValidationError

from pi_sdk._wire.validation import (  # pyright: ignore[reportPrivateUsage]
    _missing_property,
    coerce_arguments,
    validate_arguments,
)
from pi_sdk.errors import ToolArgumentsError

DRAFT_07 = "http://json-schema.org/draft-07/schema#"


def _one(prop: dict[str, Any], value: Any, **root: Any) -> Any:
    schema = {"type": "object", "properties": {"a": prop}, **root}
    arguments = {"a": value}
    coerced = coerce_arguments(arguments, schema)
    assert arguments == {"a": value}  # the caller's arguments are not changed
    return coerced["a"]


@pytest.mark.parametrize(
    ("prop", "value", "expected"),
    [
        ({"type": ["integer", "null"]}, "5", 5),
        ({"type": ["boolean", "null"]}, "true", True),
        ({"type": ["string"]}, 5, "5"),
        ({"allOf": [{"type": "integer"}]}, "7", 7),
        ({"allOf": [{"type": "number"}, {"minimum": 0}]}, "2.5", 2.5),
        ({"anyOf": [{"type": "integer"}, {"type": "boolean"}]}, "5", 5),
        ({"anyOf": [{"type": "integer"}, {"type": "boolean"}]}, "true", True),
        ({"anyOf": [{"type": "integer"}, {"type": "boolean"}]}, "x", "x"),  # none fits: as is
    ],
)
def test_each_form_that_names_a_type(prop: dict[str, Any], value: Any, expected: Any):
    got = _one(prop, value)
    assert got == expected and type(got) is type(expected)


def test_references_inside_the_document_are_followed_and_others_left_alone():
    defs = {"$defs": {"n": {"type": "integer"}, "a/b~c": {"type": "boolean"}}}
    assert _one({"$ref": "#/$defs/n"}, "5", **defs) == 5
    assert _one({"$ref": "#/$defs/a~1b~0c"}, "false", **defs) is False  # ~1 is /, ~0 is ~
    assert _one({"$ref": "#//$defs//n"}, "6", **defs) == 6  # empty segments skipped
    assert _one({"$ref": "#/$defs/missing"}, "5", **defs) == "5"
    assert _one({"$ref": "https://example.com/n.json"}, "5", **defs) == "5"


def test_the_draft_07_tuple_form_and_its_additional_items():
    prop = {
        "type": "array",
        "items": [{"type": "integer"}, {"type": "string"}],
        "additionalItems": {"type": "boolean"},
    }
    assert _one(prop, ["1", 2, "true", "false"], **{"$schema": DRAFT_07}) == [1, "2", True, False]
    assert _one(prop, ["1"], **{"$schema": DRAFT_07}) == [1]  # shorter than the tuple
    closed = {"type": "array", "items": [{"type": "integer"}]}
    assert _one(closed, ["1", "2"], **{"$schema": DRAFT_07}) == [1, "2"]  # nothing after it


def test_prefix_items_then_items():
    prop = {"type": "array", "prefixItems": [{"type": "integer"}], "items": {"type": "boolean"}}
    assert _one(prop, ["1", "true", "false"]) == [1, True, False]


@pytest.mark.parametrize(
    ("message", "name"),
    [
        ("'city' is a required property", "city"),
        ("'it''s' is a required property", "its"),  # Python's adjacent literals
        ("3 is a required property", ""),  # not a name
        ("city is a required property", ""),  # not a literal at all
        ("'a' (", ""),
    ],
)
def test_the_name_a_required_error_reports(message: str, name: str):
    assert _missing_property(ValidationError(message, validator="required")) == name


def _nested(levels: int, leaf: Any) -> tuple[dict[str, Any], Any]:
    """A schema and a value ``levels`` properties deep, the leaf an integer given as text."""
    schema: dict[str, Any] = {"type": "integer"}
    value: Any = leaf
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
        value = {"a": value}
    return schema, value


def _leaf(value: Any) -> Any:
    while isinstance(value, dict):
        value = value["a"]
    return value


@pytest.mark.parametrize(("levels", "expected"), [(63, 5), (64, 5), (65, "5"), (66, "5")])
def test_coercion_goes_64_levels_deep_and_no_further(levels: int, expected: Any) -> None:
    """The depth bound (a recursive ``$ref`` ends there): a value below it is left for
    validation to report."""
    schema, value = _nested(levels, "5")
    assert _leaf(coerce_arguments(value, schema)) == expected


def test_a_recursive_reference_is_followed_to_the_depth_bound_and_ends() -> None:
    schema = {"$ref": "#/$defs/node", "$defs": {"node": {"$ref": "#/$defs/node"}}}
    assert coerce_arguments("5", schema) == "5"


@pytest.mark.parametrize("levels", [63, 64])
def test_validation_coerces_to_the_same_depth_bound(levels: int) -> None:
    """``validate_arguments`` (what a tool call runs) starts its coercion at the same depth."""
    schema, value = _nested(levels, "5")
    assert _leaf(validate_arguments("deep", schema, value)) == 5
    assert _leaf(value) == "5"  # the model's arguments are not mutated


def test_validation_below_the_depth_bound_reports_the_value_left_as_text() -> None:
    schema, value = _nested(65, "5")
    with pytest.raises(ToolArgumentsError):
        validate_arguments("deep", schema, value)
