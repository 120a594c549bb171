"""A Chat Completions history longer than 256 messages converts whole, every message once.

Past 256, positions in the history are int objects of their own (CPython caches only the small
ones): the walk over the history ends where it should whether it ends on a user message or in
a run of tool results.
"""

from __future__ import annotations

import pytest
from pi_sdk_openai.completions._request import convert_messages

from pi_sdk import (
    AssistantMessage,
    Context,
    Message,
    Model,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

MODEL = Model(id="gpt-test", api="openai-completions", provider="openai", base_url="http://x")


def _turn(n: int) -> list[Message]:
    call = ToolCall(id=f"call_{n}", name="f", arguments={})
    return [
        UserMessage(content=f"q{n}"),
        AssistantMessage(content=[call], api=MODEL.api, provider=MODEL.provider, model=MODEL.id),
        ToolResultMessage(
            tool_call_id=f"call_{n}", tool_name="f", content=[TextContent(text=f"r{n}")]
        ),
    ]


@pytest.mark.parametrize("ending", ["tool-results", "user"])
def test_every_message_of_a_history_past_256_is_sent_once(ending: str) -> None:
    history = [m for n in range(100) for m in _turn(n)]  # 300 messages, ending on a result
    if ending == "user":
        history.append(UserMessage(content="last"))
    sent = convert_messages(MODEL, Context(messages=history))
    assert len(sent) == len(history)
    assert [m["role"] for m in sent[:3]] == ["user", "assistant", "tool"]
    assert sent[-1] == (
        {"role": "user", "content": "last"}
        if ending == "user"
        else {"role": "tool", "content": "r99", "tool_call_id": "call_99"}
    )
