"""Gemini's OpenAI-compatible endpoint: thought signatures kept and sent back (issue 12, defect 2).

``generativelanguage.googleapis.com/v1beta/openai/chat/completions`` sends each tool call's thought
signature as ``extra_content.google.thought_signature`` on the call, and the answer's on the
delta (or message) with the text. The next request must carry them in the same places, or
Gemini 3 rejects the tool loop with 400 ("Function call is missing a thought_signature").
The bodies below are shaped like the endpoint's replies.
"""

from __future__ import annotations

import json
from typing import Any

from _support import openai_fakes as fakes
from _support.conformance import Reply
from _support.messages import reply
from _support.openai_fakes import BASE, JSON
from pi_sdk_openai.completions import build_payload

import pi_sdk
from pi_sdk import Context, Model, TextContent, ToolCall, UserMessage

GEMINI = "https://generativelanguage.googleapis.com/v1beta/openai"
SIG_CALL = "CiQBcsjafBN0m0Gx9mJ+Wc1kzhTe1tHg7xu1H6Zpo2Ll=="
SIG_TEXT = "CrICAdHtim827fQxOq9n3pZs7w=="


GEMINI_3 = Model(
    id="gemini-3-pro-preview", api="openai-completions", provider="google-openai", reasoning=True
)


def gemini(base_url: str = GEMINI) -> Model:
    return GEMINI_3.model_copy(update={"base_url": base_url})


def sse(*chunks: dict[str, Any]) -> bytes:
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return (body + "data: [DONE]\n\n").encode()


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "resp-1",
        "object": "chat.completion.chunk",
        "model": "gemini-3-pro-preview",
        "created": 1764633600,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


USAGE = {"prompt_tokens": 21, "completion_tokens": 9, "total_tokens": 30}


def tool_call_delta(signature: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "tool_calls": [
            {
                "extra_content": {"google": {"thought_signature": signature}},
                "function": {"arguments": '{"city":"Paris"}', "name": "get_weather"},
                "id": "function-call-13286578946543290651",
                "index": 0,
                "type": "function",
            }
        ],
    }


async def test_streamed_tool_call_and_text_keep_their_signatures():
    body = sse(
        chunk(tool_call_delta(SIG_CALL)),
        chunk({"role": "assistant"}, "tool_calls", usage=USAGE),
    )
    _, message, _ = await fakes.run(gemini(BASE), body)
    assert message.tool_calls[0].thought_signature == SIG_CALL
    assert message.tool_calls[0].arguments == {"city": "Paris"}

    text = sse(
        chunk(
            {
                "role": "assistant",
                "content": "It is sunny",
                "extra_content": {"google": {"thought_signature": SIG_TEXT}},
            }
        ),
        chunk({"content": " in Paris."}),
        chunk({}, "stop", usage=USAGE),
    )
    _, message, _ = await fakes.run(gemini(BASE), text)
    assert message.text == "It is sunny in Paris."
    assert isinstance(block := message.content[0], TextContent)
    assert block.text_signature == SIG_TEXT


async def test_a_signature_before_its_text_waits_for_the_text():
    body = sse(
        chunk({"role": "assistant", "extra_content": {"google": {"thought_signature": SIG_TEXT}}}),
        chunk({"content": "Hello"}),
        chunk({}, "stop", usage=USAGE),
    )
    _, message, _ = await fakes.run(gemini(BASE), body)
    assert isinstance(block := message.content[0], TextContent)
    assert block.text_signature == SIG_TEXT


async def test_json_reply_keeps_the_signatures():
    completion = {
        "id": "resp-2",
        "object": "chat.completion",
        "model": "gemini-3-pro-preview",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": "Checking.",
                    "extra_content": {"google": {"thought_signature": SIG_TEXT}},
                    "tool_calls": tool_call_delta(SIG_CALL)["tool_calls"],
                },
            }
        ],
        "usage": USAGE,
    }
    served = Reply(200, json.dumps(completion).encode(), JSON)
    _, message, _ = await fakes.run(gemini(BASE), [served])
    assert isinstance(block := message.content[0], TextContent)
    assert block.text_signature == SIG_TEXT
    assert message.tool_calls[0].thought_signature == SIG_CALL


def history(m: Model, **fields: Any) -> Context:
    turn = reply(
        m,
        TextContent(text="Checking.", text_signature=SIG_TEXT),
        ToolCall(
            id="function-call-1",
            name="get_weather",
            arguments={"city": "Paris"},
            thought_signature=SIG_CALL,
        ),
        **fields,
    )
    done = pi_sdk.ToolResultMessage(
        tool_call_id="function-call-1",
        tool_name="get_weather",
        content=[TextContent(text="sunny")],
    )
    return Context(messages=[UserMessage(content="weather?"), turn, done])


def test_signatures_go_back_where_the_endpoint_sent_them():
    m = gemini()
    origin = pi_sdk.provider.signature_origin(m)
    sent = build_payload(m, history(m, signature_origin=origin))["messages"][1]
    assert sent["extra_content"] == {"google": {"thought_signature": SIG_TEXT}}
    assert sent["tool_calls"][0]["extra_content"] == {"google": {"thought_signature": SIG_CALL}}
    assert "reasoning_details" not in sent


def test_signatures_of_another_endpoint_or_model_are_not_sent():
    minted = gemini("https://proxy.example.test/v1")
    origin = pi_sdk.provider.signature_origin(minted)
    sent = build_payload(gemini(), history(minted, signature_origin=origin))["messages"][1]
    assert "extra_content" not in sent and "extra_content" not in sent["tool_calls"][0]
    other = gemini().model_copy(update={"id": "gemini-2.5-flash"})
    sent = build_payload(other, history(gemini()))["messages"][1]
    assert "extra_content" not in sent and "extra_content" not in sent["tool_calls"][0]


def test_openrouter_encrypted_reasoning_still_goes_to_reasoning_details():
    m = gemini("https://openrouter.ai/api/v1")
    detail = {"type": "reasoning.encrypted", "id": "function-call-1", "data": "enc"}
    context = history(m)
    turn = context.messages[1]
    assert isinstance(turn, pi_sdk.AssistantMessage)
    call = turn.tool_calls[0]
    call.thought_signature = json.dumps(detail)
    sent = build_payload(m, context)["messages"][1]
    assert sent["reasoning_details"] == [detail]
    assert "extra_content" not in sent["tool_calls"][0]
