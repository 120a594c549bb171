"""Reasoning that must go back to the same model on Chat Completions (issue 27, item 6).

Two defects found on real traffic, each checked on a body shaped as the server sends it:

* OpenRouter's ``reasoning_details`` (Claude's signed thinking, OpenAI's encrypted reasoning)
  were kept only when an encrypted entry named a tool call; a reply with thinking and text, or
  with encrypted reasoning and no tool call, lost them, and the next turn reached the model
  without its reasoning (Claude: without the signature). pi-ai 1.6 keeps the merged list on the
  thinking block and sends it back as ``reasoning_details``.
* Gemini's OpenAI-compatible endpoint: a thought signature on the delta of a reply that holds
  only tool calls waited for a text that never came and was lost; Gemini 3 then rejects the tool
  loop ("Function call is missing a thought_signature").
"""

from __future__ import annotations

import json
from typing import Any

from _support import openai_fakes as fakes
from _support.openai_fakes import BASE
from pi_sdk_openai.completions import build_payload

import pi_sdk
from pi_sdk import Context, Model, ThinkingContent, UserMessage

CLAUDE = Model(
    id="anthropic/claude-sonnet-4.5",
    api="openai-completions",
    provider="openrouter",
    base_url="https://openrouter.ai/api/v1",
    reasoning=True,
)
O4 = CLAUDE.model_copy(update={"id": "openai/o4-mini"})
GEMINI = Model(
    id="gemini-3-pro-preview", api="openai-completions", provider="google-openai", reasoning=True
)
USAGE = {"prompt_tokens": 30, "completion_tokens": 40, "total_tokens": 70}
SIGNATURE = "EqQBCkgIBhABGAIiQL0fTJ0q0ml0ZlsBOV2jmh2ZQ2nq2r/cwxX5yvrf"
ENCRYPTED = "gAAAAABoLp7kq3z0KEfLV9V6Qwv1sZ0N2m0qvZ0dGhpbmtpbmc="
SIG_GEMINI = "CiQBcsjafBN0m0Gx9mJ+Wc1kzhTe1tHg7xu1H6Zpo2Ll=="


def sse(*chunks: dict[str, Any]) -> bytes:
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return (body + "data: [DONE]\n\n").encode()


def chunk(
    delta: dict[str, Any], finish: str | None = None, model: str = CLAUDE.id, **extra: Any
) -> dict[str, Any]:
    return {
        "id": "gen-1764633600-abc",
        "provider": "Anthropic",
        "model": model,
        "object": "chat.completion.chunk",
        "created": 1764633600,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


def text_detail(text: str, signature: str | None = None) -> dict[str, Any]:
    return {
        "type": "reasoning.text",
        "text": text,
        "signature": signature,
        "format": "anthropic-claude-v1",
        "index": 0,
    }


CLAUDE_BODY = sse(
    chunk(
        {
            "role": "assistant",
            "content": "",
            "reasoning": "The user",
            "reasoning_details": [text_detail("The user")],
        }
    ),
    chunk(
        {
            "content": "",
            "reasoning": " greets me.",
            "reasoning_details": [text_detail(" greets me.")],
        }
    ),
    chunk({"content": "", "reasoning_details": [text_detail("", SIGNATURE)]}),
    chunk({"content": "Hello!"}),
    chunk({"content": ""}, "stop", usage=USAGE),
)
ENCRYPTED_BODY = sse(
    chunk(
        {
            "role": "assistant",
            "content": "",
            "reasoning_details": [
                {
                    "type": "reasoning.encrypted",
                    "data": ENCRYPTED,
                    "id": "rs_0123",
                    "format": "openai-responses-v1",
                    "index": 0,
                }
            ],
        },
        model=O4.id,
    ),
    chunk({"content": "4"}, model=O4.id),
    chunk({}, "stop", model=O4.id, usage=USAGE),
)


def replayed(model: Model, message: pi_sdk.AssistantMessage, to: Model) -> dict[str, Any]:
    context = Context(messages=[UserMessage(content="hi"), message, UserMessage(content="more")])
    sent = build_payload(to.model_copy(update={"base_url": BASE}), context)["messages"]
    del model
    return next(m for m in sent if m["role"] == "assistant")


async def test_claudes_signed_thinking_is_kept_and_sent_back_to_the_same_model() -> None:
    _, message, _ = await fakes.run(CLAUDE.model_copy(update={"base_url": BASE}), CLAUDE_BODY)
    thinking = message.content[0]
    assert isinstance(thinking, ThinkingContent)
    assert thinking.thinking == "The user greets me."
    merged = {**text_detail("The user greets me.", SIGNATURE)}
    assert json.loads(thinking.thinking_signature or "") == [merged]
    assert message.text == "Hello!"

    back = replayed(CLAUDE, message, CLAUDE)
    assert back["reasoning_details"] == [merged]
    assert "reasoning" not in back  # the details replace the raw reasoning field (pi-ai 1.6)
    other = replayed(CLAUDE, message, O4)
    assert "reasoning_details" not in other and "reasoning" not in other


async def test_encrypted_reasoning_without_a_tool_call_is_kept_and_sent_back() -> None:
    _, message, _ = await fakes.run(O4.model_copy(update={"base_url": BASE}), ENCRYPTED_BODY)
    thinking = message.content[0]
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == ""
    detail = json.loads(thinking.thinking_signature or "")[0]
    assert detail["data"] == ENCRYPTED and detail["id"] == "rs_0123"
    back = replayed(O4, message, O4)
    assert back["reasoning_details"] == [detail] and back["content"] == "4"


async def test_a_gemini_signature_on_a_reply_with_only_tool_calls_goes_to_the_call() -> None:
    body = sse(
        chunk(
            {
                "role": "assistant",
                "extra_content": {"google": {"thought_signature": SIG_GEMINI}},
                "tool_calls": [
                    {
                        "function": {"arguments": '{"city":"Paris"}', "name": "get_weather"},
                        "id": "function-call-1",
                        "index": 0,
                        "type": "function",
                    }
                ],
            },
            model=GEMINI.id,
        ),
        chunk({"role": "assistant"}, "tool_calls", model=GEMINI.id, usage=USAGE),
    )
    _, message, _ = await fakes.run(GEMINI.model_copy(update={"base_url": BASE}), body)
    assert message.tool_calls[0].thought_signature == SIG_GEMINI
    back = replayed(GEMINI, message, GEMINI)
    assert back["tool_calls"][0]["extra_content"] == {"google": {"thought_signature": SIG_GEMINI}}


def test_an_older_message_with_the_entry_on_its_tool_call_still_sends_it() -> None:
    legacy = json.dumps(
        {"type": "reasoning.encrypted", "id": "call_1", "data": ENCRYPTED, "format": "f"}
    )
    turn = pi_sdk.AssistantMessage(
        api=O4.api,
        provider=O4.provider,
        model=O4.id,
        content=[pi_sdk.ToolCall(id="call_1", name="f", arguments={}, thought_signature=legacy)],
        stop_reason="toolUse",
    )
    context = Context(
        messages=[
            UserMessage(content="hi"),
            turn,
            pi_sdk.ToolResultMessage(
                tool_call_id="call_1", tool_name="f", content=[pi_sdk.TextContent(text="ok")]
            ),
        ]
    )
    (sent,) = [m for m in build_payload(O4, context)["messages"] if m["role"] == "assistant"]
    assert sent["reasoning_details"] == [json.loads(legacy)]
    assert "extra_content" not in sent["tool_calls"][0]
