"""Google request building: contents, tool calls and results, signatures, schemas, thinking."""

from __future__ import annotations

import base64
import copy
from collections.abc import Sequence
from typing import Any

import pytest
from _support.messages import reply
from pi_sdk_google._shared_request import (
    SYNTHETIC_ID_PREFIX,
    THOUGHT_SIGNATURE_PLACEHOLDER,
    THOUGHT_SIGNATURE_PLACEHOLDERS,
    THOUGHT_SIGNATURE_SENTINEL,
    build_request,
    convert_tools,
    is_valid_thought_signature,
    thinking_config,
)
from pi_sdk_google._shared_schema import to_gemini_parameters

import pi_sdk
from pi_sdk import Model, StreamOptions, TextContent, ToolCall, UserMessage

SIG_A = "c2lnbmF0dXJlLWE="  # base64, as Gemini sends them
SIG_B = "c2lnbmF0dXJlLWI="
PNG = "iVBORw0KGgo="


def gemini(model_id: str, *, reasoning: bool = True, images: bool = True, **extra: Any) -> Model:
    return Model(
        id=model_id,
        api="google-generative-ai",
        provider="google",
        base_url="https://generativelanguage.googleapis.com/v1beta",
        reasoning=reasoning,
        input=["text", "image"] if images else ["text"],
        max_tokens=65_536,
        **extra,
    )


def result(
    call_id: str, name: str, *content: Any, is_error: bool = False
) -> pi_sdk.ToolResultMessage:
    return pi_sdk.ToolResultMessage(
        tool_call_id=call_id, tool_name=name, content=list(content), is_error=is_error
    )


def contents(model: Model, *messages: Any, **options: Any) -> list[dict[str, Any]]:
    return build_request(model, pi_sdk.Context(messages=list(messages)), StreamOptions(**options))[
        "contents"
    ]


def own_turn(
    model: Model, prompt: str, *blocks: Any, after: Sequence[Any] = (), **fields: Any
) -> list[dict[str, Any]]:
    """``contents`` for ``model`` of: the user's ``prompt``, ``model``'s own reply of ``blocks``
    (``fields``: more of its fields, e.g. ``stop_reason``), then the messages ``after``."""
    return contents(model, UserMessage(content=prompt), reply(model, *blocks, **fields), *after)


def weather_round(
    target: Model,
    *blocks: Any,
    results: Sequence[tuple[str, str]] = (),
    source: Model | None = None,
) -> list[dict[str, Any]]:
    """``contents`` for ``target`` of: the user's "go", the assistant turn ``blocks`` that
    ``source`` (default: ``target``) replied, then one ``weather`` text result per
    ``(call id, text)`` in ``results``, in that order."""
    return contents(
        target,
        UserMessage(content="go"),
        reply(source or target, *blocks),
        *(result(call_id, "weather", TextContent(text=text)) for call_id, text in results),
    )


WEATHER = pi_sdk.Tool(
    name="weather",
    description="Weather for a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)


# --- parallel calls and their results ---------------------------------------------------------


def test_parallel_calls_to_one_function_get_results_in_call_order() -> None:
    model = gemini("gemini-2.5-flash")
    first, second = f"{SYNTHETIC_ID_PREFIX}1_aa", f"{SYNTHETIC_ID_PREFIX}2_bb"
    out = weather_round(
        model,
        ToolCall(id=first, name="weather", arguments={"city": "Paris"}),
        ToolCall(id=second, name="weather", arguments={"city": "Rome"}),
        # Recorded in completion order: Rome finished first.
        results=[(second, "sunny"), (first, "rain")],
    )
    calls = [p["functionCall"] for p in out[1]["parts"]]
    assert [c["args"]["city"] for c in calls] == ["Paris", "Rome"]
    assert all("id" not in c for c in calls), "ids pi-sdk made up are not Gemini's to match"
    assert out[2]["role"] == "user"
    responses = [p["functionResponse"] for p in out[2]["parts"]]
    assert [r["response"] for r in responses] == [{"output": "rain"}, {"output": "sunny"}]
    assert [r["name"] for r in responses] == ["weather", "weather"]
    assert len(out) == 3, "both responses share one user turn"


def test_vendor_issued_ids_are_echoed_on_calls_and_their_results() -> None:
    model = gemini("gemini-3-flash-preview")
    out = weather_round(
        model,
        ToolCall(id="fc-1", name="weather", arguments={"city": "Paris"}, thought_signature=SIG_A),
        ToolCall(id="fc-2", name="weather", arguments={"city": "Rome"}),
        results=[("fc-2", "sunny"), ("fc-1", "rain")],
    )
    assert [p["functionCall"]["id"] for p in out[1]["parts"]] == ["fc-1", "fc-2"]
    responses = [p["functionResponse"] for p in out[2]["parts"]]
    assert [(r["id"], r["response"]["output"]) for r in responses] == [
        ("fc-1", "rain"),
        ("fc-2", "sunny"),
    ]


def test_id_less_parallel_calls_from_history_stay_distinct_and_ordered() -> None:
    # pi-mono sessions can hold Gemini calls with repeated ids; results match by order.
    model = gemini("gemini-2.5-flash")
    out = weather_round(
        model,
        ToolCall(id="dup", name="weather", arguments={"city": "Paris"}),
        ToolCall(id="dup", name="weather", arguments={"city": "Rome"}),
        results=[("dup", "rain"), ("dup", "sunny")],
    )
    responses = [p["functionResponse"]["response"]["output"] for p in out[2]["parts"]]
    assert responses == ["rain", "sunny"]


def test_missing_result_gets_a_synthetic_error_response() -> None:
    out = own_turn(
        gemini("gemini-2.5-flash"),
        "go",
        ToolCall(id=f"{SYNTHETIC_ID_PREFIX}1", name="weather", arguments={}),
        after=[UserMessage(content="never mind")],
    )
    assert out[2]["parts"][0]["functionResponse"]["response"] == {"error": "No result provided"}
    assert out[3] == {"role": "user", "parts": [{"text": "never mind"}]}


def test_error_result_uses_error_key() -> None:
    out = own_turn(
        gemini("gemini-2.5-flash"),
        "go",
        ToolCall(id="c", name="weather", arguments={}),
        after=[result("c", "weather", TextContent(text="boom"), is_error=True)],
    )
    assert out[2]["parts"][0]["functionResponse"]["response"] == {"error": "boom"}


# --- thought signatures -----------------------------------------------------------------------


def test_thought_signature_stays_on_its_function_call_part_for_the_same_model() -> None:
    # Gemini 3 signs the first of parallel calls only (Gemini API "Thought signatures").
    model = gemini("gemini-3-flash-preview")
    out = weather_round(
        model,
        TextContent(text="Checking.", text_signature=SIG_B),
        ToolCall(id="a", name="weather", arguments={"city": "Paris"}, thought_signature=SIG_A),
        ToolCall(id="b", name="weather", arguments={"city": "Rome"}),
        results=[("a", "rain"), ("b", "sun")],
    )
    parts = out[1]["parts"]
    assert parts[0] == {"text": "Checking.", "thoughtSignature": SIG_B}
    assert parts[1]["thoughtSignature"] == SIG_A
    assert parts[1]["functionCall"]["args"] == {"city": "Paris"}
    assert "thoughtSignature" not in parts[2], "the unsigned call stays unsigned"


def test_same_model_signature_on_a_later_call_is_echoed_where_it_was() -> None:
    model = gemini("gemini-3-flash-preview")
    out = weather_round(
        model,
        ToolCall(id="a", name="weather", arguments={}),
        ToolCall(id="b", name="weather", arguments={}, thought_signature=SIG_A),
        results=[("a", "rain"), ("b", "sun")],
    )
    parts = out[1]["parts"]
    assert "thoughtSignature" not in parts[0]
    assert parts[1]["thoughtSignature"] == SIG_A


def test_unsigned_same_model_turn_to_gemini_3_gets_the_placeholder() -> None:
    model = gemini("gemini-3-flash-preview")
    out = weather_round(
        model, ToolCall(id="a", name="weather", arguments={}), results=[("a", "rain")]
    )
    assert out[1]["parts"][0]["thoughtSignature"] == THOUGHT_SIGNATURE_PLACEHOLDER


def test_thought_signature_is_dropped_for_another_model() -> None:
    source = gemini("gemini-2.5-pro")
    target = gemini("gemini-2.5-flash")
    out = weather_round(
        target,
        pi_sdk.ThinkingContent(thinking="plan", thinking_signature=SIG_B),
        ToolCall(id="a", name="weather", arguments={}, thought_signature=SIG_A),
        results=[("a", "rain")],
        source=source,
    )
    parts = out[1]["parts"]
    assert "text" not in parts[0], "foreign thinking is dropped (pi-ai 1.6)"
    assert all("thoughtSignature" not in p for p in parts)


def test_signature_bound_to_another_endpoint_is_not_replayed() -> None:
    model = gemini("gemini-2.5-flash")
    proxied = reply(
        model,
        ToolCall(id="a", name="weather", arguments={}, thought_signature=SIG_A),
        signature_origin="google-generative-ai@https://proxy.example.com",
    )
    out = contents(
        model, UserMessage(content="go"), proxied, result("a", "weather", TextContent(text="x"))
    )
    assert "thoughtSignature" not in out[1]["parts"][0]


def test_same_model_thinking_part_keeps_its_signature() -> None:
    out = own_turn(
        gemini("gemini-2.5-pro"),
        "hi",
        pi_sdk.ThinkingContent(thinking="hmm", thinking_signature=SIG_A),
        TextContent(text="Hello"),
        stop_reason="stop",
    )
    assert out[1]["parts"] == [
        {"thought": True, "text": "hmm", "thoughtSignature": SIG_A},
        {"text": "Hello"},
    ]


def test_non_base64_signature_is_not_sent() -> None:
    out = own_turn(
        gemini("gemini-2.5-pro"),
        "hi",
        TextContent(text="Hello", text_signature="msg_123|x"),
        stop_reason="stop",
    )
    assert out[1]["parts"] == [{"text": "Hello"}]


def test_foreign_function_calls_to_gemini_3_get_the_placeholder_on_the_first_call() -> None:
    claude = Model(id="claude-sonnet-4-5", api="anthropic-messages", provider="anthropic")
    target = gemini("gemini-3-pro-preview")
    out = weather_round(
        target,
        TextContent(text="Let me check."),
        ToolCall(id="toolu_1", name="weather", arguments={"city": "Paris"}),
        ToolCall(id="toolu_2", name="weather", arguments={"city": "Rome"}),
        results=[("toolu_1", "rain"), ("toolu_2", "sun")],
        source=claude,
    )
    parts = out[1]["parts"]
    assert "thoughtSignature" not in parts[0]
    assert parts[1]["thoughtSignature"] == THOUGHT_SIGNATURE_PLACEHOLDER
    assert "thoughtSignature" not in parts[2]


@pytest.mark.parametrize(
    ("api", "provider", "base_url"),
    [
        ("google-generative-ai", "google", "https://generativelanguage.googleapis.com/v1beta"),
        ("google-vertex", "google-vertex", "https://aiplatform.googleapis.com"),
    ],
)
def test_the_placeholder_is_the_base64_of_the_documented_sentinel_on_each_endpoint(
    api: str, provider: str, base_url: str
) -> None:
    # docs/migration.md: both endpoints carry thoughtSignature as bytes (base64 in JSON); Vertex
    # is reported to reject the literal string (not valid standard base64: it has "_").
    claude = Model(id="claude-sonnet-4-5", api="anthropic-messages", provider="anthropic")
    target = gemini("gemini-3-pro-preview").model_copy(
        update={"api": api, "provider": provider, "base_url": base_url}
    )
    out = weather_round(
        target,
        ToolCall(id="toolu_1", name="weather", arguments={"city": "Paris"}),
        results=[("toolu_1", "rain")],
        source=claude,
    )
    signature = out[1]["parts"][0]["thoughtSignature"]
    assert signature == THOUGHT_SIGNATURE_PLACEHOLDERS[api]
    assert base64.b64decode(signature, validate=True) == THOUGHT_SIGNATURE_SENTINEL.encode()
    assert THOUGHT_SIGNATURE_SENTINEL == "skip_thought_signature_validator"
    assert is_valid_thought_signature(signature)  # the shape a real signature has


def test_models_before_gemini_3_get_no_placeholder() -> None:
    claude = Model(id="claude-sonnet-4-5", api="anthropic-messages", provider="anthropic")
    out = weather_round(
        gemini("gemini-2.5-flash"),
        ToolCall(id="toolu_1", name="weather", arguments={}),
        results=[("toolu_1", "rain")],
        source=claude,
    )
    assert "thoughtSignature" not in out[1]["parts"][0]


# --- images -----------------------------------------------------------------------------------


def test_tool_result_image_goes_into_the_function_response_on_gemini_3() -> None:
    out = own_turn(
        gemini("gemini-3-flash-preview"),
        "screenshot",
        ToolCall(id="s", name="shot", arguments={}, thought_signature=SIG_A),
        after=[result("s", "shot", pi_sdk.ImageContent(data=PNG, mime_type="image/png"))],
    )
    response = out[2]["parts"][0]["functionResponse"]
    assert response["response"] == {"output": "(see attached image)"}
    assert response["parts"] == [{"inlineData": {"mimeType": "image/png", "data": PNG}}]
    assert len(out) == 3


def test_tool_result_images_follow_all_responses_on_older_models() -> None:
    model = gemini("gemini-2.5-flash")
    out = contents(
        model,
        UserMessage(content="screenshots"),
        reply(
            model,
            ToolCall(id="a", name="shot", arguments={}),
            ToolCall(id="b", name="shot", arguments={}),
        ),
        result(
            "a",
            "shot",
            TextContent(text="first"),
            pi_sdk.ImageContent(data=PNG, mime_type="image/png"),
        ),
        result("b", "shot", TextContent(text="second")),
    )
    assert [p["functionResponse"]["response"]["output"] for p in out[2]["parts"]] == [
        "first",
        "second",
    ]
    assert "parts" not in out[2]["parts"][0]["functionResponse"]
    assert out[3] == {
        "role": "user",
        "parts": [
            {"text": "Tool result image:"},
            {"inlineData": {"mimeType": "image/png", "data": PNG}},
        ],
    }


def test_images_for_a_text_only_model_are_replaced_by_text() -> None:
    model = gemini("gemma-3-27b-it", images=False, reasoning=False)
    out = contents(
        model,
        UserMessage(
            content=[TextContent(text="look"), pi_sdk.ImageContent(data=PNG, mime_type="image/png")]
        ),
    )
    assert all("inlineData" not in p for p in out[0]["parts"])
    assert out[0]["parts"][0] == {"text": "look"}


def test_user_image_becomes_inline_data() -> None:
    out = contents(
        gemini("gemini-2.5-flash"),
        UserMessage(
            content=[pi_sdk.ImageContent(data=PNG, mime_type="image/jpeg"), TextContent(text="?")]
        ),
    )
    assert out[0]["parts"] == [
        {"inlineData": {"mimeType": "image/jpeg", "data": PNG}},
        {"text": "?"},
    ]


# --- request shape ----------------------------------------------------------------------------


def test_request_has_system_instruction_generation_config_and_tools() -> None:
    model = gemini("gemini-2.5-flash")
    body = build_request(
        model,
        pi_sdk.Context(
            system_prompt="Be brief.",
            messages=[UserMessage(content="hi")],
            tools=[WEATHER],
        ),
        StreamOptions(temperature=0.2, provider_options={"tool_choice": "any"}),
    )
    assert body["systemInstruction"] == {"role": "user", "parts": [{"text": "Be brief."}]}
    assert body["generationConfig"] == {
        "temperature": 0.2,
        "maxOutputTokens": 65536,  # model.max_tokens (pi-ai 1.6: no 32,000 cap)
        "thinkingConfig": {"thinkingBudget": 0},  # reasoning off (pi-ai 0.73)
    }
    declaration = body["tools"][0]["functionDeclarations"][0]
    assert declaration["name"] == "weather"
    assert declaration["parametersJsonSchema"]["properties"] == {"city": {"type": "string"}}
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}


def test_explicit_max_tokens_and_small_model_limit() -> None:
    small = gemini("gemini-2.0-flash", reasoning=False).model_copy(update={"max_tokens": 8192})
    ctx = pi_sdk.Context(messages=[UserMessage(content="hi")])
    assert build_request(small, ctx, StreamOptions())["generationConfig"]["maxOutputTokens"] == 8192
    explicit = build_request(small, ctx, StreamOptions(max_tokens=100))
    assert explicit["generationConfig"]["maxOutputTokens"] == 100


def test_invalid_tool_choice_is_a_configuration_error() -> None:
    with pytest.raises(pi_sdk.ConfigurationError, match="tool_choice"):
        build_request(
            gemini("gemini-2.5-flash"),
            pi_sdk.Context(messages=[UserMessage(content="hi")], tools=[WEATHER]),
            StreamOptions(provider_options={"tool_choice": "sometimes"}),
        )


def test_errored_turns_and_blank_text_are_not_sent() -> None:
    model = gemini("gemini-2.5-flash")
    out = contents(
        model,
        UserMessage(content="hi"),
        reply(model, TextContent(text="partial"), stop_reason="error", error_message="boom"),
        UserMessage(content="again"),
        reply(model, TextContent(text="  "), TextContent(text="ok"), stop_reason="stop"),
    )
    assert [c["role"] for c in out] == ["user", "user", "model"]
    assert out[2]["parts"] == [{"text": "ok"}]


# --- JSON Schema conversion -------------------------------------------------------------------


def test_schema_conversion_rules() -> None:
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:tool",
        "type": "object",
        "properties": {
            "$id": {"type": "string", "$comment": "a property really named $id"},
            "mode": {"const": "fast"},
            "target": {
                "oneOf": [
                    {"type": "string", "$schema": "x"},
                    {"$ref": "#/$defs/point"},
                ]
            },
            "tags": {"type": "array", "items": {"type": "string", "const": "a", "enum": ["a"]}},
            "extra": {"type": ["string", "null"], "default": {"$schema": "data, kept"}},
        },
        "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}}},
        "additionalProperties": False,
        "required": ["mode"],
    }
    original = copy.deepcopy(schema)
    out = to_gemini_parameters(schema, "t")
    assert schema == original, "the tool's own schema is not mutated"
    assert "$schema" not in out and "$id" not in out
    assert out["properties"]["$id"] == {"type": "string"}
    assert out["properties"]["mode"] == {"enum": ["fast"]}
    assert out["properties"]["target"] == {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/point"}]}
    assert out["properties"]["tags"]["items"] == {"type": "string", "enum": ["a"]}
    assert out["properties"]["extra"]["default"] == {"$schema": "data, kept"}
    assert out["$defs"] == original["$defs"]
    assert out["additionalProperties"] is False and out["required"] == ["mode"]


def test_schema_with_both_unions_keeps_both() -> None:
    out = to_gemini_parameters(
        {
            "type": "object",
            "properties": {"v": {"anyOf": [{"type": "string"}], "oneOf": [{"type": "integer"}]}},
        },
        "t",
    )
    v = out["properties"]["v"]
    assert v["anyOf"] == [{"type": "string"}]
    assert v["allOf"] == [{"anyOf": [{"type": "integer"}]}]


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({}, {"type": "object", "properties": {}}),
        (
            {"properties": {"a": {"type": "string"}}},
            {"type": "object", "properties": {"a": {"type": "string"}}},
        ),
        ({"type": ["object", "null"]}, {"type": ["object", "null"]}),
    ],
)
def test_schema_root_becomes_an_object(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    assert to_gemini_parameters(schema, "t") == expected


def test_non_object_root_schema_is_a_configuration_error() -> None:
    with pytest.raises(pi_sdk.ConfigurationError, match="'list_tool'.*object"):
        to_gemini_parameters({"type": "array", "items": {"type": "string"}}, "list_tool")


# --- thinking config per model family ---------------------------------------------------------


@pytest.mark.parametrize(
    ("model_id", "level", "expected"),
    [
        ("gemini-3-pro-preview", "minimal", {"thinkingLevel": "LOW"}),
        ("gemini-3-pro-preview", "low", {"thinkingLevel": "LOW"}),
        ("gemini-3-pro-preview", "medium", {"thinkingLevel": "HIGH"}),
        ("gemini-3.1-pro-preview", "xhigh", {"thinkingLevel": "HIGH"}),
        ("gemini-3-flash-preview", "minimal", {"thinkingLevel": "MINIMAL"}),
        ("gemini-3-flash-preview", "medium", {"thinkingLevel": "MEDIUM"}),
        ("gemini-3.1-flash-lite-preview", "low", {"thinkingLevel": "LOW"}),
        ("gemini-2.5-pro", "minimal", {"thinkingBudget": 128}),
        ("gemini-2.5-pro", "high", {"thinkingBudget": 32768}),
        ("gemini-2.5-flash", "high", {"thinkingBudget": 24576}),
        ("gemini-2.5-flash-lite", "xhigh", {"thinkingBudget": 24576}),
        ("gemini-flash-latest", "medium", {"thinkingLevel": "MEDIUM"}),  # pi-ai 1.6
        ("gemini-2.0-flash-thinking", "medium", {"thinkingBudget": -1}),
    ],
)
def test_thinking_config_per_family(model_id: str, level: Any, expected: dict[str, Any]) -> None:
    config = thinking_config(gemini(model_id), StreamOptions(reasoning=level))
    assert config == {"includeThoughts": True, **expected}


def test_thinking_unsupported_sends_no_config() -> None:
    non_reasoning = gemini("gemini-2.0-flash", reasoning=False)
    assert thinking_config(non_reasoning, StreamOptions(reasoning="high")) is None
    assert thinking_config(non_reasoning, StreamOptions()) is None


@pytest.mark.parametrize(
    ("model_id", "sent"),
    [
        ("gemini-2.5-flash", {"thinkingBudget": 0}),
        ("gemini-2.5-flash-lite", {"thinkingBudget": 0}),
        ("gemini-2.5-pro", {"thinkingBudget": 128}),  # cannot think 0 tokens
        ("gemini-3-pro-preview", {"thinkingLevel": "LOW"}),
        ("gemini-3.1-pro-preview", {"thinkingLevel": "LOW"}),
        ("gemini-3-flash-preview", {"thinkingLevel": "MINIMAL"}),
        ("gemma-4-27b-it", {"thinkingLevel": "MINIMAL"}),
    ],
)
def test_reasoning_off_turns_thinking_off_where_the_model_allows(
    model_id: str, sent: dict[str, Any]
) -> None:
    """Issue 12 defect 4: with reasoning off, Gemini 2.5 Flash no longer thinks (and bills)."""
    model = gemini(model_id)
    assert thinking_config(model, StreamOptions()) == sent
    off = StreamOptions(reasoning="high", provider_options={"thinking": {"enabled": False}})
    assert thinking_config(model, off) == sent
    body = build_request(
        model, pi_sdk.Context(messages=[UserMessage(content="q")]), StreamOptions()
    )
    assert body["generationConfig"]["thinkingConfig"] == sent


def test_custom_budgets_and_explicit_thinking_option() -> None:
    model = gemini("gemini-2.5-pro")
    custom = StreamOptions(reasoning="low", thinking_budgets={"low": 999})
    assert thinking_config(model, custom) == {"includeThoughts": True, "thinkingBudget": 999}
    level = StreamOptions(provider_options={"thinking": {"enabled": True, "level": "minimal"}})
    assert thinking_config(model, level) == {"includeThoughts": True, "thinkingLevel": "MINIMAL"}
    budget = StreamOptions(reasoning="high", provider_options={"thinking": {"budget_tokens": 0}})
    assert thinking_config(model, budget) == {"includeThoughts": True, "thinkingBudget": 0}
    off = StreamOptions(reasoning="high", provider_options={"thinking": {"enabled": False}})
    assert thinking_config(model, off) == {"thinkingBudget": 128}
    body = build_request(model, pi_sdk.Context(messages=[UserMessage(content="q")]), custom)
    assert body["generationConfig"]["thinkingConfig"]["thinkingBudget"] == 999


@pytest.mark.parametrize(
    ("signature", "valid"),
    [
        ("QUJD", True),
        ("QUJDRA==", True),
        ("a+b/c9==", True),
        (None, False),
        ("", False),
        ("QUJ", False),  # not a multiple of 4 characters
        ("QUJDR", False),
        ("QUJDRA=", False),
        ("QU!D", False),  # not base64
        ("QUJD====", False),  # more padding than base64 has
    ],
)
def test_a_thought_signature_is_kept_only_in_base64_shape(signature: str | None, valid: bool):
    """pi-mono ``isValidThoughtSignature``: non-empty, a multiple of 4 long, base64 characters."""
    assert is_valid_thought_signature(signature) is valid


# --- catalog models: levels clamped to the level map, then mapped (pi-ai 1.6) -----------------


@pytest.mark.parametrize(
    ("model_id", "level", "expected"),
    [
        ("gemini-3-flash-preview", "max", {"thinkingLevel": "HIGH"}),  # max: null -> high
        ("gemini-3-flash-preview", "xhigh", {"thinkingLevel": "HIGH"}),
        ("gemini-3-flash-preview", "minimal", {"thinkingLevel": "MINIMAL"}),
        ("gemini-3.1-pro-preview", "minimal", {"thinkingLevel": "LOW"}),  # minimal: null -> low
        ("gemini-3.1-pro-preview", "medium", {"thinkingLevel": "MEDIUM"}),
        ("gemini-3.1-pro-preview", "max", {"thinkingLevel": "HIGH"}),
        ("gemma-4-31b-it", "medium", {"thinkingLevel": "HIGH"}),  # medium: null -> up to HIGH
        ("gemma-4-31b-it", "max", {"thinkingLevel": "HIGH"}),
        ("gemini-2.5-pro", "max", {"thinkingBudget": 32768}),  # no map: max -> high
        ("gemini-2.5-flash", "max", {"thinkingBudget": 24576}),
        ("gemini-2.5-flash-lite", "minimal", {"thinkingBudget": 512}),
    ],
)
def test_catalog_levels_are_clamped_then_mapped(model_id: str, level: Any, expected: Any) -> None:
    model = pi_sdk.get_model("google", model_id)
    config = thinking_config(model, StreamOptions(reasoning=level))
    assert config == {"includeThoughts": True, **expected}


@pytest.mark.parametrize(
    ("model_id", "off"),
    [
        ("gemini-3-flash-preview", {"thinkingLevel": "MINIMAL"}),
        ("gemini-3.1-pro-preview", {"thinkingLevel": "LOW"}),
        ("gemini-4-hydrogen", {"thinkingLevel": "LOW"}),
        ("gemma-4-31b-it", {"thinkingLevel": "MINIMAL"}),
    ],
)
def test_catalog_models_turn_off_to_their_lowest_level(model_id: str, off: Any) -> None:
    model = pi_sdk.get_model("google", model_id)
    assert thinking_config(model, StreamOptions()) == off


def test_a_level_map_entry_gemini_lacks_is_a_clear_error() -> None:
    model = pi_sdk.get_model("google", "gemini-4-hydrogen")  # xhigh: "xhigh" (pi-ai 1.6 raises)
    with pytest.raises(pi_sdk.ConfigurationError, match="google/gemini-4-hydrogen: xhigh"):
        thinking_config(model, StreamOptions(reasoning="xhigh"))
    assert thinking_config(model, StreamOptions(reasoning="high")) == {
        "includeThoughts": True,
        "thinkingLevel": "HIGH",
    }


@pytest.mark.parametrize("tools", [None, []])
def test_without_tools_there_is_no_tools_list_and_nothing_goes_strict(tools: Any) -> None:
    context = pi_sdk.Context(messages=[UserMessage(content="hi")], tools=tools)
    assert convert_tools(context, gemini("gemini-3-pro-preview")) == (None, False)
