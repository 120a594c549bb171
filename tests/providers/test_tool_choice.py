"""Provider-neutral ``StreamOptions.tool_choice`` (pi-ai 0.73 ``toolChoice``): each wire API's body.

``"auto"`` / ``"none"`` / ``"required"`` / ``{"name": tool}`` map to each API's own field; a
``provider_options["tool_choice"]`` in the API's shape still wins; a bad value is a clear error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pi_sdk_anthropic.messages._request import build_request as anthropic_body
from pi_sdk_bedrock.converse._request import build_request as bedrock_body
from pi_sdk_google._shared_request import build_request as google_body
from pi_sdk_mistral.conversations._request import build_request as mistral_body
from pi_sdk_openai.completions._request import build_payload as chat_body
from pi_sdk_openai.responses._request import build_payload as responses_body

from pi_sdk import ConfigurationError, Context, Model, StreamOptions, Tool, UserMessage

TOOL = Tool(name="get_weather", parameters={"type": "object", "properties": {}})
CTX = Context(messages=[UserMessage(content="hi")], tools=[TOOL])


def model(api: str, provider: str, model_id: str) -> Model:
    return Model(id=model_id, api=api, provider=provider, base_url="https://vendor.test/v1")


Body = Callable[..., dict[str, Any]]

# api -> (body builder, provider, model id, where the choice lands in the body)
APIS: dict[str, tuple[Body, str, str, str]] = {
    "anthropic-messages": (anthropic_body, "anthropic", "claude-x", "tool_choice"),
    "openai-completions": (chat_body, "openai", "gpt-4o", "tool_choice"),
    "openai-responses": (responses_body, "openai", "gpt-4o", "tool_choice"),
    "google-generative-ai": (google_body, "google", "gemini-2.0-flash", "toolConfig"),
    "bedrock-converse-stream": (bedrock_body, "amazon-bedrock", "amazon.nova-x", "toolChoice"),
    "mistral-conversations": (mistral_body, "mistral", "mistral-x", "tool_choice"),
}


def sent(api: str, options: StreamOptions) -> Any:
    """What the API's body says about tool choice (Bedrock: ``"no tools"`` without toolConfig)."""
    build, provider, model_id, key = APIS[api]
    body = build(model(api, provider, model_id), CTX, options)
    if api == "bedrock-converse-stream":
        return body["toolConfig"].get(key) if "toolConfig" in body else "no tools"
    return body.get(key)


NAMED = {"name": "get_weather"}
EXPECTED: dict[str, dict[str, Any]] = {
    "anthropic-messages": {
        "auto": {"type": "auto"}, "none": {"type": "none"}, "required": {"type": "any"},
        "named": {"type": "tool", "name": "get_weather"},
    },
    "openai-completions": {
        "auto": "auto", "none": "none", "required": "required",
        "named": {"type": "function", "function": {"name": "get_weather"}},
    },
    "openai-responses": {
        "auto": "auto", "none": "none", "required": "required",
        "named": {"type": "function", "name": "get_weather"},
    },
    "google-generative-ai": {
        "auto": {"functionCallingConfig": {"mode": "AUTO"}},
        "none": {"functionCallingConfig": {"mode": "NONE"}},
        "required": {"functionCallingConfig": {"mode": "ANY"}},
        "named": {"functionCallingConfig": {"mode": "ANY",
                                            "allowedFunctionNames": ["get_weather"]}},
    },
    "bedrock-converse-stream": {
        "auto": {"auto": {}}, "none": "no tools", "required": {"any": {}},
        "named": {"tool": {"name": "get_weather"}},
    },
    "mistral-conversations": {
        "auto": "auto", "none": "none", "required": "required",
        "named": {"type": "function", "function": {"name": "get_weather"}},
    },
}  # fmt: skip


@pytest.mark.parametrize("api", sorted(APIS))
@pytest.mark.parametrize("choice", ["auto", "none", "required", "named"])
def test_tool_choice_is_mapped_per_wire_api(api: str, choice: str) -> None:
    value: Any = NAMED if choice == "named" else choice
    assert sent(api, StreamOptions(tool_choice=value)) == EXPECTED[api][choice]


@pytest.mark.parametrize("api", sorted(APIS))
def test_unset_sends_the_apis_default_and_bad_values_are_errors(api: str) -> None:
    assert sent(api, StreamOptions()) is None
    for bad in ("sometimes", {"name": ""}, {"tool": "x"}):
        with pytest.raises(ConfigurationError, match="tool_choice must be"):
            sent(api, StreamOptions(tool_choice=bad))  # type: ignore[arg-type]


def test_provider_options_in_the_apis_shape_win() -> None:
    options = StreamOptions(tool_choice="required", provider_options={"tool_choice": "auto"})
    assert sent("anthropic-messages", options) == {"type": "auto"}
    options = StreamOptions(tool_choice="none", provider_options={"tool_choice": "required"})
    assert sent("openai-completions", options) == "required"
