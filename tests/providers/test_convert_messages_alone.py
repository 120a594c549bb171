"""Each provider's public ``convert_messages``, called alone, gives the messages its full
request builder sends.

The builders read the context once and hand that reading to ``convert_messages`` (its
``parts=``); a caller of the public function gives only the context, and the function reads
it itself. Both ways must agree, over a history with every kind of message: a system prompt,
a mid-conversation system update, user text, an assistant's thinking, text and tool call, the
tool's result, and tools declared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pi_sdk_anthropic.messages import build_request as anthropic_body
from pi_sdk_anthropic.messages import convert_messages as anthropic_messages
from pi_sdk_bedrock.converse import build_request as bedrock_body
from pi_sdk_bedrock.converse import convert_messages as bedrock_messages
from pi_sdk_google._shared_request import build_request as google_body
from pi_sdk_google._shared_request import convert_messages as google_messages
from pi_sdk_openai.completions import build_payload as chat_body
from pi_sdk_openai.completions import convert_messages as chat_messages

import pi_sdk
from pi_sdk import (
    AssistantMessage,
    Context,
    StreamOptions,
    SystemMessage,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

TOOL = Tool(
    name="read",
    description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
)


def history(model: pi_sdk.Model) -> Context:
    turn = AssistantMessage(
        content=[
            ThinkingContent(thinking="The file first."),
            TextContent(text="Reading it."),
            ToolCall(id="call_1", name="read", arguments={"path": "/a.txt"}),
        ],
        api=model.api,
        provider=model.provider,
        model=model.id,
        stop_reason="toolUse",
    )
    return Context(
        system_prompt="Be brief.",
        messages=[
            UserMessage(content="Read /a.txt"),
            turn,
            ToolResultMessage(
                tool_call_id="call_1", tool_name="read", content=[TextContent(text="hello")]
            ),
            SystemMessage(content="Answer in French."),
            UserMessage(content="And now?"),
        ],
        tools=[TOOL],
    )


Case = tuple[
    str, str, Callable[[pi_sdk.Model, Context], Any], Callable[[pi_sdk.Model, Context], Any]
]
CASES: list[Case] = [
    (
        "openai",
        "gpt-4o-mini",
        lambda m, c: chat_messages(m, c),
        lambda m, c: chat_body(m, c)["messages"],
    ),
    (
        "google",
        "gemini-2.5-flash",
        lambda m, c: google_messages(m, c, StreamOptions()),
        lambda m, c: google_body(m, c, StreamOptions())["contents"],
    ),
    (  # the body's cache breakpoint off: convert_messages alone sets none unless given one
        "anthropic",
        "claude-sonnet-4-5",
        lambda m, c: anthropic_messages(c, m),
        lambda m, c: anthropic_body(m, c, StreamOptions(cache_retention="none"))["messages"],
    ),
    (
        "amazon-bedrock",
        "amazon.nova-micro-v1:0",
        lambda m, c: bedrock_messages(c, m),
        lambda m, c: bedrock_body(m, c, StreamOptions())["messages"],
    ),
]


@pytest.mark.parametrize(
    ("provider", "model_id", "alone", "in_body"), CASES, ids=[c[0] for c in CASES]
)
def test_convert_messages_alone_is_what_the_request_sends(
    provider: str, model_id: str, alone: Callable[..., Any], in_body: Callable[..., Any]
):
    model = pi_sdk.get_model(provider, model_id)
    context = history(model)
    sent = in_body(model, context)
    assert alone(model, context) == sent
    texts = repr(sent)
    for said in ("Read /a.txt", "Reading it.", "hello", "And now?"):
        assert said in texts  # every turn is there, not an empty list on both sides
