"""Every rule of the strict-schema conversion and of the grammar tool's schema, each alone,
with its whole message (``pi_sdk/_wire/constrained_sampling.py``, pi-ai 1.6
``makeStrictJsonSchema``): what is refused, and which optional properties already allow
``null`` (kept as they are) or get wrapped in ``anyOf: [..., {"type": "null"}]``.
"""

from __future__ import annotations

from typing import Any

import pytest

from pi_sdk._wire.constrained_sampling import (
    UnsupportedStrictSchema,
    grammar_input_property,
    make_strict_json_schema,
)


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (True, "root schema must have type object"),
        (["type", "object"], "root schema must have type object"),
        ({"type": "string"}, "root schema must have type object"),
        ({"anyOf": [{"type": "string"}]}, "root schema must have type object"),
        (_object(a=True), "boolean schemas are unsupported"),
        (_object(a={"anyOf": [False]}), "boolean schemas are unsupported"),
        (_object(a={"anyOf": []}), "anyOf must contain at least one schema"),
        (_object(a={"anyOf": {"type": "string"}}), "anyOf must contain at least one schema"),
        (_object(a={"anyOf": [{"type": "string"}, {}]}), "schemas without a type are unsupported"),
        (_object(a={"anyOf": [{"type": "array"}]}), "object and array unions are unsupported"),
        (
            _object(a={"anyOf": [{"items": {"type": "string"}}]}),
            "object and array unions are unsupported",
        ),
        (_object(a={"anyOf": [{"properties": {}}]}), "object and array unions are unsupported"),
        (
            _object(a={"anyOf": [{"type": ["null", "object"]}]}),
            "object and array unions are unsupported",
        ),
        (
            _object(a={"type": "array", "items": [{"type": "string"}]}),
            "tuple schemas are unsupported",
        ),
        (_object(a={"type": "array", "items": {"$ref": "#/x"}}), "$ref schemas are unsupported"),
        (_object(a={"type": "string", "properties": {}}), "properties require type object"),
        ({"type": "object", "properties": ["a"]}, "object properties must be a schema map"),
        (
            {**_object(a={"type": "string"}), "required": "a"},
            "object required must be a string array",
        ),
        (
            {**_object(a={"type": "string"}), "required": ["a", 1]},
            "object required must be a string array",
        ),
        (
            {"type": "object", "additionalProperties": {"type": "string"}},
            "schema-valued or true additionalProperties is unsupported",
        ),
        (_object(a={"type": "string", "not": {"const": "x"}}), "not schemas are unsupported"),
    ],
)
def test_what_strict_mode_refuses_is_named_whole(schema: Any, message: str) -> None:
    with pytest.raises(UnsupportedStrictSchema) as caught:
        make_strict_json_schema(schema)
    assert str(caught.value) == message


def test_optional_properties_that_already_allow_null_are_kept_as_they_are() -> None:
    kept = {
        "t": {"type": ["string", "null"]},
        "c": {"const": None, "type": "null"},
        "e": {"enum": ["a", None]},
        "u": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "d": {"anyOf": [{"type": "string"}, {"anyOf": [{"const": None, "type": "null"}]}]},
    }
    wrapped = {
        "s": {"type": "string"},
        "f": {"enum": ["a", "b"]},
        "g": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    }
    strict = make_strict_json_schema(_object(**kept, **wrapped))
    assert strict["required"] == [*kept, *wrapped]
    assert strict["additionalProperties"] is False
    for name, schema in kept.items():
        assert strict["properties"][name] == schema, name
    for name, schema in wrapped.items():
        assert strict["properties"][name] == {"anyOf": [schema, {"type": "null"}]}, name


def test_an_object_without_properties_is_closed_with_none_required() -> None:
    assert make_strict_json_schema({"type": "object"}) == {
        "type": "object",
        "required": [],
        "additionalProperties": False,
    }
    assert make_strict_json_schema({"type": "object", "additionalProperties": False}) == {
        "type": "object",
        "additionalProperties": False,
        "required": [],
    }


def test_a_required_property_stays_as_written() -> None:
    strict = make_strict_json_schema({**_object(a={"type": "string"}), "required": ["a"]})
    assert strict["properties"] == {"a": {"type": "string"}} and strict["required"] == ["a"]


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ({"type": "string"}, "grammar constrained sampling requires an object parameter schema"),
        ({}, "grammar constrained sampling requires an object parameter schema"),
        (
            {"type": "object"},
            "grammar constrained sampling requires exactly one required string property",
        ),
        (
            {"type": "object", "required": ["a", "b"]},
            "grammar constrained sampling requires exactly one required string property",
        ),
        (
            {"type": "object", "required": "a"},
            "grammar constrained sampling requires exactly one required string property",
        ),
        (
            {"type": "object", "required": [7]},
            "grammar constrained sampling requires exactly one required string property",
        ),
        (
            {"type": "object", "required": ["a"]},
            "grammar constrained sampling requires a properties entry for a",
        ),
        (
            {"type": "object", "required": ["a"], "properties": {"a": {}}},
            "grammar constrained sampling requires a properties entry for a",
        ),
        (
            {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}},
            "grammar constrained sampling property a must have type string",
        ),
    ],
)
def test_a_grammar_tools_schema_rules_are_named_whole(parameters: Any, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        grammar_input_property(parameters)
    assert str(caught.value) == message


def test_a_grammar_tools_one_string_property_is_named() -> None:
    schema = {"type": "object", "required": ["code"], "properties": {"code": {"type": "string"}}}
    assert grammar_input_property(schema) == "code"
