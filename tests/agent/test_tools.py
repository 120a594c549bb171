"""Tools: definitions, schemas from pydantic and functions, AJV-style validation and coercion."""

from __future__ import annotations

import threading
from typing import Annotated, Any, Literal

import pytest
from _support.strings import built
from pydantic import BaseModel, Field, field_validator

import pi_sdk
from pi_sdk import AgentTool, AgentToolResult, ToolArgumentsError
from pi_sdk._agent.tools import to_tool_result, validate_tool_call
from pi_sdk._wire.validation import coerce_arguments, schema_from_model, validate_arguments

SIGNAL = pi_sdk.AbortController().signal


def call(name: str, **arguments: Any) -> pi_sdk.ToolCall:
    return pi_sdk.ToolCall(id="c1", name=name, arguments=arguments)


# --- coercion (AJV coerceTypes) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema_type", "value", "expected"),
    [
        ("number", "5", 5),
        ("number", "2.5", 2.5),
        ("number", " 1e3 ", 1000),
        ("number", True, 1),
        ("number", None, 0),
        ("integer", "7", 7),
        ("integer", "7.0", 7),
        ("integer", False, 0),
        ("boolean", "true", True),
        ("boolean", "false", False),
        ("boolean", 1, True),
        ("boolean", 0, False),
        ("boolean", None, False),
        ("string", 3, "3"),
        ("string", 2.5, "2.5"),
        ("string", 4.0, "4"),
        ("string", True, "true"),
        ("string", None, ""),
        ("null", "", None),
        ("null", 0, None),
        ("null", False, None),
        ("array", "solo", ["solo"]),
        ("array", 3, [3]),
    ],
)
def test_scalar_coercion_follows_ajv(schema_type, value, expected):
    schema = {"type": "object", "properties": {"v": {"type": schema_type}}}
    coerced = coerce_arguments({"v": value}, schema)
    assert coerced["v"] == expected
    assert type(coerced["v"]) is type(expected)


@pytest.mark.parametrize(
    ("schema_type", "value"),
    [
        ("number", ""),
        ("number", "12abc"),
        ("integer", "7.5"),
        ("boolean", "yes"),
        ("boolean", 2),
        ("null", "null"),
        ("string", {"a": 1}),
        ("array", {"a": 1}),
    ],
)
def test_values_ajv_would_not_coerce_are_left_for_validation(schema_type, value):
    schema = {"type": "object", "properties": {"v": {"type": schema_type}}}
    assert coerce_arguments({"v": value}, schema) == {"v": value}
    with pytest.raises(ToolArgumentsError):
        validate_arguments("t", schema, {"v": value})


def test_coercion_descends_into_nested_structures_refs_and_unions():
    schema = {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
            "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "string"}]},
            "extra": {"type": "object", "additionalProperties": {"type": "boolean"}},
        },
        "$defs": {"Item": {"type": "object", "properties": {"qty": {"type": "integer"}}}},
    }
    arguments = {
        "items": [{"qty": "2"}, {"qty": 3}],
        "limit": "10",
        "point": ["1.5", 2],
        "extra": {"x": "true"},
    }
    coerced = validate_arguments("t", schema, arguments)
    assert coerced == {
        "items": [{"qty": 2}, {"qty": 3}],
        "limit": 10,
        "point": [1.5, "2"],
        "extra": {"x": True},
    }
    assert arguments["items"][0]["qty"] == "2"  # the model's arguments are not mutated


def test_any_of_keeps_a_value_that_already_matches_a_branch():
    schema = {
        "type": "object",
        "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
    }
    assert validate_arguments("t", schema, {"v": "5"}) == {"v": "5"}


# --- error text ----------------------------------------------------------------------------------


def test_error_text_is_pi_monos_format_with_ajv_wording():
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 3},
            "mode": {"enum": ["fast", "slow"]},
            "tags": {"type": "array", "maxItems": 1},
            "nested": {"type": "object", "required": ["inner"]},
        },
        "required": ["name", "count"],
        "additionalProperties": False,
    }
    arguments = {"name": "ab", "mode": "medium", "tags": [1, 2], "nested": {}, "bogus": 1}
    with pytest.raises(ToolArgumentsError) as info:
        validate_arguments("demo", schema, arguments)
    assert str(info.value) == (
        'Validation failed for tool "demo":\n'
        "  - count: must have required property 'count'\n"
        "  - mode: must be equal to one of the allowed values\n"
        "  - name: must NOT have fewer than 3 characters\n"
        "  - nested: must have required property 'inner'\n"
        "  - root: must NOT have additional properties\n"
        "  - tags: must NOT have more than 1 items\n"
        "\n"
        "Received arguments:\n"
        "{\n"
        '  "name": "ab",\n'
        '  "mode": "medium",\n'
        '  "tags": [\n    1,\n    2\n  ],\n'
        '  "nested": {},\n'
        '  "bogus": 1\n'
        "}"
    )
    assert isinstance(info.value, ValueError)


def test_format_is_checked():
    schema = {"type": "object", "properties": {"when": {"type": "string", "format": "date"}}}
    with pytest.raises(ToolArgumentsError, match='when: must match format "date"'):
        validate_arguments("t", schema, {"when": "yesterday"})
    assert validate_arguments("t", schema, {"when": "2026-01-31"}) == {"when": "2026-01-31"}


# --- tools from pydantic models ------------------------------------------------------------------


class Address(BaseModel):
    city: str
    zip_code: str = Field(description="Postal code")


class Order(BaseModel):
    item: str
    quantity: int = Field(ge=1)
    ship_to: Address

    @field_validator("item")
    @classmethod
    def known_item(cls, value: str) -> str:
        if value == "unobtainium":
            raise ValueError("we do not sell that")
        return value


async def test_pydantic_parameters_give_a_schema_and_model_instances():
    received: list[Order] = []

    async def place(call_id: str, args: Order, signal, on_update) -> AgentToolResult:
        received.append(args)
        return AgentToolResult.text(f"{args.quantity} x {args.item}")

    order_tool = AgentTool(
        name="order", description="Order things.", parameters=Order, execute=place
    )
    schema = order_tool.parameters
    assert "$defs" not in schema and "$ref" not in str(schema)  # references inlined
    assert schema["properties"]["ship_to"]["properties"]["zip_code"]["description"] == "Postal code"
    args = order_tool.validate_arguments(
        {"item": "tea", "quantity": "2", "ship_to": {"city": "Oslo", "zip_code": 150}}
    )
    assert isinstance(args, Order) and args.quantity == 2 and args.ship_to.zip_code == "150"
    result = await order_tool.execute("c1", args, SIGNAL, lambda _: None)
    assert result.content[0].text == "2 x tea"
    wire = order_tool.to_tool()
    assert (wire.name, wire.description) == ("order", "Order things.")
    assert wire.parameters == schema


def test_pydantic_validation_errors_use_the_same_format():
    order_tool = AgentTool(name="order", parameters=Order)
    with pytest.raises(ToolArgumentsError) as info:
        order_tool.validate_arguments(
            {"item": "unobtainium", "quantity": 0, "ship_to": {"city": "x", "zip_code": "1"}}
        )
    text = str(info.value)
    assert text.startswith('Validation failed for tool "order":\n  - quantity: must be >= 1')
    with pytest.raises(ToolArgumentsError) as info:
        order_tool.validate_arguments(
            {"item": "unobtainium", "quantity": 1, "ship_to": {"city": "x", "zip_code": "1"}}
        )
    assert "  - item: Value error, we do not sell that" in str(info.value)


def test_recursive_models_keep_their_defs():
    class Node(BaseModel):
        name: str
        children: list[Node] = []

    schema = schema_from_model(Node)
    assert "$defs" in schema
    tool = AgentTool(name="tree", parameters=Node)
    node = tool.validate_arguments({"name": "root", "children": [{"name": "leaf", "children": []}]})
    assert node.children[0].name == "leaf"


async def test_tool_without_execute_and_subclass_override():
    with pytest.raises(NotImplementedError, match="no execute"):
        await AgentTool(name="empty").execute("c", {}, SIGNAL, lambda _: None)

    class Shout(AgentTool):
        def __init__(self) -> None:
            super().__init__(
                name="shout", parameters={"type": "object", "properties": {"t": {"type": "string"}}}
            )

        async def execute(self, tool_call_id, args, signal, on_update):
            return args["t"].upper()

    shout = Shout()
    assert await shout.execute("c", {"t": "hi"}, SIGNAL, lambda _: None) == "HI"
    assert shout.label == "shout" and AgentTool(name="x", label="Fancy X").label == "Fancy X"
    assert AgentTool(name="x").parameters == {"type": "object", "properties": {}}


# --- tools from functions -----------------------------------------------------------------------


def test_tool_decorator_derives_schema_and_descriptions_from_the_function():
    @pi_sdk.tool
    async def search(
        query: str,
        limit: int = 10,
        sort: Literal["new", "top"] = "top",
        tags: Annotated[list[str] | None, Field(description="Filter tags")] = None,
        signal: pi_sdk.AbortSignal | None = None,
    ) -> str:
        """Search the archive.

        Use it for anything older than a week.

        Args:
            query: What to look for,
                in plain words.
            limit (int): Maximum hits.

        Returns:
            The hits.
        """
        return query

    assert search.name == "search"
    assert search.description == "Search the archive.\n\nUse it for anything older than a week."
    properties = search.parameters["properties"]
    assert set(properties) == {"query", "limit", "sort", "tags"}  # signal is injected, not an arg
    assert properties["query"]["description"] == "What to look for, in plain words."
    assert properties["limit"]["description"] == "Maximum hits."
    assert properties["sort"]["enum"] == ["new", "top"]
    assert properties["tags"]["description"] == "Filter tags"
    assert search.parameters["required"] == ["query"]
    assert search.parameters["additionalProperties"] is False
    assert "title" not in search.parameters


def test_tool_decorator_with_options_and_bad_signatures():
    @pi_sdk.tool(name="lookup", description="Look it up.", label="Lookup")
    def find(key: str) -> str:
        """Ignored docstring."""
        return key

    assert (find.name, find.description, find.label) == ("lookup", "Look it up.", "Lookup")
    with pytest.raises(TypeError, match=r"\*args/\*\*kwargs"):
        pi_sdk.tool(lambda *args: None)
    with pytest.raises(TypeError, match="positional-only"):

        def positional(a: int, /) -> int:
            return a

        pi_sdk.tool(positional)


async def test_function_tool_injects_reserved_parameters_and_runs_sync_code_in_a_thread():
    seen: dict[str, Any] = {}
    updates: list[AgentToolResult] = []

    @pi_sdk.tool
    def work(n: int, tool_call_id: str, signal: pi_sdk.AbortSignal, on_update) -> dict[str, int]:
        seen.update(call_id=tool_call_id, signal=signal, thread=threading.current_thread())
        on_update(AgentToolResult.text("half"))
        return {"double": n * 2}

    args = work.validate_arguments({"n": "21"})
    result = await work.execute("call-7", args, SIGNAL, updates.append)
    assert seen["call_id"] == "call-7" and seen["signal"] is SIGNAL
    assert seen["thread"] is not threading.main_thread()
    assert updates[0].content[0].text == "half"
    assert result.content[0].text == '{"double": 42}' and result.details == {"double": 42}


async def test_extra_arguments_are_rejected_for_function_tools():
    @pi_sdk.tool
    def f(a: int) -> int:
        return a

    with pytest.raises(ToolArgumentsError, match="root: must NOT have additional properties"):
        f.validate_arguments({"a": 1, "b": 2})


@pytest.mark.parametrize(
    ("value", "texts", "details"),
    [
        ("plain", ["plain"], None),
        (None, [], None),
        (pi_sdk.TextContent(text="block"), ["block"], None),
        ([pi_sdk.TextContent(text="a"), pi_sdk.TextContent(text="b")], ["a", "b"], None),
        ({"k": [1, 2]}, ['{"k": [1, 2]}'], {"k": [1, 2]}),
        (3.5, ["3.5"], 3.5),
        ([], ["[]"], []),  # an empty list is data, not zero blocks
        ([1, 2], ["[1, 2]"], [1, 2]),
        ([pi_sdk.TextContent(text="a"), 2], None, None),  # blocks mixed with data: JSON
        ({"city": "Zürich"}, ['{"city": "Zürich"}'], {"city": "Zürich"}),  # UTF-8, not escapes
    ],
)
def test_to_tool_result_conversions(value, texts, details):
    result = to_tool_result(value)
    if texts is None:  # a block is not JSON data: written as its string form
        [block] = result.content
        assert block.text.startswith("[") and result.details is value
        return
    assert [b.text for b in result.content] == texts
    assert result.details == details


def test_to_tool_result_keeps_results_and_serializes_models():
    original = AgentToolResult.text("x", details={"a": 1}, terminate=True)
    assert to_tool_result(original) is original
    converted = to_tool_result(Address(city="Rome", zip_code="00100"))
    assert converted.content[0].text == '{"city": "Rome", "zip_code": "00100"}'


# A tool's name may be read at run time (an MCP server's list, a config file): equal to the
# model's call, not the same object.
@pytest.mark.parametrize("make", [str, built], ids=["literal", "built"])
def test_validate_tool_call_finds_the_tool_by_exact_name(make: Any):
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    tools = [
        AgentTool(name="Other", parameters={}),
        AgentTool(name=make("Echo"), parameters=schema),
    ]
    assert validate_tool_call(tools, call("Echo", n="3")) == {"n": 3}
    with pytest.raises(LookupError, match='Tool "echo" not found'):
        validate_tool_call(tools, call("echo"))


def _nested(levels: int, leaf: Any) -> tuple[dict[str, Any], Any]:
    """A schema ``levels`` objects deep ending in ``leaf``, and arguments as deep holding "7"."""
    schema, arguments = leaf, "7"
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
        arguments = {"a": arguments}
    return schema, arguments


def _leaf(arguments: Any) -> Any:
    while isinstance(arguments, dict):
        arguments = arguments["a"]
    return arguments


@pytest.mark.parametrize(("levels", "coerced"), [(63, 7), (64, 7), (65, "7")])
def test_coercion_follows_64_schema_levels_and_stops_below(levels: int, coerced: Any):
    """The depth guard (self-referencing schemas end): 64 nested levels are coerced, not 65."""
    schema, arguments = _nested(levels, {"type": "integer"})
    assert _leaf(coerce_arguments(arguments, schema)) == coerced


def test_a_self_referencing_schema_still_coerces_and_ends():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "next": {"$ref": "#"}}}
    arguments = {"n": "1", "next": {"n": "2", "next": {"n": "3"}}}
    assert coerce_arguments(arguments, schema) == {"n": 1, "next": {"n": 2, "next": {"n": 3}}}
    looping = {"$ref": "#", "properties": {"n": {"type": "integer"}}}  # refers to itself at once
    assert coerce_arguments({"n": "1"}, looping) == {"n": 1}
