"""Tool-call id normalization: the core's vendor-neutral primitives and each adapter's rule.

The core (:mod:`pi_sdk._wire.ids`) knows no vendor; each provider package defines its API's
normalizer and passes it to ``transform_messages`` (the payload-level check is in
``test_transform_adapters.py``).
"""

from __future__ import annotations

import random
import re
import string
from typing import Any

import pytest
from pi_sdk_anthropic.messages import normalize_tool_call_id as anthropic_ids
from pi_sdk_google import normalize_tool_call_id as google_ids
from pi_sdk_openai.completions import normalize_tool_call_id as normalize_completions_tool_call_id
from pi_sdk_openai.responses import normalize_tool_call_id as normalize_responses_tool_call_id

from pi_sdk import Model, ToolCall, ToolResultMessage, UserMessage
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk.provider import sanitize_tool_call_id, short_hash, transform_messages

GPT = Model(id="gpt-5", api="openai-responses", provider="openai", base_url="https://x.test/v1")
OTHER = Model(id="other", api="some-api", provider="someone")


def _random_ids(count: int) -> list[str]:
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + "_-|.:+/=@ é"
    ids = {"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 120))) for _ in range(count)}
    prefix = "call_" + "p" * 70
    ids |= {prefix + str(i) for i in range(50)}  # long ids sharing a 75-char prefix
    ids |= {"a.b", "a:b", "a_b", "a|b", "a|c"}
    return sorted(ids)


def _check_valid_and_injective(normalize: Any, valid: re.Pattern[str]) -> None:
    ids = _random_ids(2000)
    out = {i: normalize(i) for i in ids}
    bad = [v for v in out.values() if not valid.fullmatch(v)]
    assert not bad, bad[:3]
    assert len(set(out.values())) == len(ids)
    for original, normalized in out.items():  # valid ids pass unchanged
        if valid.fullmatch(original) and "|" not in original:
            assert normalized == original


# --- core primitives --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("allowed", "max_len", "valid"),
    [
        ("a-zA-Z0-9_-", 64, re.compile(r"[a-zA-Z0-9_-]{1,64}")),
        ("a-zA-Z0-9_-", 40, re.compile(r"[a-zA-Z0-9_-]{1,40}")),
        ("a-z0-9_", 16, re.compile(r"[a-z0-9_]{1,16}")),
    ],
)
def test_sanitize_is_valid_and_injective(allowed: str, max_len: int, valid: re.Pattern[str]):
    def normalize(i: str) -> str:
        return sanitize_tool_call_id(i, max_len=max_len, allowed=allowed)

    _check_valid_and_injective(normalize, valid)


def test_sanitize_rejects_a_limit_with_no_room_for_the_hash():
    with pytest.raises(ValueError, match="max_len must be at least 12, got 9"):
        sanitize_tool_call_id("x", max_len=9)


def test_short_hash_is_stable() -> None:
    # Pinned: ids in saved sessions and cached prompts must not change between releases.
    assert short_hash("call_x|fc_y") == "5blvu7hj52"
    assert len(short_hash("x")) == 10 and len(short_hash("x", 9)) == 9
    assert short_hash("a") != short_hash("b")


def test_transform_without_a_normalizer_keeps_foreign_ids_and_fills_empty_ones():
    turn = new_assistant_message(OTHER)
    turn.stop_reason = "toolUse"
    turn.content = [ToolCall(id="weird id|x", name="f"), ToolCall(id="", name="g")]
    history = [
        UserMessage(content="go"),
        turn,
        ToolResultMessage(tool_call_id="weird id|x", tool_name="f"),
        ToolResultMessage(tool_call_id="", tool_name="g"),
    ]
    out = transform_messages(history, GPT)  # a custom API: no id rule known to the core
    ids = [c.id for c in out[1].tool_calls]  # type: ignore[union-attr]
    assert ids[0] == "weird id|x" and ids[1].startswith("call_")
    assert [m.tool_call_id for m in out[2:]] == ids  # type: ignore[union-attr]


# --- each adapter's normalizer ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("normalize", "valid"),
    [
        (anthropic_ids, re.compile(r"[a-zA-Z0-9_-]{1,64}")),
        (google_ids, re.compile(r"[a-zA-Z0-9_-]{1,64}")),
        (normalize_responses_tool_call_id, re.compile(r"[a-zA-Z0-9_-]{1,64}")),
        (normalize_completions_tool_call_id, re.compile(r"[a-zA-Z0-9_-]{1,40}")),
    ],
    ids=["anthropic", "google", "openai-responses", "openai-completions"],
)
def test_adapter_normalizers_valid_and_injective(normalize: Any, valid: re.Pattern[str]) -> None:
    source = new_assistant_message(OTHER)
    _check_valid_and_injective(lambda i: normalize(i, GPT, source), valid)


def test_responses_normalizer_drops_a_foreign_item_id() -> None:
    normalized = normalize_responses_tool_call_id(
        "call_abc|fc_123", GPT, new_assistant_message(GPT)
    )
    assert normalized.startswith("call_abc_") and "|" not in normalized


def test_anthropic_normalizer_keeps_both_parts_of_a_responses_id() -> None:
    normalized = anthropic_ids("call_abc|fc_123", GPT, new_assistant_message(GPT))
    assert normalized.startswith("call_abc_fc_123_")
