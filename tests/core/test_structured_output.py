"""``StreamOptions(output=...)``: schemas from models, types and dicts; parsing as data.

Offline on the scripted provider (a real provider, the same event stream); the per-API
request and reply tests are in ``tests/providers/test_structured_output_wire.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

import pi_sdk
from pi_sdk import Context, StreamOptions, UserMessage
from pi_sdk.options import Output, StructuredOutput, parse_output
from pi_sdk.testing import ScriptedProvider, ScriptedReply


class City(BaseModel):
    name: str
    population: int


CTX = Context(messages=[UserMessage(content="Largest city?")])
SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "city",
    "properties": {"name": {"type": "string"}, "population": {"type": "integer"}},
    "required": ["name", "population"],
}


async def answer(reply: Any, output: Any) -> pi_sdk.AssistantMessage:
    provider = ScriptedProvider([reply])
    return await pi_sdk.complete(provider.model, CTX, StreamOptions(output=output))


async def test_a_model_class_gives_an_instance() -> None:
    message = await answer('{"name": "Tokyo", "population": 37400068}', City)
    assert message.output == StructuredOutput(
        value=City(name="Tokyo", population=37400068),
        raw='{"name": "Tokyo", "population": 37400068}',
    )
    assert message.output.ok


async def test_a_json_schema_dict_gives_the_json_value() -> None:
    message = await answer('{"name": "Tokyo", "population": 1}', SCHEMA)
    assert message.output is not None
    assert message.output.value == {"name": "Tokyo", "population": 1}


async def test_a_json_schema_failure_names_the_paths() -> None:
    message = await answer('{"name": 5}', SCHEMA)
    output = message.output
    assert output is not None and output.value is None
    assert output.error == (
        "does not match the schema: (root): 'population' is a required property;"
        " /name: 5 is not of type 'string'"
    )


async def test_a_plain_type_works_too() -> None:
    message = await answer("[1, 2, 3]", list[int])
    assert message.output is not None and message.output.value == [1, 2, 3]


async def test_not_json_is_data_with_the_raw_text() -> None:
    message = await answer("Tokyo, I think.", City)
    output = message.output
    assert output is not None and not output.ok
    assert output.raw == "Tokyo, I think."
    assert output.error is not None and output.error.startswith("not valid JSON:")
    assert "received: Tokyo, I think." in output.error
    assert message.stop_reason == "stop"  # the call itself succeeded


@pytest.mark.parametrize("spec", [City, SCHEMA], ids=["model", "schema"])
async def test_not_json_is_said_once(spec: object) -> None:
    message = await answer("Tokyo, I think.", spec)
    assert message.output is not None and message.output.error is not None
    assert message.output.error.lower().count("json") == 1, message.output.error


async def test_a_code_fence_around_the_json_is_accepted() -> None:
    message = await answer('```json\n{"name": "Lagos", "population": 2}\n```', City)
    assert message.output is not None and message.output.value == City(name="Lagos", population=2)


async def test_a_reply_cut_at_max_tokens_says_so() -> None:
    message = await answer(ScriptedReply.text('{"name": "Tok', stop_reason="length"), City)
    output = message.output
    assert output is not None and output.error is not None
    assert output.error.startswith("the reply stopped at max tokens")


async def test_a_failed_call_has_an_output_that_says_so() -> None:
    message = await answer(ScriptedReply(error="overloaded"), City)
    assert message.stop_reason == "error"
    assert message.output is not None and message.output.error is not None
    assert "the reply ended with error" in message.output.error


async def test_a_forced_answer_tool_call_becomes_text_and_stop() -> None:
    reply = ScriptedReply.tool_call("final_answer", {"name": "Delhi", "population": 3})
    message = await answer(reply, City)
    assert message.stop_reason == "stop"
    assert message.tool_calls == []
    assert message.text == '{"name": "Delhi", "population": 3}'
    assert message.output is not None and message.output.value == City(name="Delhi", population=3)


async def test_without_output_nothing_is_parsed() -> None:
    provider = ScriptedProvider(['{"name": "x", "population": 1}'])
    message = await pi_sdk.complete(provider.model, CTX)
    assert message.output is None


def test_parse_output_reads_a_stored_message_again() -> None:
    message = pi_sdk.AssistantMessage(
        api="x",
        provider="p",
        model="m",
        content=[pi_sdk.TextContent(text='{"name": "a", "population": 1}')],
    )
    restored = pi_sdk.AssistantMessage.model_validate_json(message.model_dump_json())
    assert restored.output is None  # not serialized
    assert parse_output(restored, City).value == City(name="a", population=1)


def test_output_is_not_in_the_message_json() -> None:
    message = pi_sdk.AssistantMessage(api="x", provider="p", model="m")
    message.set_output(StructuredOutput(value=1, raw="1"))
    assert "output" not in message.model_dump(by_alias=True)
    assert message.model_copy().output == StructuredOutput(value=1, raw="1")


def test_the_strict_schema_closes_every_object() -> None:
    class Inner(BaseModel):
        x: int

    class Outer(BaseModel):
        inner: Inner
        items: list[Inner]

    spec = Output(Outer)
    assert spec.strict_schema is not None
    assert spec.strict_schema["additionalProperties"] is False
    assert spec.strict_schema["$defs"]["Inner"]["additionalProperties"] is False
    assert "additionalProperties" not in spec.schema  # the given schema is left alone


def test_an_open_object_is_not_strict() -> None:
    assert Output({**SCHEMA, "additionalProperties": True}).strict_schema is None
    assert Output({**SCHEMA, "required": ["name"]}).strict_schema is None


def test_names_are_made_safe_for_every_vendor() -> None:
    assert Output(SCHEMA).name == "city"
    assert Output(SCHEMA, name="my schema!").name == "my_schema_"
    assert Output({"type": "object"}).name == "output"
    assert Output(City).name == "City"


def test_a_bad_output_fails_at_construction() -> None:
    with pytest.raises(TypeError, match="output must be a pydantic model"):
        StreamOptions(output=object())
    with pytest.raises(TypeError, match="pass the type or schema itself"):
        Output(Output(City))
    with pytest.raises(ValueError, match="'auto', 'native' or 'tool'; got 'forced'"):
        Output(City, mode="forced")  # type: ignore[arg-type]


def test_options_keep_one_output_object() -> None:
    options = StreamOptions(output=City)
    assert isinstance(options.output, Output)
    assert options.resolved_output() is options.output
    assert StreamOptions().resolved_output() is None


def test_the_answer_is_read_from_text_blocks_and_the_answer_tool_only() -> None:
    # Every other block kind an assistant message can hold, before and between the answer's
    # parts: thinking, images, server tool calls and results, other tool calls.
    message = pi_sdk.AssistantMessage(
        api="x",
        provider="p",
        model="m",
        content=[
            pi_sdk.ImageContent(data="aGk=", mime_type="image/png"),
            pi_sdk.ServerToolCall(id="s1", name="web_search", arguments={"q": "a"}),
            pi_sdk.ServerToolResult(tool_call_id="s1", kind="web_search_tool_result", content=[]),
            pi_sdk.TextContent(text='{"name": "a", '),
            pi_sdk.ThinkingContent(thinking="between"),
            pi_sdk.ToolCall(id="c1", name="lookup", arguments={"population": 9}),
            pi_sdk.TextContent(text='"population": 1}'),
        ],
    )
    result = parse_output(message, City)
    assert (result.raw, result.value, result.error) == (
        '{"name": "a", "population": 1}',
        City(name="a", population=1),
        None,
    )
