"""Every adapter's request body for one history holding every hard migration shape (issue 7).

The history mixes: OpenAI Responses thinking + ``call_…|fc_…`` tool call, a proxy-minted Anthropic
signature, a 79-character id and another sharing its first 64, Gemini id-less parallel calls, an
empty id, a stream cut mid-thinking, unsigned thinking, an orphaned call, lone surrogates and
images. For each target API (and a text-only variant) the *wire payload* must be valid: no empty
or foreign signature, ids in the target's shape and paired with their results, no lone surrogate,
no image bytes for a text-only model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from _support.messages import assistant
from _support.migration import DEEPSEEK
from pi_sdk_anthropic.messages import build_request as build_anthropic
from pi_sdk_google._shared_request import build_request as build_google
from pi_sdk_openai.completions import build_payload as build_completions_payload
from pi_sdk_openai.responses import build_payload as build_responses_payload

import pi_sdk
from pi_sdk import Model, TextContent, ThinkingContent, ToolCall, UserMessage

IMAGE = pi_sdk.ImageContent(data="iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", mime_type="image/png")
REASONING_ITEM = json.dumps(
    {"type": "reasoning", "id": "rs_9", "summary": [], "encrypted_content": "gAAAAABforeign"}
)
FOREIGN_SECRETS = ("sig-from-proxy", "gAAAAABforeign", "Z2VtaW5pc2ln", "msg_foreign_item")
OWN_OPAQUE = {"gemini": ("Z2VtaW5pc2ln",), "responses": ("gAAAAABforeign", "msg_foreign_item")}
LONG_A = "toolu_" + "x" * 58 + "A" * 15  # 79 characters
LONG_B = "toolu_" + "x" * 58 + "BBB"  # shares the first 64

ANTHROPIC = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")
RESPONSES = pi_sdk.get_model("openai", "gpt-5")
GEMINI = pi_sdk.get_model("google", "gemini-2.5-flash")
OPENAI_CHAT = pi_sdk.get_model("openai", "gpt-5").model_copy(
    update={"api": "openai-completions", "compat": None}  # its compat flags are Responses'
)


def result(call_id: str, text: str, name: str = "lookup", *extra: Any) -> pi_sdk.ToolResultMessage:
    return pi_sdk.ToolResultMessage(
        tool_call_id=call_id, tool_name=name, content=[TextContent(text=text), *extra]
    )


def history() -> list[pi_sdk.Message]:
    proxy = ANTHROPIC.model_copy(update={"base_url": "https://proxy.example.com/anthropic"})
    other = Model(id="local-model", api="openai-completions", provider="local")
    return [
        UserMessage(content=[TextContent(text="start \ud83d here 😀"), IMAGE]),
        assistant(
            RESPONSES,
            ThinkingContent(thinking="responses reasoning", thinking_signature=REASONING_ITEM),
            TextContent(text="looking", text_signature='{"v":1,"id":"msg_foreign_item"}'),
            ToolCall(id="call_AbC123|fc_0123456789abcdef", name="lookup", arguments={"q": "a"}),
            ts=2,
        ),
        result("call_AbC123|fc_0123456789abcdef", "found \udc00 it", "lookup", IMAGE),
        UserMessage(content="next", timestamp=3),
        assistant(
            proxy,
            ThinkingContent(thinking="proxy thinking", thinking_signature="sig-from-proxy"),
            ToolCall(id=LONG_A, name="lookup", arguments={"q": "long a"}),
            ToolCall(id=LONG_B, name="lookup", arguments={"q": "long b"}),
            ts=4,
        ),
        result(LONG_B, "B"),
        result(LONG_A, "A"),
        assistant(
            GEMINI,
            ThinkingContent(thinking="gemini thought", thinking_signature="Z2VtaW5pc2ln"),
            ToolCall(id="", name="lookup", arguments={"q": "g1"}, thought_signature="Z2VtaW5pc2ln"),
            ToolCall(id="", name="lookup", arguments={"q": "g2"}),
            ts=5,
        ),
        result("", "g1 done"),
        result("", "g2 done"),
        assistant(other, ToolCall(id="", name="lookup", arguments={"k\ud800": "v"}), ts=6),
        result("", "empty id done"),
        assistant(
            ANTHROPIC,
            ThinkingContent(thinking="cut mid-thi", thinking_signature=""),
            stop="aborted",
            ts=1,
        ),
        UserMessage(content="again", timestamp=7),
        assistant(
            ANTHROPIC,
            ThinkingContent(thinking="unsigned own thinking", thinking_signature=""),
            TextContent(text="partial answer"),
            ToolCall(id="toolu_orphan", name="lookup", arguments={}),
            ts=8,
        ),
        UserMessage(content="final question", timestamp=9),
    ]


CONTEXT = pi_sdk.Context(
    system_prompt="system \ud800 prompt",
    messages=history(),
    tools=[
        pi_sdk.Tool(
            name="lookup",
            description="Look up",
            parameters={"type": "object", "properties": {"q": {"type": "string"}}},
        )
    ],
)
OPTIONS = pi_sdk.StreamOptions(reasoning="medium")

Builder = Callable[[Model], dict[str, Any]]
TARGETS: dict[str, tuple[Model, Builder]] = {
    "anthropic": (ANTHROPIC, lambda m: build_anthropic(m, CONTEXT, OPTIONS)),
    "responses": (RESPONSES, lambda m: build_responses_payload(m, CONTEXT, OPTIONS)),
    "gemini": (GEMINI, lambda m: build_google(m, CONTEXT, OPTIONS)),
    "deepseek": (DEEPSEEK, lambda m: build_completions_payload(m, CONTEXT, OPTIONS)),
    "openai-chat": (OPENAI_CHAT, lambda m: build_completions_payload(m, CONTEXT, OPTIONS)),
}


def walk(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield k, v
            yield from walk(v, k)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item, key)


def tool_pairs(api: str, payload: dict[str, Any]) -> tuple[list[list[str]], list[list[str]]]:
    """(call ids per assistant turn, result ids per following tool-result run), in order."""
    calls: list[list[str]] = []
    results: list[list[str]] = []
    if api == "anthropic-messages":
        for message in payload["messages"]:
            blocks = message["content"] if isinstance(message["content"], list) else []
            uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
            outs = [b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"]
            if uses:
                calls.append(uses)
            if outs:
                results.append(outs)
    elif api == "openai-responses":
        for item in payload["input"]:
            if item.get("type") == "function_call":
                calls.append([item["call_id"]])
            elif item.get("type") == "function_call_output":
                results.append([item["call_id"]])
        calls, results = [sum(calls, [])], [sum(results, [])]
    elif api == "openai-completions":
        previous = ""
        for message in payload["messages"]:
            if message.get("tool_calls"):
                calls.append([c["id"] for c in message["tool_calls"]])
            if message["role"] == "tool":
                if previous == "tool":
                    results[-1].append(message["tool_call_id"])
                else:
                    results.append([message["tool_call_id"]])
            previous = message["role"]
    else:  # Gemini pairs by position and name
        for content in payload["contents"]:
            names = [p["functionCall"]["name"] for p in content["parts"] if "functionCall" in p]
            outs = [
                p["functionResponse"]["name"] for p in content["parts"] if "functionResponse" in p
            ]
            if names:
                calls.append(names)
            if outs:
                results.append(outs)
    return calls, results


@pytest.mark.parametrize("text_only", [False, True], ids=["vision", "text-only"])
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_payload_is_valid_for_the_target(target: str, text_only: bool) -> None:
    model, build = TARGETS[target]
    if text_only:
        model = model.model_copy(update={"input": ["text"]})
    payload = build(model)
    text = json.dumps(payload, ensure_ascii=False)
    text.encode("utf-8")  # raises on a lone surrogate anywhere in the body

    for key, value in walk(payload):
        if key in (
            "signature",
            "thoughtSignature",
            "thought_signature",
            "encrypted_content",
            "data",
        ):
            assert isinstance(value, str) and value.strip(), f"empty {key} sent to {target}"
    own = OWN_OPAQUE.get(target, ())  # the target model's own signatures go back to it
    for foreign in FOREIGN_SECRETS:
        assert (foreign in text) == (foreign in own), f"{foreign} sent to {target}?"
    assert "sig-from-proxy" not in text and "cut mid-thi" not in text
    if text_only:
        assert IMAGE.data not in text

    calls, results = tool_pairs(model.api, payload)
    flat = sum(calls, [])
    if model.api != "google-generative-ai":
        assert len(flat) == len(set(flat)) == 7, flat
        limit = 40 if model.provider == "openai" and model.api == "openai-completions" else 64
        assert all(re.fullmatch(r"[a-zA-Z0-9_-]+", i) and len(i) <= limit for i in flat), flat
    else:
        assert len(flat) == 7
    # every call has exactly one result, in the next tool-result run, in call order
    assert [sorted(c) for c in calls] == [sorted(r) for r in results]
    # the results reached the right calls (content follows the id, whatever it became)
    assert text.index("long a") < text.index("long b")
