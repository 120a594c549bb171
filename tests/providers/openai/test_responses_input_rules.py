"""Responses ``input`` items, rule by rule (``pi_sdk_openai.responses._input``).

Tables over every history kind -> its input item: user parts, assistant blocks (text with and
without replayable ids, skipped blocks, server-tool items, calls), tool results (text, empty,
media, grammar tools) and the ``configuration_update`` items of pi-ai 1.6.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.messages import assistant
from pi_sdk_openai.responses._input import convert_input
from test_openai_responses import model as RESPONSES_MODEL

import pi_sdk
from pi_sdk import Context, TextContent, UserMessage

IMAGE = pi_sdk.ImageContent(data="aGVsbG8=", mime_type="image/png")
IMAGE_PART = {
    "type": "input_image",
    "detail": "auto",
    "image_url": "data:image/png;base64,aGVsbG8=",
}
REASONING = {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "gAAA"}
ANNOTATION = {"type": "url_citation", "url": "https://e.x", "start_index": 0, "end_index": 2}

model = RESPONSES_MODEL  # (gpt-5.2, reasoning, text and image input)


def items(*messages: Any, m: pi_sdk.Model | None = None, **options: Any) -> list[dict[str, Any]]:
    return convert_input(m or model(), Context(messages=list(messages)), **options)


def cited(text: str, signature: str | None) -> TextContent:
    citation = pi_sdk.Citation(type="url_citation", url="https://e.x", raw=ANNOTATION)
    return TextContent(text=text, text_signature=signature, citations=[citation])


# --- user ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "sent"),
    [
        ("hi", [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]),
        (
            [TextContent(text="a"), IMAGE, TextContent(text="b")],
            [
                {
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "a"},
                        IMAGE_PART,
                        {"type": "input_text", "text": "b"},
                    ],
                }
            ],
        ),
        ([], []),  # no parts: no item at all
    ],
)
def test_user_messages(content: Any, sent: list[dict[str, Any]]) -> None:
    assert items(UserMessage(content=content)) == sent


# --- assistant ----------------------------------------------------------------------------------


def test_empty_text_and_generated_images_send_nothing() -> None:
    m = model()
    turn = assistant(m, TextContent(text=""), IMAGE, TextContent(text="kept"), stop="stop")
    assert items(turn, m=m) == [{"type": "message", "role": "assistant", "content": "kept"}]


def test_text_with_an_id_alongside_replayed_reasoning_is_an_output_message() -> None:
    m = model()
    thinking = pi_sdk.ThinkingContent(thinking="t", thinking_signature=json.dumps(REASONING))
    turn = assistant(m, thinking, TextContent(text="hi", text_signature="msg_1"), stop="stop")
    assert items(turn, m=m) == [
        REASONING,
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "hi", "annotations": []}],
            "status": "completed",
            "id": "msg_1",  # a legacy bare id; no phase key without a phase
        },
    ]


@pytest.mark.parametrize(
    ("blocks", "output_message"),
    [
        # no reasoning in the turn, annotated text with an id: the output message it came as
        ([cited("ok", '{"v":1,"id":"msg_2","phase":"final_answer"}')], True),
        # no reasoning, an id but no annotations: plain text
        ([TextContent(text="ok", text_signature="msg_2")], False),
        # annotated but without an id: plain text
        ([cited("ok", None)], False),
        # reasoning that cannot be replayed (no encrypted item): ids stay home
        ([pi_sdk.ThinkingContent(thinking="t"), cited("ok", "msg_2")], False),
    ],
)
def test_when_text_goes_back_as_its_output_message(blocks: list[Any], output_message: bool) -> None:
    m = model()
    sent = [i for i in items(assistant(m, *blocks, stop="stop"), m=m) if i.get("type") == "message"]
    if output_message:
        assert sent == [
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "ok", "annotations": [ANNOTATION]}],
                "status": "completed",
                "id": "msg_2",
                "phase": "final_answer",
            }
        ]
    else:
        assert sent == [{"type": "message", "role": "assistant", "content": "ok"}]


def test_server_tool_items_go_back_as_they_came_and_blocks_without_raw_are_dropped() -> None:
    m = model()
    raw = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
    turn = assistant(
        m,
        pi_sdk.ServerToolCall(id="ws_1", name="web_search", raw=raw),
        pi_sdk.ServerToolCall(id="ws_2", name="web_search"),
        pi_sdk.ServerToolResult(tool_call_id="ws_2", kind="web_search_call"),
        TextContent(text="done"),
        stop="stop",
    )
    assert items(turn, m=m) == [raw, {"type": "message", "role": "assistant", "content": "done"}]


@pytest.mark.parametrize(
    ("call_id", "grammar", "replayed", "sent"),
    [
        (
            "call_1|fc_1",
            None,
            True,
            {"type": "function_call", "call_id": "call_1", "name": "t", "id": "fc_1"},
        ),
        # without replayed reasoning the item id stays home
        ("call_1|fc_1", None, False, {"type": "function_call", "call_id": "call_1", "name": "t"}),
        # an id whose prefix does not fit the item type stays home
        ("call_1|ctc_1", None, True, {"type": "function_call", "call_id": "call_1", "name": "t"}),
        (
            "call_1|ctc_1",
            {"t": "code"},
            True,
            {"type": "custom_tool_call", "call_id": "call_1", "name": "t", "id": "ctc_1"},
        ),
        (
            "call_1|fc_1",
            {"t": "code"},
            True,
            {"type": "custom_tool_call", "call_id": "call_1", "name": "t"},
        ),
    ],
)
def test_call_items(
    call_id: str, grammar: dict[str, str] | None, replayed: bool, sent: dict[str, Any]
) -> None:
    m = model()
    signature = json.dumps(REASONING) if replayed else None
    thinking = pi_sdk.ThinkingContent(thinking="t", thinking_signature=signature)
    call = pi_sdk.ToolCall(id=call_id, name="t", arguments={"code": "é", "n": [1, 2]})
    result = pi_sdk.ToolResultMessage(tool_call_id=call_id, tool_name="t", content=[])
    out = items(assistant(m, thinking, call), result, m=m, grammar=grammar)
    entry = next(i for i in out if i["type"].endswith("_call"))
    if grammar:
        assert entry == sent | {"input": "é"}
    else:  # compact JSON, non-ASCII kept as it is
        assert entry == sent | {"arguments": '{"code":"é","n":[1,2]}'}


# --- tool results -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "output"),
    [
        ([TextContent(text="42")], "42"),
        ([], "(no output)"),
        ([TextContent(text="")], "(no output)"),
        ([TextContent(text="a"), IMAGE], [{"type": "input_text", "text": "a"}, IMAGE_PART]),
        ([IMAGE], [IMAGE_PART]),  # no text: no empty input_text part
    ],
)
def test_tool_result_outputs(content: list[Any], output: Any) -> None:
    m = model()
    call = pi_sdk.ToolCall(id="call_1|fc_1", name="t")
    result = pi_sdk.ToolResultMessage(tool_call_id="call_1|fc_1", tool_name="t", content=content)
    out = items(assistant(m, call), result, m=m)
    assert out[-1] == {"type": "function_call_output", "call_id": "call_1", "output": output}


def test_a_grammar_tools_result_is_a_custom_tool_call_output() -> None:
    m = model()
    call = pi_sdk.ToolCall(id="call_1", name="t", arguments={"code": "x"})
    result = pi_sdk.ToolResultMessage(
        tool_call_id="call_1", tool_name="t", content=[TextContent(text="ok")]
    )
    out = items(assistant(m, call), result, m=m, grammar={"t": "code"})
    assert out[-1] == {"type": "custom_tool_call_output", "call_id": "call_1", "output": "ok"}


# --- configuration_update -----------------------------------------------------------------------


def update(effort: str) -> dict[str, Any]:
    return {"type": "configuration_update", "reasoning": {"effort": effort}}


def test_configuration_updates_come_before_same_model_replies_and_last() -> None:
    m = model()
    other = model(id="gpt-5-mini", name="GPT-5 mini")
    mine = assistant(m, TextContent(text="a"), stop="stop")
    mine.provider_thinking_level = "low"
    unlevelled = assistant(m, TextContent(text="b"), stop="stop")
    foreign = assistant(other, TextContent(text="c"), stop="stop")
    foreign.provider_thinking_level = "medium"
    empty = assistant(m, TextContent(text=""), stop="stop")
    empty.provider_thinking_level = "minimal"  # sends no items: no update either
    history = [UserMessage(content="q"), mine, unlevelled, foreign, empty]
    out = items(*history, m=m, configuration_effort="high")
    assert [i.get("type", i.get("role")) for i in out] == [
        "user",
        "configuration_update",
        "message",
        "message",
        "message",
        "configuration_update",
    ]
    assert out[1] == update("low") and out[-1] == update("high")
    assert [i["content"] for i in out if i.get("type") == "message"] == ["a", "b", "c"]
    assert update("low") not in items(*history, m=m)  # no effort asked: no updates at all


# --- system messages in place, additional_tools ---------------------------------------------------


def declared(name: str) -> pi_sdk.Tool:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    return pi_sdk.Tool(name=name, description=f"tool {name}", parameters=schema)


def function(name: str) -> dict[str, Any]:
    """A plain function tool: the default ``convert_tools`` sends no ``strict`` field."""
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    return {"type": "function", "name": name, "description": f"tool {name}", "parameters": schema}


@pytest.mark.parametrize(("reasoning", "role"), [(False, "system"), (True, "developer")])
def test_each_tools_update_after_the_first_names_the_tools_still_unavailable(
    reasoning: bool, role: str
) -> None:
    from pi_sdk_openai.responses._system import INCREMENTAL_TOOLS_NOTICE as NOTICE

    flags = {"supportsMidConvoSystemMessages": True, "supportsAdditionalTools": True}
    m = model(compat=flags, reasoning=reasoning)
    context = Context(
        system_prompt="P",
        tools=[declared("a"), declared("b")],
        messages=[
            UserMessage(content="1"),
            pi_sdk.SystemMessage(tools_removed=[{"name": "a"}, {"name": "b"}]),
            pi_sdk.SystemMessage(tools_added=[declared("c")]),
            UserMessage(content="2"),
            pi_sdk.SystemMessage(tools_added=[declared("a")]),
            pi_sdk.SystemMessage(tools_added=[declared("d")]),
        ],
    )

    def tools(*names: str) -> dict[str, Any]:
        listed = [function(n) for n in names]
        return {"type": "additional_tools", "role": "developer", "tools": listed}

    def user(text: str) -> dict[str, Any]:
        return {"role": "user", "content": [{"type": "input_text", "text": text}]}

    removal = "The following tools are no longer available. Do not call them:\n- a\n- b"
    assert convert_input(m, context) == [
        tools("a", "b"),
        {"role": role, "content": "P"},
        user("1"),
        {"role": role, "content": removal},
        {"role": role, "content": f"{NOTICE}\nStill unavailable: a, b."},
        tools("c"),
        user("2"),
        {"role": role, "content": f"{NOTICE}\nStill unavailable: b."},
        tools("a"),
        {"role": role, "content": f"{NOTICE}\nStill unavailable: b."},
        tools("d"),
    ]
