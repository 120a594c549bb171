"""Benchmark: what ``transform_messages`` costs per request on a long, mixed history.

Every provider runs it on the whole history before each call, so its cost grows with the
session. The history alternates user prompts, assistant turns from three vendors (signed thinking,
text, tool calls) and tool results; it is converted for a foreign target (everything rewritten:
thinking to text, ids normalized) and for the same model (mostly passed through).

Baseline, measured in the same run: ``json.dumps`` of the history's ``model_dump(mode="json")``,
i.e. what merely serializing that history once costs, which every adapter does anyway to send it.

Run with ``uv run python benchmarks/bench_transform.py [--turns 200] [--repeats 7]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import time
from collections.abc import Callable

from pi_sdk import (
    AssistantMessage,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk.provider import transform_messages

MODELS = [
    Model(id="claude-sonnet-4-5", api="anthropic-messages", provider="anthropic"),
    Model(id="gpt-5", api="openai-responses", provider="openai"),
    Model(id="gemini-2.5-flash", api="google-generative-ai", provider="google"),
]


def history(turns: int) -> list[Message]:
    messages: list[Message] = []
    for i in range(turns):
        source = MODELS[i % len(MODELS)]
        messages.append(UserMessage(content=f"question {i}: " + "words " * 40))
        turn: AssistantMessage = new_assistant_message(source)
        call_id = f"call_{i:04d}|fc_{i:040d}" if i % 3 == 1 else f"toolu_{i:020d}"
        turn.content = [
            ThinkingContent(thinking="reasoning " * 60, thinking_signature="sig" * 100),
            TextContent(text="answer " * 30),
            ToolCall(id=call_id, name="lookup", arguments={"q": f"item {i}", "n": i}),
        ]
        turn.stop_reason = "toolUse"
        messages.append(turn)
        messages.append(
            ToolResultMessage(
                tool_call_id=call_id, tool_name="lookup", content=[TextContent(text="r " * 50)]
            )
        )
    return messages


def best(fn: Callable[[], object], repeats: int) -> float:
    times: list[float] = []
    gc.disable()
    try:
        for _ in range(repeats):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    finally:
        gc.enable()
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    messages = history(args.turns)
    foreign = Model(id="deepseek-chat", api="openai-completions", provider="deepseek")
    same = MODELS[0]

    baseline = best(lambda: json.dumps([m.model_dump(mode="json") for m in messages]), args.repeats)
    to_foreign = best(lambda: transform_messages(messages, foreign), args.repeats)
    to_same = best(lambda: transform_messages(messages, same), args.repeats)
    print(f"history: {len(messages)} messages ({args.turns} turns)")
    print(f"baseline  serialize once       {baseline * 1e3:8.2f} ms   1.00x")
    for label, seconds in (("foreign target", to_foreign), ("one source's model", to_same)):
        print(f"transform {label:<20} {seconds * 1e3:8.2f} ms   {seconds / baseline:.2f}x")


if __name__ == "__main__":
    main()
