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


UNSUPPORTED_KEYS = [
    "$ref",
    "$defs",
    "definitions",
    "allOf",
    "oneOf",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "prefixItems",
    "not",
    "if",
    "then",
    "else",
]


@pytest.mark.parametrize("key", UNSUPPORTED_KEYS)
def test_every_keyword_strict_mode_cannot_take_is_refused_by_name(key: str) -> None:
    for schema in (
        {**_object(a={"type": "string"}), key: {}},
        _object(a={"type": "string", key: {}}),
        _object(a={"type": "array", "items": {"type": "string", key: {}}}),
        _object(a={"anyOf": [{"type": "string", key: {}}]}),
    ):
        with pytest.raises(UnsupportedStrictSchema) as caught:
            make_strict_json_schema(schema)
        assert str(caught.value) == f"{key} schemas are unsupported"
    # A keyword written as null is no constraint at all: nothing to refuse.
    assert make_strict_json_schema(_object(a={"type": "string", key: None}))["required"] == ["a"]


def test_the_vendors_own_check_is_asked_about_every_keyword_of_every_node() -> None:
    asked: list[tuple[str, Any]] = []

    def unsupported(key: str, value: Any) -> bool:
        asked.append((key, value))
        return key == "format" and value == "uri"

    fine = _object(a={"type": "array", "items": {"type": "string", "format": "date"}})
    assert make_strict_json_schema(fine, unsupported)["required"] == ["a"]
    assert ("format", "date") in asked and ("type", "array") in asked
    deep = _object(a={"anyOf": [{"type": "string", "format": "uri"}, {"type": "null"}]})
    with pytest.raises(UnsupportedStrictSchema) as caught:
        make_strict_json_schema(deep, unsupported)
    assert str(caught.value) == 'format: "uri" is unsupported'
    assert make_strict_json_schema(deep)["properties"]["a"] == deep["properties"]["a"]


@pytest.mark.parametrize(
    "schema",
    [
        {"enum": ["a", "b"]},  # an enum alone is typed enough
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"type": ["string", "integer"]},
    ],
)
def test_schemas_typed_other_than_by_type_are_taken(schema: dict[str, Any]) -> None:
    strict = make_strict_json_schema(_object(a=schema))
    assert strict["properties"]["a"] == {"anyOf": [schema, {"type": "null"}]}


def test_objects_inside_items_are_closed_and_their_optionals_made_nullable() -> None:
    inner = {"type": "object", "properties": {"x": {"type": "integer"}}}
    strict = make_strict_json_schema(
        {**_object(a={"type": "array", "items": inner}), "required": ["a"]}
    )
    assert strict["properties"]["a"]["items"] == {
        "type": "object",
        "properties": {"x": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
        "required": ["x"],
        "additionalProperties": False,
    }
    assert inner == {"type": "object", "properties": {"x": {"type": "integer"}}}
