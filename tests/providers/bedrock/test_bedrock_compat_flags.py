"""Bedrock's ``model.compat`` flags: true, false or absent, anything else refused.

pi-ai 1.6 checks compat per API with a schema (``BedrockCompat``): ``supportsStrictMode`` (a
strict tool goes with ``strict: true``), ``supportsStructuredOutputs`` (false: a typed answer
goes as a forced tool), and pi-sdk's ``cache_points`` (cache points for a model its id does
not name). A flag given as ``1`` or ``"yes"`` is a configuration error, not read as true.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pi_sdk_bedrock.converse import build_request

import pi_sdk
from pi_sdk import Context, StreamOptions, Tool, UserMessage

PROFILE = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc"
TOOL = Tool(
    name="find",
    description="Find.",
    parameters={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    constrained_sampling={"type": "json_schema", "strict": "require"},
)


def _model(**compat: Any) -> pi_sdk.Model:
    base = pi_sdk.get_model("amazon-bedrock", "amazon.nova-micro-v1:0")
    return base.model_copy(update={"id": PROFILE, "compat": compat})


PLAIN = Tool(name="look", description="Look.", parameters=TOOL.parameters)


def _body(model: pi_sdk.Model, *, tool: Tool = TOOL, **options: Any) -> dict[str, Any]:
    context = Context(messages=[UserMessage(content="hi")], tools=[tool])
    return build_request(model, context, StreamOptions(**options))


@pytest.mark.parametrize(
    "flag", ["supportsStrictMode", "supportsStructuredOutputs", "cache_points"]
)
@pytest.mark.parametrize("value", [1, 0, "yes", "true", 1.0, [True]])
def test_a_flag_that_is_not_true_or_false_is_refused(flag: str, value: Any) -> None:
    with pytest.raises(pi_sdk.ConfigurationError) as refused:
        _body(_model(**{flag: value}), tool=PLAIN, output={"type": "object", "properties": {}})
    assert str(refused.value) == f"model.compat: {flag} must be true or false, got {value!r}"


def test_strict_mode_sends_strict_tools_only_when_true() -> None:
    def strict(model: pi_sdk.Model) -> Any:
        return _body(model)["toolConfig"]["tools"][0]["toolSpec"].get("strict")

    assert strict(_model(supportsStrictMode=True)) is True
    with pytest.raises(pi_sdk.ConfigurationError, match="requires JSON-schema constrained"):
        strict(_model(supportsStrictMode=False))
    with pytest.raises(pi_sdk.ConfigurationError, match="requires JSON-schema constrained"):
        strict(_model())


def test_cache_points_are_forced_only_when_true() -> None:
    def cached(model: pi_sdk.Model) -> bool:
        return any(
            "cachePoint" in block for block in _body(model, tool=PLAIN)["messages"][-1]["content"]
        )

    assert cached(_model(cache_points=True))
    assert not cached(_model(cache_points=False))
    assert not cached(_model())


ANSWER = {"type": "object", "properties": {"a": {"type": "string"}}}
LOOK = {
    "toolSpec": {"name": "look", "description": "Look.", "inputSchema": {"json": PLAIN.parameters}}
}
FORCED = {
    "toolConfig": {
        "tools": [
            LOOK,
            {
                "toolSpec": {
                    "name": "final_answer",
                    "description": "Give the final answer (output) as this tool's arguments.",
                    "inputSchema": {"json": ANSWER},
                }
            },
        ],
        "toolChoice": {"tool": {"name": "final_answer"}},
    },
    "outputConfig": None,
}
NATIVE = {
    "toolConfig": {"tools": [LOOK]},
    "outputConfig": {
        "textFormat": {
            "type": "json_schema",
            "structure": {"jsonSchema": {"schema": json.dumps(ANSWER), "name": "output"}},
        }
    },
}


@pytest.mark.parametrize(
    ("compat", "sent"),
    [
        ({"supportsStructuredOutputs": False}, FORCED),
        ({"supportsStructuredOutputs": True}, NATIVE),
        ({}, NATIVE),
    ],
)
def test_a_typed_answer_goes_as_a_forced_tool_only_when_structured_outputs_are_off(
    compat: dict[str, bool], sent: dict[str, Any]
) -> None:
    body = _body(_model(**compat), tool=PLAIN, output=ANSWER)
    assert {key: body.get(key) for key in sent} == sent
