"""Per-tool constrained sampling (issue 29 item 4): the Tool field, the strict schema, the rules.

pi-ai 1.6 ``Tool.constrainedSampling`` in pi's JSON; ``makeStrictJsonSchema``,
``resolveJsonSchemaStrictSampling`` and ``resolveGrammarConstrainedSampling`` behaviour
(``api/constrained-sampling.ts``); the errors name the tool and the model.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.schemas import SQL, STRICT_WEATHER, WEATHER
from pydantic import ValidationError

import pi_sdk
from pi_sdk import ConfigurationError, Tool
from pi_sdk._wire.constrained_sampling import (
    GrammarSampling,
    JsonSchemaSampling,
    UnsupportedStrictSchema,
    make_strict_json_schema,
)
from pi_sdk._wire.transcript import declarations_equal

MODEL = pi_sdk.Model(id="m-1", api="openai-responses", provider="acme")


def _tool(sampling: Any, parameters: dict[str, Any] | None = None) -> Tool:
    return Tool(name="t", parameters=parameters or WEATHER, constrained_sampling=sampling)


# --- the wire shape -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sampling",
    [
        False,
        {"type": "json_schema", "strict": "prefer"},
        {"type": "json_schema", "strict": "require"},
        {"type": "grammar", "variants": {"openai_lark": "start: A", "openai_regex": "a+"}},
    ],
)
def test_pi_json_round_trips_with_constrained_sampling(sampling: Any) -> None:
    raw = {"name": "t", "description": "d", "parameters": WEATHER, "constrainedSampling": sampling}
    tool = Tool.model_validate(raw)
    assert json.loads(tool.model_dump_json()) == raw
    assert Tool.model_validate_json(tool.model_dump_json()) == tool


def test_the_config_is_typed_and_absent_by_default() -> None:
    assert Tool(name="t").constrained_sampling is None
    assert "constrainedSampling" not in Tool(name="t").model_dump()
    strict = _tool({"type": "json_schema", "strict": "require"}).constrained_sampling
    assert isinstance(strict, JsonSchemaSampling) and strict.strict == "require"
    grammar = _tool({"type": "grammar", "variants": {"openai_regex": "x"}}).constrained_sampling
    assert isinstance(grammar, GrammarSampling) and grammar.variants == {"openai_regex": "x"}


@pytest.mark.parametrize(
    "sampling",
    [
        {"type": "json_schema", "strict": "always"},
        {"type": "json_schema"},
        {"type": "regex", "variants": {}},
        True,
    ],
)
def test_a_bad_config_is_a_validation_error(sampling: Any) -> None:
    with pytest.raises(ValidationError):
        _tool(sampling)


def test_a_changed_config_is_a_changed_declaration() -> None:
    prefer = _tool({"type": "json_schema", "strict": "prefer"})
    require = _tool({"type": "json_schema", "strict": "require"})
    assert not declarations_equal(prefer, require)
    assert declarations_equal(prefer, prefer.model_copy())


# --- the strict schema --------------------------------------------------------------------------


def test_optional_properties_become_required_and_nullable() -> None:
    strict = make_strict_json_schema(WEATHER)
    assert strict == STRICT_WEATHER
    assert WEATHER["required"] == ["city"]  # the tool's own schema is not modified


def test_nested_objects_and_items_are_closed_too() -> None:
    schema = {
        "type": "object",
        "properties": {
            "rows": {
                "type": "array",
                "items": {"type": "object", "properties": {"a": {"type": ["string", "null"]}}},
            }
        },
        "required": ["rows"],
    }
    item = make_strict_json_schema(schema)["properties"]["rows"]["items"]
    assert item == {
        "type": "object",
        "properties": {"a": {"type": ["string", "null"]}},  # already nullable: kept
        "required": ["a"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    ("schema", "why"),
    [
        ({"type": "array", "items": {"type": "string"}}, "root schema must have type object"),
        ({"type": "object", "properties": {"a": {"$ref": "#/x"}}}, "$ref"),
        ({"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}}}, "oneOf"),
        ({"type": "object", "properties": {"a": {}}}, "without a type"),
        ({"type": "object", "additionalProperties": True}, "additionalProperties"),
        ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}, "unknown"),
        (
            {"type": "object", "properties": {"a": {"anyOf": [{"type": "object"}]}}},
            "object and array unions",
        ),
    ],
)
def test_what_strict_mode_cannot_take_is_named(schema: dict[str, Any], why: str) -> None:
    with pytest.raises(UnsupportedStrictSchema, match=None) as info:
        make_strict_json_schema(schema)
    assert why in str(info.value)


# --- prefer / require per model -----------------------------------------------------------------


def test_prefer_is_strict_where_supported_and_silently_not_elsewhere() -> None:
    tool = _tool({"type": "json_schema", "strict": "prefer"})
    assert tool.strict_mode(MODEL, True) is True
    assert tool.strict_mode(MODEL, False) is None
    unstrictable = _tool({"type": "json_schema", "strict": "prefer"}, {"type": "object", "x": 1})
    assert unstrictable.strict_mode(MODEL, True, lambda key, _: key == "x") is None
    assert _tool(None).strict_mode(MODEL, True) is None
    assert _tool(False).strict_mode(MODEL, True) is None


def test_require_on_a_model_that_cannot_names_the_tool_and_the_model() -> None:
    tool = _tool({"type": "json_schema", "strict": "require"})
    with pytest.raises(ConfigurationError) as info:
        tool.strict_mode(MODEL, False)
    text = str(info.value)
    assert "'t'" in text and "acme/m-1 (openai-responses)" in text and "strict" in text


def test_require_with_a_keyword_the_vendor_rejects_says_which() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}
    tool = _tool({"type": "json_schema", "strict": "require"}, schema)
    with pytest.raises(ConfigurationError, match="minimum: 1 is unsupported"):
        tool.strict_mode(MODEL, True, lambda key, _: key == "minimum")


def test_wire_parameters_are_the_strict_schema_only_when_strict() -> None:
    tool = _tool({"type": "json_schema", "strict": "prefer"})
    assert tool.wire_parameters(None) is tool.parameters
    assert tool.wire_parameters(True) == make_strict_json_schema(WEATHER)


# --- grammar tools ------------------------------------------------------------------------------


def test_a_grammar_tool_prefers_lark_and_carries_its_string_property() -> None:
    both = {"type": "grammar", "variants": {"openai_lark": "start: A", "openai_regex": "a+"}}
    grammar = _tool(both, SQL).grammar(MODEL, True)
    assert grammar is not None
    assert (grammar.syntax, grammar.definition, grammar.input_property) == (
        "lark",
        "start: A",
        "query",
    )
    regex = _tool({"type": "grammar", "variants": {"openai_regex": "a+"}}, SQL).grammar(MODEL, True)
    assert regex is not None and regex.syntax == "regex"


def test_a_grammar_tool_is_a_function_tool_where_grammars_are_unsupported() -> None:
    tool = _tool({"type": "grammar", "variants": {"openai_regex": "a+"}}, SQL)
    assert tool.grammar(MODEL, False) is None
    assert tool.strict_mode(MODEL, True) is None  # and never strict


@pytest.mark.parametrize(
    ("variants", "parameters", "why"),
    [
        ({"openai_lark": "  "}, SQL, "no supported grammar variant"),
        (
            {"openai_regex": "a+"},
            {**WEATHER, "required": ["city", "unit"]},
            "exactly one required string property",
        ),
        (
            {"openai_regex": "a+"},
            {"type": "object", "properties": {"q": {"type": "integer"}}, "required": ["q"]},
            "must have type string",
        ),
    ],
)
def test_a_bad_grammar_tool_names_the_tool_and_the_model(
    variants: dict[str, str], parameters: dict[str, Any], why: str
) -> None:
    tool = _tool({"type": "grammar", "variants": variants}, parameters)
    with pytest.raises(ConfigurationError) as info:
        tool.grammar(MODEL, True)
    assert why in str(info.value) and "acme/m-1" in str(info.value)


def test_an_agent_tool_sends_its_constrained_sampling() -> None:
    from pi_sdk.agent import AgentTool

    tool = AgentTool(
        name="t",
        parameters=WEATHER,
        constrained_sampling={"type": "json_schema", "strict": "require"},
    )
    wire = tool.to_tool()
    assert isinstance(wire.constrained_sampling, JsonSchemaSampling)
    assert wire.constrained_sampling.strict == "require"
    assert AgentTool(name="u").to_tool().constrained_sampling is None
