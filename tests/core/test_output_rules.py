"""Typed answers (``pi_sdk/_wire/output.py``) rule by rule: names, descriptions, strict schemas,
the answer text a message gives, and how each failure is worded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from _support.messages import reply
from pydantic import BaseModel

from pi_sdk import AssistantMessage, Model, TextContent, ToolCall
from pi_sdk.options import Output, StructuredOutput, parse_output


class Point(BaseModel):
    """A point
    on   the plane."""

    x: int
    y: int


@dataclass
class Plain:
    """Not a pydantic model: its docstring is not sent."""

    x: int


MODEL = Model(id="m", api="x", provider="p")
OBJECT: dict[str, Any] = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
    "required": ["a", "b"],
}


def _message(*content: Any, stop: str = "stop", error: str | None = None) -> AssistantMessage:
    return reply(MODEL, *content, stop_reason=stop, error_message=error)


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        (Output(OBJECT), "output"),  # no title, no name
        (Output({**OBJECT, "title": "Thing"}), "Thing"),
        (Output({**OBJECT, "title": ""}), "output"),
        (Output(OBJECT, name=""), "output"),  # an empty name is no name
        (Output(OBJECT, name="a.b c/d"), "a_b_c_d"),
        (Output(OBJECT, name="x" * 70), "x" * 64),  # the vendors' limit
        (Output(list[int]), "list"),
        (Output(Point, name="pt"), "pt"),
    ],
)
def test_the_schema_name(spec: Output, name: str) -> None:
    assert spec.name == name


@pytest.mark.parametrize(
    ("spec", "description"),
    [
        (Output(Point), "A point on the plane."),  # a model's docstring, whitespace folded
        (Output(Point, description="given"), "given"),
        (Output(Plain), None),  # only pydantic models
        (Output(OBJECT), None),
    ],
)
def test_the_description_comes_from_a_models_docstring(spec: Output, description: str | None):
    assert spec.description == description


def test_of_keeps_an_output_and_wraps_anything_else() -> None:
    spec = Output(Point)
    assert Output.of(spec) is spec
    assert Output.of(Point) == spec and Output.of(Point) is not spec


@pytest.mark.parametrize(
    ("schema", "strict"),
    [
        (OBJECT, True),
        ({**OBJECT, "additionalProperties": False}, True),
        ({**OBJECT, "additionalProperties": True}, False),
        ({**OBJECT, "additionalProperties": {"type": "string"}}, False),
        ({**OBJECT, "required": ["a"]}, False),  # an optional property
        ({"properties": {"a": {}}, "required": ["a"]}, True),  # "properties" makes an object
        (
            {**OBJECT, "properties": {**OBJECT["properties"], "c": {"type": "object"}}},
            False,  # required lists a and b only
        ),
        (
            {"type": "object", "properties": {"n": {"type": "object"}}, "required": ["n"]},
            True,  # a nested object with no properties: closed, none required
        ),
        (
            {"type": "array", "items": [{"type": "object", "properties": {"q": {}}}]},
            False,  # objects inside lists are checked too
        ),
        (
            {"$defs": {"D": {"type": "object", "properties": {"q": {}}}}, "type": "string"},
            False,  # and definitions
        ),
        (
            {"type": "string", "default": {"type": "object", "properties": {"q": {}}}},
            True,  # a default value is data, not a schema
        ),
    ],
)
def test_a_schema_is_strict_only_when_every_object_is_closed_and_fully_required(
    schema: dict[str, Any], strict: bool
) -> None:
    spec = Output(schema)
    assert (spec.strict_schema is not None) is strict
    assert spec.wire_schema is (spec.strict_schema if strict else spec.schema)
    assert spec.schema == schema  # the given schema is never changed


def test_the_strict_schema_closes_nested_objects_and_definitions() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "object", "properties": {"k": {}}, "required": ["k"]},
            "bare": {"type": "object"},  # an object by its type alone
            "untyped": {"properties": {"k": {}}, "required": ["k"]},  # by its properties alone
            "many": {"type": "array", "items": {"type": "object"}},  # a schema under a keyword
        },
        "required": ["n", "bare", "untyped", "many"],
        "$defs": {"D": {"type": "object", "properties": {}, "required": []}},
        "default": {"type": "object"},
    }
    strict = Output(schema).strict_schema
    assert strict is not None
    assert strict["additionalProperties"] is False
    for name in ("n", "bare", "untyped"):
        assert strict["properties"][name]["additionalProperties"] is False, name
    assert strict["properties"]["many"]["items"]["additionalProperties"] is False
    assert strict["$defs"]["D"]["additionalProperties"] is False
    assert strict["default"] == {"type": "object"}  # data left alone


@pytest.mark.parametrize(
    ("content", "raw"),
    [
        ([TextContent(text='{"x": 1,'), TextContent(text=' "y": 2}')], '{"x": 1, "y": 2}'),
        ([ToolCall(id="c", name="final_answer", arguments={"x": 1, "y": "é"})], None),
        ([ToolCall(id="c", name="other", arguments={"x": 1}), TextContent(text="{}")], "{}"),
    ],
)
def test_the_answer_is_the_text_or_the_forced_tools_arguments(content: list[Any], raw: Any):
    result = parse_output(_message(*content), {"type": "object"})
    expected = raw if raw is not None else '{"x": 1, "y": "é"}'  # not ASCII-escaped
    assert (result.raw, result.error) == (expected, None)
    assert result.value == __import__("json").loads(expected)


@pytest.mark.parametrize(
    ("message", "error"),
    [
        (_message(stop="error", error="overloaded"), "the reply ended with error: overloaded"),
        (_message(stop="aborted"), "the reply ended with aborted: aborted"),
        (_message(TextContent(text="  \n")), "the reply has no answer text"),
        (_message(), "the reply has no answer text"),
    ],
)
def test_a_reply_with_no_answer_says_why(message: AssistantMessage, error: str) -> None:
    result = parse_output(message, Point)
    assert (result.value, result.error, result.ok) == (None, error, False)


def test_a_complete_answer_at_max_tokens_is_still_an_answer() -> None:
    result = parse_output(_message(TextContent(text='{"x": 1, "y": 2}'), stop="length"), Point)
    assert result.ok and result.value == Point(x=1, y=2)
    cut = parse_output(_message(TextContent(text='{"x": 1}'), stop="length"), Point)
    assert cut.error is not None and cut.error.startswith(
        "the reply stopped at max tokens before the answer was complete (does not match"
    )


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"x": 1, "y": 2}\n```',
        '```\n{"x": 1, "y": 2}\n```',
        '  ```JSON {"x": 1, "y": 2}```  ',
        '{"x": 1, "y": 2}',
    ],
)
def test_a_code_fence_is_removed_and_the_raw_text_kept(text: str) -> None:
    for spec in (Point, Point.model_json_schema()):
        result = Output.of(spec).validate_text(text)
        assert result.error is None and result.raw == text
        assert result.value in (Point(x=1, y=2), {"x": 1, "y": 2})


@pytest.mark.parametrize("spec", [Point, Point.model_json_schema()], ids=["model", "schema"])
def test_schema_failures_name_every_path_in_order(spec: Any) -> None:
    result = Output.of(spec).validate_text('{"y": "no"}')  # x missing, y not an integer
    assert result.error is not None and result.error.startswith("does not match the schema: ")
    problems = result.error.removeprefix("does not match the schema: ").split("; ")
    assert len(problems) == 2, problems
    # pydantic names the missing field's path; jsonschema the object holding it, first
    expected = ["/x", "/y"] if spec is Point else ["(root)", "/y"]
    assert [p.split(":")[0] for p in problems] == expected
    nested = Output.of(list[Point] if spec is Point else {"type": "array", "items": spec})
    error = nested.validate_text('[{"x": 1, "y": 2}, {"x": "a", "y": 2}]').error
    assert error is not None and "/1/x: " in error


@pytest.mark.parametrize("spec", [Point, OBJECT], ids=["model", "schema"])
@pytest.mark.parametrize(("length", "shown"), [(500, 500), (501, 500)])
def test_a_long_reply_that_is_not_json_is_shown_bounded(spec: Any, length: int, shown: int):
    text = "x" * length
    error = Output.of(spec).validate_text(text).error
    assert error is not None and error.startswith("not valid JSON: ")
    received = error.split("; received: ", 1)[1]
    if length == shown:
        assert received == text
    else:
        assert received == "x" * shown + f"... ({length} characters)"


def test_structured_output_ok_is_no_error() -> None:
    assert StructuredOutput(value=None, raw="null").ok
    assert not StructuredOutput(raw="x", error="bad").ok


@pytest.mark.parametrize(
    ("others", "stop", "settled"),
    [
        ([], "toolUse", "stop"),  # only the forced call: an answer, not a tool to run
        ([ToolCall(id="t", name="search", arguments={})], "toolUse", "toolUse"),
        ([], "length", "length"),  # only "toolUse" becomes "stop"
    ],
)
def test_settle_output_turns_only_the_forced_call_into_text(
    others: list[Any], stop: str, settled: str
) -> None:
    from pi_sdk._stream.assistant_message import settle_output

    forced = ToolCall(id="f", name="final_answer", arguments={"x": 1, "y": 2})
    message = _message(forced, *others, stop=stop)
    settle_output(message, Output(Point))
    assert message.content[0] == TextContent(text='{"x": 1, "y": 2}')
    assert message.content[1:] == others
    assert message.stop_reason == settled
    assert message.output is not None and message.output.value == Point(x=1, y=2)


def test_an_output_spec_is_compared_and_hashed_by_what_was_asked_only() -> None:
    """The schema, strict schema and validator are worked out, never given, shown or compared."""
    first, second = Output(Point, name="pt"), Output(Point, name="pt")
    assert first == second and hash(first) == hash(second)  # each made its own validator
    assert {first: "cached"}[second] == "cached"
    assert first != Output(Point, name="other") and first != Output(Point, mode="tool")
    described = "description='A point on the plane.'"
    assert repr(first) == f"Output(type={Point!r}, name='pt', {described}, mode='auto')"
    for worked_out in ("schema", "strict_schema", "_adapter"):
        with pytest.raises(TypeError, match=worked_out):
            Output(Point, **{worked_out: None})


def test_settle_output_keeps_non_ascii_answers_as_they_are() -> None:
    from pi_sdk._stream.assistant_message import settle_output

    class Place(BaseModel):
        name: str

    forced = ToolCall(id="f", name="final_answer", arguments={"name": "Zürich 東京"})
    message = _message(forced, stop="toolUse")
    settle_output(message, Output(Place))
    assert message.content == [TextContent(text='{"name": "Zürich 東京"}')]
    assert message.output is not None and message.output.value == Place(name="Zürich 東京")
