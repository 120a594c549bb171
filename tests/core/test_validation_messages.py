"""Tool-argument validation words each failure as pi-mono's AJV does (``_wire/validation.py``).

The text goes back to the model as the tool's error result, so the wording is part of the
wire behaviour: one line per failing keyword, ``  - <path>: <AJV message>``, sorted by path.
"""

from __future__ import annotations

from typing import Any

import pytest

from pi_sdk._wire.validation import validate_arguments
from pi_sdk.errors import ToolArgumentsError


def _line(schema: dict[str, Any], value: Any) -> str:
    full = {"type": "object", "properties": {"v": schema}, "required": ["v"]}
    with pytest.raises(ToolArgumentsError) as caught:
        validate_arguments("t", full, {"v": value})
    return str(caught.value).split("\n")[1]


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        ({"type": "string"}, {"x": 1}, "must be string"),  # 7 would be coerced to "7"
        ({"type": ["string", "null"]}, {"x": 1}, "must be string,null"),
        ({"type": "object", "required": ["x"]}, {}, "must have required property 'x'"),
        ({"enum": ["a", "b"]}, "c", "must be equal to one of the allowed values"),
        ({"const": "a"}, "b", "must be equal to constant"),
        (
            {"type": "object", "additionalProperties": False},
            {"x": 1},
            "must NOT have additional properties",
        ),
        ({"anyOf": [{"type": "string"}, {"type": "boolean"}]}, {}, "must match a schema in anyOf"),
        (
            {"oneOf": [{"type": "number"}, {"type": "integer"}]},
            7,
            "must match exactly one schema in oneOf",
        ),
        ({"type": "number", "minimum": 5}, 4, "must be >= 5"),
        ({"type": "number", "maximum": 5}, 6, "must be <= 5"),
        ({"type": "number", "exclusiveMinimum": 5}, 5, "must be > 5"),
        ({"type": "number", "exclusiveMaximum": 5}, 5, "must be < 5"),
        ({"type": "string", "minLength": 3}, "ab", "must NOT have fewer than 3 characters"),
        ({"type": "string", "maxLength": 1}, "ab", "must NOT have more than 1 characters"),
        ({"type": "array", "minItems": 2}, [1], "must NOT have fewer than 2 items"),
        ({"type": "array", "maxItems": 1}, [1, 2], "must NOT have more than 1 items"),
        ({"type": "object", "minProperties": 2}, {"a": 1}, "must NOT have fewer than 2 properties"),
        (
            {"type": "object", "maxProperties": 1},
            {"a": 1, "b": 2},
            "must NOT have more than 1 properties",
        ),
        ({"type": "number", "multipleOf": 3}, 4, "must be multiple of 3"),
        ({"type": "string", "pattern": "^a+$"}, "b", 'must match pattern "^a+$"'),
    ],
)
def test_each_keyword_is_worded_as_ajv_words_it(
    schema: dict[str, Any], value: Any, message: str
) -> None:
    assert _line(schema, value) == f"  - v: {message}"


def test_a_missing_property_is_named_at_the_root_and_lines_are_sorted_by_path() -> None:
    schema = {
        "type": "object",
        "properties": {"b": {"type": "string"}, "a": {"type": "string"}},
        "required": ["a", "b", "c"],
    }
    with pytest.raises(ToolArgumentsError) as caught:
        validate_arguments("t", schema, {"b": [], "a": {}})
    assert str(caught.value).split("\n")[1:4] == [
        "  - a: must be string",
        "  - b: must be string",
        "  - c: must have required property 'c'",
    ]
