"""``StreamOptions.server_tools``: one neutral name, each API's own tool in the request.

Where a recording of ``../shared/conformance-next`` declared the same tool, the definition we
send is the one the recorded request sent (the vendor answered 200 with the tool's blocks).
"""

from __future__ import annotations

import json
from typing import Any, cast

import pytest
from _support.conformance import next_cases, skip_without_next
from pi_sdk_anthropic.messages import build_request as anthropic_body
from pi_sdk_bedrock.converse import build_request as bedrock_body
from pi_sdk_google._shared_request import build_request as google_body
from pi_sdk_openai.completions import build_payload as chat_body
from pi_sdk_openai.responses import build_payload as responses_body

import pi_sdk
from pi_sdk import ConfigurationError, Context, StreamOptions, UserMessage
from pi_sdk._testing.replay import load_cassette

CLAUDE = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")
GPT = pi_sdk.get_model("openai", "gpt-5")
GEMINI = pi_sdk.get_model("google", "gemini-2.5-flash")
NOVA = pi_sdk.Model(
    id="us.amazon.nova-2-lite-v1:0",
    api="bedrock-converse-stream",
    provider="amazon-bedrock",
    base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
)
BEDROCK_CLAUDE = NOVA.model_copy(update={"id": "us.anthropic.claude-sonnet-4-20250514-v1:0"})
OPENROUTER = pi_sdk.Model(
    id="deepseek/deepseek-chat",
    api="openai-completions",
    provider="openrouter",
    base_url="https://openrouter.ai/api/v1",
)
CONTEXT = Context(messages=[UserMessage(content="q")])
TOOL = pi_sdk.Tool(name="lookup", description="Look up", parameters={"type": "object"})


def _body(model: pi_sdk.Model, *tools: Any, context: Context = CONTEXT) -> dict[str, Any]:
    options = StreamOptions(api_key="k", server_tools=list(tools), cache_retention="none")
    build = {
        "anthropic-messages": anthropic_body,
        "openai-responses": responses_body,
        "openai-completions": chat_body,
        "google-generative-ai": google_body,
        "bedrock-converse-stream": bedrock_body,
    }[model.api]
    return cast(dict[str, Any], build(model, context, options))


def _tools(model: pi_sdk.Model, *tools: Any, context: Context = CONTEXT) -> list[Any]:
    body = _body(model, *tools, context=context)
    if model.api == "bedrock-converse-stream":
        return body["toolConfig"]["tools"]
    return body["tools"]


def _no_nulls(value: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if v is not None and k != "cache_control"}


def _recorded(api: str, name: str) -> list[dict[str, Any]]:
    """The tools the recorded request of ``api``/``name`` declared (skip when absent)."""
    cases = [c for c in next_cases(api, "servertool_") if c.name == name]
    skip_without_next(cases)
    body = cast(dict[str, Any], load_cassette(cases[0].cassette)[0].body)
    tools = (
        body["toolConfig"]["tools"]
        if "toolConfig" in body and api.startswith("bedrock")
        else body["tools"]
    )
    return [_no_nulls(t) for t in tools]


@pytest.mark.parametrize(
    ("model", "names", "api", "recording"),
    [
        (CLAUDE, ["web_search"], "anthropic-messages", "servertool_websearch_citations_stream"),
        (CLAUDE, ["web_fetch"], "anthropic-messages", "servertool_webfetch_thinking_stream"),
        (
            CLAUDE,
            ["code_execution"],
            "anthropic-messages",
            "servertool_bash_code_execution_nonstream_container_reuse",
        ),
        (
            GPT,
            ["web_search"],
            "openai-responses",
            "servertool_websearch_annotations_stream_then_followup_stream",
        ),
        (GPT, ["code_execution"], "openai-responses", "servertool_code_interpreter_image_stream"),
        (
            GEMINI,
            ["web_search"],
            "google-generative-ai",
            "servertool_google_search_grounding_stream_then_followup_stream",
        ),
        (GEMINI, ["web_fetch"], "google-generative-ai", "servertool_url_context_nonstream"),
        (
            GEMINI,
            ["code_execution"],
            "google-generative-ai",
            "servertool_code_execution_nonstream_then_followup",
        ),
    ],
)
def test_a_neutral_name_sends_the_tool_the_recorded_request_declared(
    model: pi_sdk.Model, names: list[str], api: str, recording: str
):
    assert _tools(model, *names) == _recorded(api, recording)


def test_nova_system_tools_as_the_recorded_request_declared_them():
    recorded = _recorded(
        "bedrock-converse-stream", "servertool_nova_code_interpreter_nonstream_then_followup"
    )
    assert _tools(NOVA, "code_execution") == [t for t in recorded if "systemTool" in t]
    assert _tools(NOVA, "web_search") == [{"systemTool": {"name": "nova_grounding"}}]


def test_openrouter_web_search_is_its_server_tool():
    recorded = _recorded("openai-completions", "servertool_websearch_openrouter_annotations_stream")
    (tool,) = _tools(OPENROUTER, "web_search")
    assert tool["type"] == recorded[0]["type"] == "openrouter:web_search"


def test_server_tools_follow_the_callers_tools_and_vendor_definitions_go_as_they_are():
    context = Context(messages=CONTEXT.messages, tools=[TOOL])
    image = {"type": "image_generation", "output_format": "jpeg"}
    tools = _tools(GPT, "web_search", image, context=context)
    assert [t["type"] for t in tools] == ["function", "web_search", "image_generation"]
    assert tools[2] == image and tools[2] is not image
    gemini = _tools(GEMINI, "web_search", "web_fetch", context=context)
    assert [next(iter(t)) for t in gemini] == ["functionDeclarations", "googleSearch", "urlContext"]
    assert "tools" not in _body(GPT)  # none asked for: none sent


@pytest.mark.parametrize(
    ("model", "name", "offers"),
    [
        (GPT, "web_fetch", "web_search, code_execution"),
        (BEDROCK_CLAUDE, "web_search", "none"),
        (
            OPENROUTER.model_copy(update={"base_url": "https://api.openai.com/v1"}),
            "web_search",
            "none",
        ),
    ],
)
def test_a_name_the_api_has_no_tool_for_is_an_error_naming_the_model(
    model: pi_sdk.Model, name: str, offers: str
):
    with pytest.raises(ConfigurationError) as caught:
        _body(model, name)
    text = str(caught.value)
    assert f"{model.provider}/{model.id} ({model.api}) has no {name} server tool" in text
    assert f"(it offers: {offers})" in text


def test_an_unknown_name_lists_the_neutral_ones():
    with pytest.raises(ConfigurationError, match="web_search, web_fetch, code_execution"):
        _body(CLAUDE, "websearch")
    with pytest.raises(ConfigurationError, match="a name or a dict"):
        _body(CLAUDE, 42)
    assert json.dumps(_tools(CLAUDE, {"type": "memory_20250818", "name": "memory"}))
