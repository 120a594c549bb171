"""Bedrock tool choices and usage as they really arrive: decoded from JSON.

A ``provider_options["tool_choice"]`` from a proxy request and the ``cacheDetails`` of a
stream's ``metadata`` event are equal to the literals the adapter compares them with but never
the same objects (a test's literals are interned), so each rule is shown with decoded values.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pi_sdk_bedrock.converse._request import build_request
from pi_sdk_bedrock.converse._tools import sends_preferred_strict
from pi_sdk_bedrock.converse._usage import apply_usage

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, UserMessage
from pi_sdk.provider import MessageBuilder

MODEL = Model(
    id="anthropic.claude-sonnet-4-5",
    api="bedrock-converse-stream",
    provider="amazon-bedrock",
    compat={"supportsStrictMode": True},
)
PREFER = pi_sdk.Tool(
    name="t",
    parameters={"type": "object", "properties": {}},
    constrained_sampling={"type": "json_schema", "strict": "prefer"},
)
CONTEXT = Context(messages=[UserMessage(content="hi")], tools=[PREFER])


def decoded(value: Any) -> Any:
    """``value`` as a request or a stream hands it over: decoded from its JSON text."""
    return json.loads(json.dumps(value))


@pytest.mark.parametrize(
    ("choice", "tool_choice"),
    [
        ("none", None),  # no toolConfig at all: Converse has no "none"
        ("auto", {"auto": {}}),
        ("any", {"any": {}}),
        ({"type": "tool", "name": "t"}, {"tool": {"name": "t"}}),
        ({"type": "other", "name": "t"}, "absent"),
    ],
)
def test_a_tool_choice_decoded_from_a_request(choice: Any, tool_choice: Any) -> None:
    options = StreamOptions(provider_options={"tool_choice": decoded(choice)})
    payload = build_request(MODEL, CONTEXT, options)
    if tool_choice is None:
        assert "toolConfig" not in payload
        assert sends_preferred_strict(MODEL, CONTEXT, options) is False
        return
    config = payload["toolConfig"]
    assert [spec["toolSpec"]["name"] for spec in config["tools"]] == ["t"]
    assert config.get("toolChoice", "absent") == tool_choice
    assert sends_preferred_strict(MODEL, CONTEXT, options) is True


@pytest.mark.parametrize(
    ("details", "one_hour"),
    [
        ([{"ttl": "1h", "inputTokens": 4}, {"ttl": "5m", "inputTokens": 2}], 4),
        ([{"ttl": "5m", "inputTokens": 2}], 0),
    ],
)
def test_one_hour_cache_writes_of_a_decoded_metadata_event(
    details: list[Any], one_hour: int
) -> None:
    builder = MessageBuilder(MODEL)
    builder.start()
    apply_usage(builder, decoded({"cacheWriteInputTokens": 6, "cacheDetails": details}))
    usage = builder.message.usage
    assert (usage.cache_write, usage.cache_write_1h) == (6, one_hour)
