"""Chat Completions body fields, one compat flag or option at a time (pi-ai 1.6 ``buildParams``).

A plain host's body is ``model``, ``messages``, ``stream``, ``stream_options: {include_usage}``,
``store: false`` and ``max_completion_tokens``; each row changes one flag or option and
states the whole set of top-level fields that changes: a field must appear exactly where its
flag says and nowhere else.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai.completions import build_payload

import pi_sdk
from pi_sdk import Context, StreamOptions, Tool, UserMessage

TOOL = Tool(name="f", description="F.", parameters={"type": "object", "properties": {}})
PLAIN = {
    "model": "m",
    "messages": [{"role": "user", "content": "hi"}],
    "stream": True,
    "stream_options": {"include_usage": True},
    "store": False,
    "max_completion_tokens": 1000,
}


def _body(
    compat: dict[str, Any] | None = None,
    base_url: str = "https://llm.acme.test/v1",
    tools: list[Tool] | None = None,
    **options: Any,
) -> dict[str, Any]:
    model = pi_sdk.Model(
        id="m",
        api="openai-completions",
        provider="acme",
        base_url=base_url,
        max_tokens=1000,
        compat={"supportsDeveloperRole": False, **(compat or {})},
    )
    context = Context(messages=[UserMessage(content="hi")], tools=tools)
    body = build_payload(model, context, StreamOptions(**options))
    if tools:
        del body["tools"]  # converted tools are tested elsewhere
    return body


def test_a_plain_host() -> None:
    assert _body() == PLAIN


@pytest.mark.parametrize(
    ("compat", "options", "changes", "removed"),
    [
        ({"supportsUsageInStreaming": False}, {}, {}, ["stream_options"]),
        ({"supportsStore": False}, {}, {}, ["store"]),
        ({"maxTokensField": "max_tokens"}, {}, {"max_tokens": 1000}, ["max_completion_tokens"]),
        ({}, {"max_tokens": 77}, {"max_completion_tokens": 77}, []),
        ({}, {"temperature": 0.0}, {"temperature": 0.0}, []),
        ({"vllmPriority": 0}, {}, {"priority": 0}, []),
        ({"vllmPriority": -2.5}, {}, {"priority": -2.5}, []),
        ({}, {"tool_choice": "none"}, {"tool_choice": "none"}, []),
        ({}, {"provider_options": {"tool_choice": "required"}}, {"tool_choice": "required"}, []),
        ({"openRouterRouting": {"only": ["a"]}}, {}, {}, []),  # not openrouter.ai: not sent
        ({"vercelGatewayRouting": {"only": ["a"]}}, {}, {}, []),
    ],
)
def test_one_flag_or_option_at_a_time(
    compat: dict[str, Any], options: dict[str, Any], changes: dict[str, Any], removed: list[str]
) -> None:
    expected = {k: v for k, v in PLAIN.items() if k not in removed} | changes
    assert _body(compat, **options) == expected


def test_openrouter_routing_only_on_openrouter() -> None:
    body = _body(
        {"openRouterRouting": {"only": ["a"], "order": ["b"]}}, "https://openrouter.ai/api/v1"
    )
    assert body["provider"] == {"only": ["a"], "order": ["b"]}
    assert "provider" not in _body({}, "https://openrouter.ai/api/v1")


@pytest.mark.parametrize(
    ("routing", "gateway"),
    [
        ({"only": ["a"]}, {"only": ["a"]}),
        ({"order": ["b"]}, {"order": ["b"]}),
        ({"only": ["a"], "order": ["b"], "other": 1}, {"only": ["a"], "order": ["b"]}),
        ({"only": [], "order": ["b"]}, {"order": ["b"]}),
        ({"only": [], "order": []}, None),
        ({}, None),
    ],
)
def test_vercel_gateway_routing(routing: dict[str, Any], gateway: dict[str, Any] | None) -> None:
    body = _body({"vercelGatewayRouting": routing}, "https://ai-gateway.vercel.sh/v1")
    assert body.get("providerOptions") == (None if gateway is None else {"gateway": gateway})


def test_tool_stream_only_with_tools_and_the_flag() -> None:
    model_fields = {"zaiToolStream": True}
    assert _body(model_fields, tools=[TOOL])["tool_stream"] is True
    assert "tool_stream" not in _body(model_fields)
    assert "tool_stream" not in _body({}, tools=[TOOL])
