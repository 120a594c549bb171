"""System messages and the transcript form of a context (issue 27, item 1).

The replay rules are pi-ai 1.6's (``utils/transcript.ts``): checked on hand-made cases here, and,
where Node 22 and pi 1.6 are installed, against pi's own functions on the same contexts
(``tests/node/pi16_transcript.mjs``).
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.node22 import needs_pi16, run_mjs
from pydantic import TypeAdapter

from pi_sdk import (
    Context,
    SystemMessage,
    collapse_system_messages,
    current_system_prompt,
    current_tools,
    normalize_context,
)
from pi_sdk._wire.transcript import (
    current_system_message,
    resolve_transcript,
    resolve_transcript_tools,
    tool_state_changes,
)
from pi_sdk.provider import transform_messages
from pi_sdk.types import (
    AssistantMessage,
    Message,
    Model,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

MESSAGES: TypeAdapter[list[Message]] = TypeAdapter(list[Message])


def tool(name: str, description: str = "") -> dict[str, Any]:
    return {"name": name, "description": description or name, "parameters": {"type": "object"}}


def user(text: str, ts: int = 1) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": ts}


CASES: list[dict[str, Any]] = [
    {"context": {"messages": [user("hi")]}, "support": "none"},
    {"context": {"systemPrompt": "Be brief.", "messages": [user("hi")]}, "support": "none"},
    {"context": {"tools": [tool("a")], "messages": [user("hi")]}, "support": "additions"},
    {
        "context": {
            "systemPrompt": "Base.",
            "tools": [tool("a"), tool("b")],
            "messages": [
                user("one"),
                {
                    "role": "system",
                    "content": "Also be kind.",
                    "sections": {"rules": "<rules>none</rules>"},
                    "toolsAdded": [tool("c")],
                    "timestamp": 5,
                },
                user("two", 6),
                {
                    "role": "system",
                    "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}],
                    "sections": {"rules": None, "style": "<style>terse</style>"},
                    "toolsRemoved": [{"name": "a"}],
                    "toolsAdded": [tool("b", "new b")],
                    "timestamp": 7,
                },
                user("three", 8),
                {"role": "system", "content": "", "toolsAdded": [tool("d")], "timestamp": 9},
            ],
        },
        "support": "additions",
    },
    {
        "context": {
            "messages": [
                {"role": "system", "content": "Lead.", "timestamp": 3},
                user("one"),
                {"role": "system", "content": "Later.", "toolsAdded": [tool("z")], "timestamp": 4},
            ]
        },
        "support": "changes",
    },
]


def ours(case: dict[str, Any]) -> dict[str, Any]:
    context = Context.model_validate(case["context"])
    transcript = normalize_context(context)
    request_tools, folded = resolve_transcript_tools(transcript.messages, case["support"])
    return {
        "normalized": MESSAGES.dump_python(transcript.messages, mode="json"),
        "prompt": current_system_prompt(transcript.messages),
        "tools": [t.model_dump(mode="json") for t in current_tools(transcript.messages)],
        "collapsed": MESSAGES.dump_python(
            collapse_system_messages(transcript).messages, mode="json"
        ),
        "resolved": {
            "requestTools": [t.model_dump(mode="json") for t in request_tools],
            "foldedSystemMessages": folded,
        },
    }


def test_a_system_message_round_trips_with_pi_s_names_and_null_sections() -> None:
    data = {
        "role": "system",
        "content": "hi",
        "sections": {"a": "x", "gone": None},
        "toolsAdded": [tool("t")],
        "toolsRemoved": [{"name": "u"}],
        "timestamp": 5,
    }
    message = TypeAdapter(Message).validate_python(data)
    assert isinstance(message, SystemMessage)
    assert message.tools_removed is not None and message.tools_removed[0].name == "u"
    assert message.model_dump(mode="json") == data
    assert SystemMessage(content="x", timestamp=1).model_dump() == {
        "role": "system",
        "content": "x",
        "timestamp": 1,
    }


def test_prompt_and_update_text_follow_pi() -> None:
    message = SystemMessage(content="Base.", sections={"a": "A", "b": None}, timestamp=0)
    assert message.prompt_text == "Base.\n\nA"
    assert message.update_text == (
        'Base.\n\nUpdated system prompt section "a":\n\nA\n\nRemoved system prompt section "b".'
    )
    assert SystemMessage(content=[TextContent(text="x"), TextContent(text="y")]).text == "x\ny"


def test_normalize_folds_the_shorthand_and_leaves_a_transcript_alone() -> None:
    plain = Context(messages=[UserMessage(content="hi")])
    assert normalize_context(plain) is plain
    shorthand = Context(system_prompt="Be brief.", tools=[Tool(name="a")], messages=plain.messages)
    folded = normalize_context(shorthand)
    assert folded.system_prompt is None and folded.tools is None
    head = folded.messages[0]
    assert isinstance(head, SystemMessage)
    assert (head.content, head.timestamp, head.tools_added) == ("Be brief.", 0, [Tool(name="a")])
    assert folded.messages[1] is plain.messages[0]
    assert shorthand.system_prompt == "Be brief."  # the input is unchanged
    assert normalize_context(Context(system_prompt="", tools=[])).messages == []


def test_replay_gives_the_current_prompt_and_tools() -> None:
    got = ours(CASES[3])
    assert got["prompt"] == "Base.\n\nAlso be kind.\n\nx\ny\n\n<style>terse</style>"
    assert [t["name"] for t in got["tools"]] == ["b", "c", "d"]
    assert got["tools"][0]["description"] == "new b"
    # "additions": the tool state after the last removal/redefinition is the request list.
    assert [t["name"] for t in got["resolved"]["requestTools"]] == ["b", "c"]
    assert got["resolved"]["foldedSystemMessages"] == 3
    collapsed = got["collapsed"]
    assert [m["role"] for m in collapsed] == ["system", "user", "user", "user"]
    assert collapsed[0]["sections"] == {"style": "<style>terse</style>"}
    assert collapsed[0]["timestamp"] == 0
    # A context (its shorthand included) is accepted where a message list is.
    context = Context.model_validate(CASES[3]["context"])
    assert current_system_prompt(context) == got["prompt"]
    assert [t.name for t in current_tools(context)] == ["b", "c", "d"]


def test_collapse_and_resolve() -> None:
    context = Context.model_validate(CASES[4]["context"])
    assert resolve_transcript(context, True) is context
    collapsed = resolve_transcript(context, False)
    assert [m.role for m in collapsed.messages] == ["system", "user"]
    head = collapsed.messages[0]
    assert isinstance(head, SystemMessage)
    assert (head.content, head.timestamp) == ("Lead.\n\nLater.", 3)
    assert current_system_message([]) is None
    once = collapse_system_messages(Context(system_prompt="p", messages=[]))
    assert collapse_system_messages(once) is once


def test_tool_state_changes_treat_a_changed_definition_as_removal_and_addition() -> None:
    added, removed = tool_state_changes(
        [Tool(name="a"), Tool(name="b", description="old")],
        [Tool(name="b", description="new"), Tool(name="c")],
    )
    assert [t.name for t in added] == ["b", "c"]
    assert [r.name for r in removed] == ["a", "b"]
    assert tool_state_changes([Tool(name="a")], [Tool(name="a")]) == ([], [])


def test_transform_keeps_system_messages_in_order_after_tool_results() -> None:
    model = Model(id="m", name="m", api="openai-completions", provider="p", base_url="")
    call = ToolCall(id="c1", name="t", arguments={})
    turn = AssistantMessage(
        content=[call], api="openai-completions", provider="p", model="m", stop_reason="toolUse"
    )
    note = SystemMessage(content="tools changed")
    result = ToolResultMessage(tool_call_id="c1", tool_name="t", content=[])
    out = transform_messages(
        [SystemMessage(content="lead"), UserMessage(content="q"), turn, note, result], model
    )
    assert [m.role for m in out] == ["system", "user", "assistant", "toolResult", "system"]
    assert out[-1] is note
    # A system message after calls whose results never came lands after the synthetic ones.
    out = transform_messages([turn, note, UserMessage(content="again")], model)
    assert [m.role for m in out] == ["assistant", "toolResult", "system", "user"]
    assert [m.role for m in transform_messages([turn, note], model)] == ["assistant", "system"]


@needs_pi16
def test_every_helper_answers_as_pi_1_6_does() -> None:
    pairs = [
        {"previous": [tool("a"), tool("b", "old")], "current": [tool("b", "new"), tool("c")]},
    ]
    answers = run_mjs("pi16_transcript.mjs", stdin=[*CASES, *pairs])
    for case, answer in zip(CASES, answers, strict=False):
        assert ours(case) == answer
    added, removed = tool_state_changes(
        [Tool.model_validate(t) for t in pairs[0]["previous"]],
        [Tool.model_validate(t) for t in pairs[0]["current"]],
    )
    assert answers[-1]["changes"] == {
        "toolsAdded": [t.model_dump(mode="json") for t in added],
        "toolsRemoved": [r.model_dump(mode="json") for r in removed],
    }


@pytest.mark.parametrize("case", range(len(CASES)))
def test_the_cases_load_and_dump_unchanged(case: int) -> None:
    data = CASES[case]["context"]
    assert Context.model_validate(data).model_dump(mode="json") == {
        "messages": data["messages"],
        **{k: v for k, v in data.items() if k != "messages"},
    }
