"""Strict tools on every API: the vendors' documented request shapes (issue 29 item 4).

* Anthropic "Strict tool use": ``{"name", "description", "strict": true, "input_schema"}``,
  the schema closed; numeric bounds, ``maxItems`` and other listed keywords are refused (400).
* OpenAI Chat "Function calling": ``function.strict: true`` with every property required and
  ``additionalProperties: false`` (optional ones made nullable); Responses in
  ``test_responses_grammar_tools.py``.
* Bedrock Converse ``ToolSpecification.strict``.
* Mistral "Function calling": ``function.strict`` (pi-ai 1.6 leaves it off unless the model's
  compat opts in).
* Gemini 3+ (and Vertex): no per-tool flag; ``toolConfig.functionCallingConfig.mode:
  "VALIDATED"`` enforces the declarations' schemas (pi-ai 1.6).

``prefer`` is dropped silently where the model cannot; ``require`` there is a
:class:`pi_sdk.ConfigurationError` naming the tool and the model, before any request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pi_sdk_anthropic.messages import build_request as anthropic_body
from pi_sdk_bedrock.converse._request import build_request as bedrock_body
from pi_sdk_google._shared_request import build_request as google_body
from pi_sdk_mistral.conversations._request import build_request as mistral_body
from pi_sdk_openai.completions import build_payload as chat_body

import pi_sdk
from pi_sdk import ConfigurationError, Context, StreamOptions, Tool, UserMessage

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"],
}
STRICT_SCHEMA = {
    **SCHEMA,
    "properties": {
        "city": {"type": "string"},
        "days": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    },
    "required": ["city", "days"],
    "additionalProperties": False,
}
OPTIONS = StreamOptions(api_key="test-key")


def _tool(strict: str | None, schema: dict[str, Any] = SCHEMA) -> Tool:
    sampling = {"type": "json_schema", "strict": strict} if strict else None
    return Tool(name="forecast", description="A forecast", parameters=schema,
                constrained_sampling=sampling)  # fmt: skip


def _context(*tools: Tool) -> Context:
    return Context(messages=[UserMessage(content="Weather?")], tools=list(tools))


def _model(provider: str, model_id: str, **compat: Any) -> pi_sdk.Model:
    model = pi_sdk.get_model(provider, model_id)
    if compat:
        model = model.model_copy(update={"compat": {**(model.compat or {}), **compat}})
    return model


# --- per API: the body, the strict tool in it ---------------------------------------------------


def _anthropic(model: pi_sdk.Model, context: Context) -> dict[str, Any]:
    return anthropic_body(model, context, OPTIONS)["tools"][0]


def _chat(model: pi_sdk.Model, context: Context) -> dict[str, Any]:
    return chat_body(model, context, OPTIONS)["tools"][0]["function"]


def _bedrock(model: pi_sdk.Model, context: Context) -> dict[str, Any]:
    return bedrock_body(model, context, OPTIONS)["toolConfig"]["tools"][0]["toolSpec"]


def _mistral(model: pi_sdk.Model, context: Context) -> dict[str, Any]:
    return mistral_body(model, context, OPTIONS)["tools"][0]["function"]


Target = tuple[Callable[[pi_sdk.Model, Context], dict[str, Any]], str, str, dict[str, Any]]
TARGETS: dict[str, Target] = {
    "anthropic": (_anthropic, "anthropic", "claude-sonnet-4-5", {"supportsStrictTools": False}),
    "chat": (_chat, "openrouter", "anthropic/claude-opus-4.7:batch", {"supportsStrictMode": False}),
    "bedrock": (
        _bedrock,
        "amazon-bedrock",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        {"supportsStrictMode": False},
    ),
    "mistral": (_mistral, "mistral", "mistral-large-latest", {}),
}
"""(tool reader, provider, a model whose catalog compat takes strict tools (Mistral's opts in
below), the compat that turns them off)."""


def _capable(name: str) -> pi_sdk.Model:
    _, provider, model_id, _ = TARGETS[name]
    return _model(provider, model_id, **({"supportsStrictMode": True} if name == "mistral" else {}))


def _schema(name: str, entry: dict[str, Any]) -> dict[str, Any]:
    if name == "anthropic":
        return entry["input_schema"]
    if name == "bedrock":
        return entry["inputSchema"]["json"]
    return entry["parameters"]


@pytest.mark.parametrize("name", TARGETS)
@pytest.mark.parametrize("strict", ["prefer", "require"])
def test_a_strict_tool_goes_strict_with_a_closed_schema(name: str, strict: str) -> None:
    read = TARGETS[name][0]
    entry = read(_capable(name), _context(_tool(strict)))
    assert entry["strict"] is True
    assert _schema(name, entry) == STRICT_SCHEMA


@pytest.mark.parametrize("name", TARGETS)
def test_prefer_is_dropped_where_the_model_cannot(name: str) -> None:
    read, provider, model_id, off = TARGETS[name]
    entry = read(_model(provider, model_id, **off), _context(_tool("prefer")))
    assert entry.get("strict") in (None, False)
    assert _schema(name, entry) == SCHEMA


@pytest.mark.parametrize("name", TARGETS)
def test_require_where_the_model_cannot_names_the_tool_and_the_model(name: str) -> None:
    read, provider, model_id, off = TARGETS[name]
    with pytest.raises(ConfigurationError) as info:
        read(_model(provider, model_id, **off), _context(_tool("require")))
    assert f"'forecast' on {provider}/{model_id}" in str(info.value)


@pytest.mark.parametrize("name", TARGETS)
def test_a_tool_without_constraint_is_unchanged(name: str) -> None:
    entry = TARGETS[name][0](_capable(name), _context(_tool(None)))
    assert entry.get("strict") in (None, False)
    assert _schema(name, entry) == SCHEMA


def test_anthropic_refuses_numeric_bounds_in_strict_mode() -> None:
    bounded = {**SCHEMA, "properties": {"city": {"type": "string"}, "days": {"type": "integer",
               "minimum": 1}}}  # fmt: skip
    model = _capable("anthropic")
    assert "strict" not in _anthropic(model, _context(_tool("prefer", bounded)))
    with pytest.raises(ConfigurationError, match="minimum: 1 is unsupported"):
        _anthropic(model, _context(_tool("require", bounded)))
    chat = _chat(_capable("chat"), _context(_tool("require", bounded)))  # OpenAI takes it
    assert chat["strict"] is True


# --- Gemini / Vertex ------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["google", "google-vertex"])
def test_gemini_3_validates_strict_tools_and_2_drops_prefer(provider: str) -> None:
    gemini3 = _model(provider, "gemini-3-flash-preview")
    other = Tool(name="other", description="Not constrained")
    body = google_body(gemini3, _context(_tool("prefer"), other), OPTIONS)
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "VALIDATED"}}
    declared = body["tools"][0]["functionDeclarations"]
    assert declared[0]["parametersJsonSchema"]["required"] == ["city", "days"]
    assert declared[0]["parametersJsonSchema"]["additionalProperties"] is False
    assert "additionalProperties" not in declared[1]["parametersJsonSchema"]
    gemini2 = _model(provider, "gemini-2.5-flash")
    body = google_body(gemini2, _context(_tool("prefer")), OPTIONS)
    assert "toolConfig" not in body
    assert body["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"]["required"] == [
        "city"
    ]
    with pytest.raises(ConfigurationError, match=f"'forecast' on {provider}/gemini-2.5-flash"):
        google_body(gemini2, _context(_tool("require")), OPTIONS)


@pytest.mark.parametrize(
    ("choice", "mode"), [("auto", "VALIDATED"), ("none", "NONE"), ("required", "ANY")]
)
def test_gemini_tool_choice_none_and_any_win_over_validated(choice: str, mode: str) -> None:
    gemini3 = _model("google", "gemini-3-flash-preview")
    options = StreamOptions(api_key="test-key", tool_choice=choice)  # type: ignore[arg-type]
    body = google_body(gemini3, _context(_tool("require")), options)
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": mode}}


@pytest.mark.parametrize("value", [1, 1.0, "true"])
def test_mistral_strict_mode_opts_in_only_with_json_true(value: Any) -> None:
    # pi-ai 1.6 reads `compat.supportsStrictMode === true`: a 1 or "true" in a models.json is
    # not the boolean, so a preferred strict tool goes plain.
    _, provider, model_id, _ = TARGETS["mistral"]
    entry = _mistral(
        _model(provider, model_id, supportsStrictMode=value), _context(_tool("prefer"))
    )
    assert (entry["strict"], entry["parameters"]) == (False, SCHEMA)
