"""Gemini ``contents`` from a pi history, rule by rule (``_shared_request.convert_messages``).

Tables: every user block kind -> its part; every assistant block kind -> its ``model`` part
(blank text skipped, signatures of the same source kept); which models get ids on calls and
results; every tool-result shape -> its ``functionResponse``.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.messages import assistant
from test_google_request import PNG, SIG_A, SIG_B, contents, gemini, result

import pi_sdk
from pi_sdk import TextContent, ToolCall, UserMessage

IMAGE = pi_sdk.ImageContent(data=PNG, mime_type="image/png")
INLINE = {"inlineData": {"mimeType": "image/png", "data": PNG}}


@pytest.mark.parametrize(
    ("content", "sent"),
    [
        ("", []),
        ("hi", [{"role": "user", "parts": [{"text": "hi"}]}]),
        ([TextContent(text="")], []),
        (
            [TextContent(text=""), TextContent(text=" "), IMAGE],
            [{"role": "user", "parts": [{"text": " "}, INLINE]}],
        ),
    ],
)
def test_user_parts(content: Any, sent: list[dict[str, Any]]) -> None:
    assert contents(gemini("gemini-2.5-flash"), UserMessage(content=content)) == sent


def test_every_assistant_block_kind_of_the_same_source() -> None:
    m = gemini("gemini-2.5-flash")
    raw = {"executableCode": {"language": "PYTHON", "code": "1"}}
    turn = assistant(
        m,
        pi_sdk.ThinkingContent(thinking=" \n", thinking_signature=SIG_A),  # blank: skipped
        pi_sdk.ThinkingContent(thinking="plan", thinking_signature=SIG_A),
        TextContent(text="  "),  # blank: skipped
        TextContent(text="x", text_signature=SIG_B),
        TextContent(text="y", text_signature="not base64!"),
        pi_sdk.ServerToolCall(id="s1", name="code_execution", raw=raw),
        pi_sdk.ServerToolCall(id="s2", name="code_execution"),  # no raw: nothing to replay
        pi_sdk.ImageContent(data=PNG, mime_type="image/png", thought_signature=SIG_A),
        stop="stop",
    )
    assert contents(m, UserMessage(content="q"), turn)[1] == {
        "role": "model",
        "parts": [
            {"thought": True, "text": "plan", "thoughtSignature": SIG_A},
            {"text": "x", "thoughtSignature": SIG_B},
            {"text": "y"},
            raw,
            INLINE | {"thoughtSignature": SIG_A},
        ],
    }


def test_a_turn_of_only_blank_blocks_sends_no_model_content() -> None:
    m = gemini("gemini-2.5-flash")
    turn = assistant(m, TextContent(text=" "), pi_sdk.ThinkingContent(thinking=""), stop="stop")
    assert contents(m, UserMessage(content="q"), turn, UserMessage(content="r")) == [
        {"role": "user", "parts": [{"text": "q"}]},
        {"role": "user", "parts": [{"text": "r"}]},
    ]


@pytest.mark.parametrize(
    ("model_id", "ids"),
    [
        ("gemini-2.5-flash", False),
        ("claude-sonnet-4-5", True),
        ("gpt-oss-120b", True),
        ("gemini-3-pro-preview", True),
        ("Gemini-3-flash", True),
        ("gemini-2.0-flash", False),
    ],
)
def test_which_models_get_ids_on_calls_and_results(model_id: str, ids: bool) -> None:
    target = gemini(model_id)
    source = gemini("gemini-1.5-other")
    call = ToolCall(id="call_1", name="weather", arguments={})
    sent = contents(
        target,
        UserMessage(content="go"),
        assistant(source, call),
        result("call_1", "weather", TextContent(text="sun")),
    )
    function = sent[1]["parts"][0]["functionCall"]
    response = sent[2]["parts"][0]["functionResponse"]
    assert function["args"] == {}  # no arguments: an empty object
    assert ("id" in function, "id" in response) == (ids, ids)
    if ids:
        assert function["id"] == response["id"] == "call_1"


@pytest.mark.parametrize(("call_id", "echoed"), [("vendor-id-1", True), ("gemini_call_3", False)])
def test_the_same_models_own_ids_are_echoed_but_made_up_ones_are_not(
    call_id: str, echoed: bool
) -> None:
    m = gemini("gemini-2.5-flash")
    call = ToolCall(id=call_id, name="weather", arguments={"city": "Oslo"})
    sent = contents(
        m,
        UserMessage(content="go"),
        assistant(m, call),
        result(call_id, "weather", TextContent(text="sun")),
    )
    function = sent[1]["parts"][0]["functionCall"]
    response = sent[2]["parts"][0]["functionResponse"]
    assert function["args"] == {"city": "Oslo"}
    assert (function.get("id"), response.get("id")) == (
        (call_id, call_id) if echoed else (None, None)
    )


DOCUMENT = pi_sdk.DocumentContent(data="JVBERi0=", mime_type="application/pdf")


@pytest.mark.parametrize(
    ("content", "is_error", "response"),
    [
        ([TextContent(text="a"), TextContent(text="b")], False, {"output": "a\nb"}),
        ([], False, {"output": ""}),
        ([TextContent(text="bad")], True, {"error": "bad"}),
        ([IMAGE], False, {"output": "(see attached image)"}),
        ([IMAGE], True, {"error": "(see attached image)"}),
        ([DOCUMENT], False, {"output": "(see attached document)"}),
        ([TextContent(text="t"), IMAGE], False, {"output": "t"}),
    ],
)
def test_tool_result_values(content: list[Any], is_error: bool, response: dict[str, Any]) -> None:
    m = gemini("gemini-2.5-flash")
    call = ToolCall(id="c1", name="weather", arguments={})
    sent = contents(
        m,
        UserMessage(content="go"),
        assistant(m, call),
        result("c1", "weather", *content, is_error=is_error),
    )
    function_response = sent[2]["parts"][0]["functionResponse"]
    assert function_response["name"] == "weather"
    assert function_response["response"] == response
