"""The default output cap, fitted into the context window, against pi-ai 1.6 (issue 27, item 3).

pi-ai 1.6 (``clampMaxTokensToContext`` over ``estimateContextTokens``) sends ``model.maxTokens``
(or the caller's cap) but never more than the window minus the estimated input and a margin.
pi-sdk's :meth:`pi_sdk.StreamOptions.resolved_max_tokens` follows it to the token: the same
contexts go through pi's own function under Node 22 (``tests/node/pi16_output_cap.mjs``).
"""

from __future__ import annotations

from typing import Any

from _support.node22 import needs_pi16, run_mjs

import pi_sdk
from pi_sdk import AssistantMessage, Context, StreamOptions, TextContent, Usage, UserMessage
from pi_sdk._wire.constrained_sampling import JsonSchemaSampling
from pi_sdk.types import ToolReference

TOOL = pi_sdk.Tool(
    name="search",
    description="Search the web — fast ✨",
    parameters={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
)
IMAGE = pi_sdk.ImageContent(data="AAAA", mime_type="image/png")


def _model(window: int, max_tokens: int) -> pi_sdk.Model:
    return pi_sdk.Model(
        id="m", api="openai-completions", provider="p", context_window=window, max_tokens=max_tokens
    )


def _reply(text: str, ts: int, total: int, stop: str = "stop") -> AssistantMessage:
    return AssistantMessage(
        api="openai-completions",
        provider="p",
        model="m",
        content=[TextContent(text=text)],
        usage=Usage(input=total - 10, output=10, total_tokens=total),
        stop_reason=stop,  # type: ignore[arg-type]
        timestamp=ts,
    )


def _cases() -> list[tuple[pi_sdk.Model, Context, int | None]]:
    emoji = "emoji 😀 and accents é " * 3000
    return [
        (_model(128_000, 16_000), Context(messages=[UserMessage(content="hi", timestamp=1)]), None),
        (
            _model(128_000, 128_000),
            Context(messages=[UserMessage(content="hi", timestamp=1)]),
            None,
        ),
        (
            _model(200_000, 64_000),
            Context(
                system_prompt="You are a careful assistant. " * 200,
                tools=[TOOL],
                messages=[UserMessage(content=emoji, timestamp=1)],
            ),
            None,
        ),
        (
            _model(32_768, 32_768),
            Context(messages=[UserMessage(content=[TextContent(text="look"), IMAGE], timestamp=1)]),
            None,
        ),
        (
            _model(200_000, 64_000),
            Context(
                system_prompt="sys",
                messages=[
                    UserMessage(content="a" * 50_000, timestamp=1),
                    _reply("ok", 2, 150_000),
                    UserMessage(content="b" * 7_000, timestamp=3),
                ],
            ),
            None,
        ),
        (
            _model(200_000, 64_000),
            Context(
                messages=[
                    UserMessage(content="a" * 50_000, timestamp=5),
                    _reply("ok", 2, 150_000),  # older than a message before it: not an anchor
                    _reply("cut", 6, 190_000, "error"),  # errored: not an anchor
                ]
            ),
            1_000,
        ),
        (
            _model(8_000, 4_096),
            Context(messages=[UserMessage(content="x" * 40_000, timestamp=1)]),
            None,
        ),
        (_model(0, 4_096), Context(messages=[UserMessage(content="hi", timestamp=1)]), None),
        (_model(1, 4_096), Context(messages=[UserMessage(content="hi", timestamp=1)]), None),
        *((_model(20_000, 100_000), context, None) for context in _tight_contexts()),
    ]


def _tight_contexts() -> list[Context]:
    """Contexts whose cap is the window minus their estimate: every estimated token shows."""
    strict = TOOL.model_copy(update={"constrained_sampling": JsonSchemaSampling(strict="prefer")})
    call = pi_sdk.ToolCall(id="c1", name="search", arguments={"q": "café 東京 😀"})
    turn = AssistantMessage(
        api="openai-completions",
        provider="p",
        model="m",
        content=[
            pi_sdk.ThinkingContent(thinking="thinking… 😀"),
            TextContent(text="looking ✨"),
            call,
        ],
        stop_reason="toolUse",
        timestamp=3,
    )
    result = pi_sdk.ToolResultMessage(
        tool_call_id="c1",
        tool_name="search",
        content=[TextContent(text="found é"), IMAGE, TextContent(text="more")],
        timestamp=4,
    )
    system = pi_sdk.SystemMessage(
        content="Mind the tools.",
        sections={"style": "Brief ✨", "gone": None},
        tools_added=[strict],
        tools_removed=[ToolReference(name="old_search_tool")],
        timestamp=2,
    )
    described = [  # one of seven lengths puts the tools' JSON on a token boundary
        strict.model_copy(update={"description": "d" * length}) for length in range(7)
    ]
    return [
        Context(messages=[UserMessage(content=[TextContent(text="look"), IMAGE], timestamp=1)]),
        # 2 + 4,800 characters: exactly 1,372 tokens, so one character more or less shows
        Context(messages=[UserMessage(content=[TextContent(text="hi"), IMAGE], timestamp=1)]),
        *(
            Context(tools=[tool], messages=[UserMessage(content="hi", timestamp=1)])
            for tool in described
        ),
        Context(
            system_prompt="sys ✨",
            tools=[strict],
            messages=[UserMessage(content="hi 😀", timestamp=1), turn, result],
        ),
        Context(messages=[UserMessage(content="hi", timestamp=1), system, turn, result]),
        Context(  # blocks joined by a newline: 8 characters, 3 tokens (not 7, 2)
            messages=[
                UserMessage(content="hi", timestamp=1),
                pi_sdk.SystemMessage(
                    content=[TextContent(text="abc"), TextContent(text="defg")], timestamp=2
                ),
            ]
        ),
        Context(  # the reply with usage anchors; what follows it is estimated
            messages=[
                UserMessage(content="a" * 400, timestamp=1),
                _reply("ok", 2, 1_500),
                system,
                turn,
                result,
            ]
        ),
    ]


@needs_pi16
def test_the_cap_is_pi_ai_16s() -> None:
    cases = _cases()
    payload: list[dict[str, Any]] = [
        {
            "model": m.model_dump(mode="json", by_alias=True, exclude_none=True),
            "context": c.model_dump(mode="json", by_alias=True, exclude_none=True),
            "maxTokens": cap,
        }
        for m, c, cap in cases
    ]
    theirs = run_mjs("pi16_output_cap.mjs", stdin={"cases": payload})
    ours = [StreamOptions(max_tokens=cap).resolved_max_tokens(m, c) for m, c, cap in cases]
    assert ours == theirs


def test_the_cap_leaves_room_and_never_drops_below_one() -> None:
    small = _model(8_000, 4_096)
    full = Context(messages=[UserMessage(content="x" * 40_000)])
    assert StreamOptions().resolved_max_tokens(small, full) == 1
    roomy = Context(messages=[UserMessage(content="hi")])
    assert StreamOptions().resolved_max_tokens(small, roomy) == 8_000 - 1 - 4096
    assert StreamOptions(max_tokens=100).resolved_max_tokens(small, roomy) == 100
    assert StreamOptions().resolved_max_tokens(_model(0, 4096), roomy) == 4096
