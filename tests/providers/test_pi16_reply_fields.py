"""The 1.6 reply fields, filled where the vendor gives the data (issue 27, item 2).

Replayed from recorded bodies (``../shared/conformance``): ``raw_stop_reason`` (the vendor's
own stop reason, unmapped), ``usage.reasoning`` (reasoning tokens inside the output),
``usage.cache_write_1h`` (Anthropic, Bedrock), ``duration_ms`` (every reply, monotonic), as
pi-ai 1.6 sets them (``api/*.ts``, ``utils/event-stream.ts``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _support.conformance import conformance_dir

from pi_sdk import AssistantMessage, Model
from pi_sdk._testing.replay import replay
from pi_sdk.provider import MessageBuilder

CASES = [
    # (cassette, raw stop reason, usage.reasoning, usage.cache_write_1h)
    ("anthropic-messages/cache_write_then_read_stream.yaml", "end_turn", None, 0),
    ("openai-completions/reasoning_tokens_nonstream.yaml", "stop", 1792, None),
    ("openai-responses/reasoning_encrypted_roundtrip_nonstream.yaml", "completed", 63, None),
    ("google-generative-ai/max_tokens_thinking_empty_nonstream.yaml", "MAX_TOKENS", 2, None),
    ("mistral-conversations/text_nonstream.yaml", "stop", None, None),
    ("bedrock-converse-stream/cache_write_then_read_nonstream.yaml", "end_turn", None, None),
]


async def first_reply(path: Path, api: str) -> AssistantMessage:
    async for call in replay(path, api=api):
        return await call.events.result()
    raise AssertionError("no interaction")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
async def test_recorded_replies_carry_the_1_6_fields(case: tuple[Any, ...]) -> None:
    name, raw, reasoning, one_hour = case
    root = conformance_dir()
    path = root / name if root is not None else Path(name)
    if root is None or not path.is_file():
        pytest.skip(f"conformance cassette {name} not found")
    message = await first_reply(path, name.split("/")[0])
    assert message.raw_stop_reason == raw
    assert message.usage.reasoning == reasoning
    assert message.usage.cache_write_1h == one_hour
    assert isinstance(message.duration_ms, int) and message.duration_ms >= 0
    dumped = message.model_dump(mode="json")
    assert dumped["rawStopReason"] == raw and "durationMs" in dumped


def test_anthropic_one_hour_writes_and_thinking_tokens() -> None:
    from pi_sdk_anthropic.messages._decode import Decoder

    from pi_sdk import Context

    model = Model(
        id="claude-x",
        name="x",
        api="anthropic-messages",
        provider="anthropic",
        cost={"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},  # pyright: ignore[reportArgumentType]
    )
    builder = MessageBuilder(model)
    decoder = Decoder(builder, Context(), oauth=False)
    usage = {
        "input_tokens": 10,
        "output_tokens": 1,
        "cache_creation_input_tokens": 3000,
        "cache_creation": {"ephemeral_5m_input_tokens": 2000, "ephemeral_1h_input_tokens": 1000},
    }
    decoder.feed({"type": "message_start", "message": {"id": "msg_1", "usage": usage}})
    assert builder.message.usage.cache_write_1h == 1000
    delta = {"output_tokens": 40, "output_tokens_details": {"thinking_tokens": 25}}
    decoder.feed({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": delta})
    usage_out = builder.message.usage
    assert (usage_out.output, usage_out.reasoning, usage_out.cache_write_1h) == (40, 25, 1000)
    assert builder.message.raw_stop_reason == "end_turn"
    # One-hour writes cost their own rate (2x input) where five-minute ones cost 1.25x.
    assert usage_out.cost.cache_write == pytest.approx((2000 * 3.75 + 1000 * 6) / 1e6)
