"""The mistral-conversations request: ids, messages, reasoning, options, recognizer, replay."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from _support.conformance import conformance_dir
from _support.models import described
from pi_sdk_mistral.conversations import (
    build_request,
    convert_messages,
    normalize_tool_call_id,
    recognize_request,
)
from pi_sdk_mistral.conversations._request import reasoning_fields

import pi_sdk
import pi_sdk._testing.replay as _replay
from pi_sdk import Context, StreamOptions, TextContent, ToolCall, UserMessage
from pi_sdk._testing.replay import load_cassette, plan_replay

MODEL = pi_sdk.Model(
    id="mistral-large-latest",
    api="mistral-conversations",
    provider="mistral",
    base_url="https://api.mistral.ai",
    input=["text", "image"],
    max_tokens=100_000,
)
VALID_ID = re.compile(r"[a-zA-Z0-9]{9}")
PDF = pi_sdk.DocumentContent(data="JVBERi0=", mime_type="application/pdf")


def assistant(*content: Any, model: pi_sdk.Model = MODEL, **fields: Any) -> pi_sdk.AssistantMessage:
    return pi_sdk.AssistantMessage(
        content=list(content),
        api=model.api,
        provider=model.provider,
        model=model.id,
        **fields,
    )


def foreign(*content: Any) -> pi_sdk.AssistantMessage:
    return pi_sdk.AssistantMessage(
        content=list(content), api="openai-responses", provider="openai", model="gpt-5"
    )


def test_tool_call_ids_follow_mistrals_rule() -> None:
    assert normalize_tool_call_id("abcDEF123", MODEL, foreign()) == "abcDEF123"
    assert normalize_tool_call_id("ab_cD-EF1.23", MODEL, foreign()) == "abcDEF123"
    long_id = "call_0123456789|fc_abcdef"
    derived = normalize_tool_call_id(long_id, MODEL, foreign())
    assert VALID_ID.fullmatch(derived)
    assert derived == normalize_tool_call_id(long_id, MODEL, foreign())  # deterministic
    assert derived != normalize_tool_call_id(long_id + "x", MODEL, foreign())


def test_foreign_history_gets_distinct_valid_ids_on_calls_and_results() -> None:
    calls = [ToolCall(id=f"toolu_{n:030d}", name="f", arguments={"n": n}) for n in range(3)]
    results = [
        pi_sdk.ToolResultMessage(
            tool_call_id=c.id, tool_name="f", content=[TextContent(text=str(i))]
        )
        for i, c in enumerate(calls)
    ]
    context = Context(messages=[UserMessage(content="go"), foreign(*calls), *results])
    messages = convert_messages(context, MODEL)
    sent = [c["id"] for c in messages[1]["tool_calls"]]
    assert all(VALID_ID.fullmatch(i) for i in sent)
    assert len(set(sent)) == 3
    assert [m["tool_call_id"] for m in messages[2:]] == sent


def test_messages_on_the_wire() -> None:
    image = pi_sdk.ImageContent(data="AAAA", mime_type="image/png")
    context = Context(
        messages=[
            UserMessage(content="plain"),
            UserMessage(content=[TextContent(text="look"), image]),
            assistant(
                pi_sdk.ThinkingContent(thinking="hmm", thinking_signature="sig-1"),
                pi_sdk.ThinkingContent(thinking="  "),
                TextContent(text="calling"),
                ToolCall(id="abcDEF123", name="lookup", arguments={"q": "é"}),
            ),
            pi_sdk.ToolResultMessage(
                tool_call_id="abcDEF123",
                tool_name="lookup",
                content=[TextContent(text=" bad "), image],
                is_error=True,
            ),
        ]
    )
    assert convert_messages(context, MODEL) == [
        {"role": "user", "content": "plain"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": "data:image/png;base64,AAAA"},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "thinking": [{"type": "text", "text": "hmm"}],
                    "signature": "sig-1",
                },
                {"type": "text", "text": "calling"},
            ],
            "tool_calls": [
                {
                    "id": "abcDEF123",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": '{"q":"é"}'},
                    "index": 0,
                }
            ],
            "prefix": False,
        },
        {
            "role": "tool",
            "tool_call_id": "abcDEF123",
            "name": "lookup",
            "content": [
                {"type": "text", "text": "[tool error] bad"},
                {"type": "image_url", "image_url": "data:image/png;base64,AAAA"},
            ],
        },
    ]


@pytest.mark.parametrize(
    ("content", "is_error", "text"),
    [
        ([], False, "(no tool output)"),
        ([], True, "[tool error] (no tool output)"),
        ([pi_sdk.ImageContent(data="AA", mime_type="image/png")], False, "(see attached image)"),
        ([pi_sdk.ImageContent(data="AA", mime_type="image/png")], True,
         "[tool error] (see attached image)"),
        ([PDF], False, "(see attached document)"),
        ([PDF], True, "[tool error] (see attached document)"),
        ([PDF, pi_sdk.ImageContent(data="AA", mime_type="image/png")], False,
         "(see attached image)"),
        ([TextContent(text="  "), PDF], False, "(see attached document)"),
        ([TextContent(text=" 42\n"), PDF], True, "[tool error] 42"),
    ],
)  # fmt: skip
def test_tool_result_placeholders(content: list[Any], is_error: bool, text: str) -> None:
    context = Context(
        messages=[
            UserMessage(content="go"),
            assistant(ToolCall(id="abcDEF123", name="f", arguments={})),
            pi_sdk.ToolResultMessage(
                tool_call_id="abcDEF123", tool_name="f", content=content, is_error=is_error
            ),
        ]
    )
    assert convert_messages(context, MODEL)[-1]["content"][0] == {"type": "text", "text": text}


def test_foreign_thinking_is_dropped_or_text_and_unsigned_own_thinking_stays_thinking() -> None:
    context = Context(
        messages=[
            UserMessage(content="q"),
            foreign(pi_sdk.ThinkingContent(thinking="their thoughts", thinking_signature="enc")),
            UserMessage(content="q2"),
            assistant(pi_sdk.ThinkingContent(thinking="my thoughts"), TextContent(text="a")),
            UserMessage(content="q3"),
        ]
    )
    messages = convert_messages(context, MODEL, foreign_reasoning="text")
    assert messages[1]["content"] == [{"type": "text", "text": "their thoughts"}]
    assert messages[3]["content"][0] == {
        "type": "thinking",
        "thinking": [{"type": "text", "text": "my thoughts"}],
    }
    dropped = convert_messages(context, MODEL, foreign_reasoning="drop")
    assert [m["role"] for m in dropped] == ["user", "user", "assistant", "user"]


def test_final_assistant_turn_is_sent_as_a_prefix() -> None:
    context = Context(messages=[UserMessage(content="q"), assistant(TextContent(text="Sure, "))])
    assert convert_messages(context, MODEL)[-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Sure, "}],
        "prefix": True,
    }
    pending = Context(
        messages=[UserMessage(content="q"), assistant(ToolCall(id="abcDEF123", name="f"))]
    )
    assert convert_messages(pending, MODEL)[-1]["prefix"] is False
    answered = Context(
        messages=[
            UserMessage(content="q"),
            assistant(TextContent(text="a")),
            UserMessage(content="b"),
        ]
    )
    assert all(m.get("prefix", False) is False for m in convert_messages(answered, MODEL))


@pytest.mark.parametrize(
    ("model_id", "reasoning", "level", "compat", "expected"),
    [
        ("mistral-small-latest", True, "low", None, {"reasoning_effort": "high"}),
        ("mistral-medium-3.5", True, "xhigh", None, {"reasoning_effort": "high"}),
        (
            "mistral-small-2603",
            True,
            "low",
            {"thinkingLevelMap": {"low": "low"}},
            {"reasoning_effort": "low"},
        ),
        ("magistral-medium-latest", True, "medium", None, {"prompt_mode": "reasoning"}),
        ("magistral-medium-latest", True, None, None, {}),
        ("mistral-large-latest", False, "high", None, {}),
    ],
)
def test_reasoning_levels_map_as_pi_ai(
    model_id: str,
    reasoning: bool,
    level: Any,
    compat: dict[str, Any] | None,
    expected: dict[str, str],
) -> None:
    model = MODEL.model_copy(update={"id": model_id, "reasoning": reasoning, "compat": compat})
    assert reasoning_fields(model, StreamOptions(reasoning=level)) == expected


def test_build_request() -> None:
    tool = pi_sdk.Tool(name="f", description="d", parameters={"type": "object", "properties": {}})
    context = Context(system_prompt="be brief", messages=[UserMessage(content="hi")], tools=[tool])
    options = StreamOptions(
        temperature=0.2,
        provider_options={"tool_choice": "any", "safe_prompt": True, "random_seed": 7},
    )
    assert build_request(MODEL, context, options) == {
        "model": "mistral-large-latest",
        "stream": True,
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "hi"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "f",
                    "description": "d",
                    "parameters": {"type": "object", "properties": {}},
                    "strict": False,
                },
            }
        ],
        "temperature": 0.2,
        "max_tokens": MODEL.max_tokens,  # pi-ai 1.6: no 32,000 cap
        "tool_choice": "any",
        "safe_prompt": True,
        "random_seed": 7,
    }
    capped = build_request(MODEL, context, StreamOptions(max_tokens=50))
    assert capped["max_tokens"] == 50
    explicit = StreamOptions(reasoning="high", provider_options={"prompt_mode": None})
    magistral = MODEL.model_copy(update={"id": "magistral-small", "reasoning": True})
    assert build_request(magistral, context, explicit)["prompt_mode"] is None


def test_unknown_provider_option_is_a_clear_error() -> None:
    options = StreamOptions(provider_options={"tool_chioce": "any"})
    with pytest.raises(pi_sdk.ConfigurationError, match="tool_chioce"):
        build_request(MODEL, Context(messages=[UserMessage(content="x")]), options)


def test_recognize_request() -> None:
    body = {"model": "mistral-small-latest", "messages": []}
    model = recognize_request("POST", "https://api.mistral.ai/v1/chat/completions#stream", body)
    expected = ("mistral-conversations", "mistral", "https://api.mistral.ai")
    assert described(model, "api", "provider", "base_url") == expected
    assert model is not None and model.cost.input == 0.15  # catalog data kept
    unknown = recognize_request(
        "POST", "https://api.mistral.ai/v1/chat/completions", {"model": "magistral-x"}
    )
    assert unknown is not None and unknown.reasoning and unknown.provider == "mistral"
    assert recognize_request("POST", "https://api.openai.com/v1/chat/completions", body) is None
    assert recognize_request("GET", "https://api.mistral.ai/v1/chat/completions", body) is None
    assert recognize_request("put", "https://api.mistral.ai/v1/chat/completions", body) is None
    assert recognize_request("POST", "https://api.mistral.ai/v1/embeddings", body) is None
    assert recognize_request("POST", "https://api.mistral.ai/v1/chat/completions", {}) is None


@pytest.mark.parametrize("order", ["registered", "reversed"])
def test_replay_picks_the_mistral_api_for_a_mistral_recording(
    order: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The OpenAI-compatible recognizer also takes this request (provider: the host name); the
    # one that names a catalog provider wins, whatever the registration order.
    root = conformance_dir()
    if root is None:
        pytest.skip("conformance folder absent")
    providers = pi_sdk.get_api_providers()
    if order == "reversed":
        monkeypatch.setattr(_replay, "get_api_providers", lambda: providers[::-1])
    cassette: Path = root / "mistral-conversations" / "thinking_nonstream_replayed_history.yaml"
    interactions = load_cassette(cassette)
    completions = pi_sdk.get_api_provider("openai-completions")
    assert completions.recognize is not None
    assert completions.recognize("POST", interactions[0].uri, interactions[0].body) is not None
    plan = plan_replay(interactions)
    assert [(p.api, m.provider) for _, p, m in plan] == [("mistral-conversations", "mistral")]


def test_a_turn_with_nothing_to_send_is_left_out() -> None:
    from pi_sdk_mistral.conversations._request import _assistant

    blank = assistant(TextContent(text=" \n"), pi_sdk.ThinkingContent(thinking="  "))
    assert _assistant(blank) is None
    assert _assistant(assistant()) is None
    context = Context(messages=[UserMessage(content="q"), blank, UserMessage(content="q2")])
    assert [m["role"] for m in convert_messages(context, MODEL)] == ["user", "user"]


@pytest.mark.parametrize(
    ("in_place", "sent"),
    [
        (True, [{"role": "user", "content": "q"}, {"role": "system", "content": "Be terse."},
                {"role": "user", "content": "q2"}]),
        (False, [{"role": "user", "content": "q"}, {"role": "user", "content": "q2"}]),
    ],
)  # fmt: skip
def test_later_system_messages_go_in_place_where_the_model_takes_them(
    in_place: bool, sent: list[dict[str, Any]]
) -> None:
    model = MODEL.model_copy(update={"compat": {"supportsMidConvoSystemMessages": in_place}})
    tool = pi_sdk.Tool(name="t", description="d", parameters={"type": "object"})
    context = Context(
        system_prompt="P",
        messages=[
            UserMessage(content="q"),
            pi_sdk.SystemMessage(content="Be terse."),
            pi_sdk.SystemMessage(tools_added=[tool]),  # no text: no message
            UserMessage(content="q2"),
        ],
    )
    assert convert_messages(context, model) == sent


@pytest.mark.parametrize(
    ("options", "key"),
    [
        ({"session_id": "s-1"}, "s-1"),
        ({"session_id": "s-1", "cache_retention": "long"}, "s-1"),
        ({"session_id": "s-1", "cache_retention": "none"}, None),
        ({"session_id": ""}, None),
        ({}, None),
        ({"session_id": "s-1", "provider_options": {"prompt_cache_key": "mine"}}, "mine"),
    ],
)
def test_the_prompt_cache_key_is_the_session_unless_caching_is_off(
    options: dict[str, Any], key: str | None
) -> None:
    context = Context(messages=[UserMessage(content="hi")])
    body = build_request(MODEL, context, StreamOptions(**options))
    assert body.get("prompt_cache_key") == key


@pytest.mark.parametrize(
    ("method", "uri", "body", "base_url", "reasoning"),
    [
        ("POST", "https://codestral.mistral.ai/v1/chat/completions", {"model": "codestral-x"},
         "https://codestral.mistral.ai", False),
        ("post", "https://API.Mistral.AI/v1/chat/completions/?stream=1", {"model": "magistral-y"},
         "https://API.Mistral.AI", True),
        ("POST", "https://api.mistral.ai/proxy/v1/chat/completions", {"model": "m"},
         "https://api.mistral.ai/proxy", False),
        ("POST", "https://evilmistral.ai/v1/chat/completions", {"model": "m"}, None, None),
        ("POST", "https://mistral.ai.example/v1/chat/completions", {"model": "m"}, None, None),
        ("POST", "https://mistral.ai/v1/chat/completions", {"model": "m"},
         "https://mistral.ai", False),
        ("POST", "https://api.mistral.ai/v1/chat/completions", {"model": ""}, None, None),
        ("POST", "https://api.mistral.ai/v1/chat/completions", {"model": 7}, None, None),
        ("POST", "https://api.mistral.ai/v1/chat/completions", ["model"], None, None),
    ],
)  # fmt: skip
def test_which_recorded_requests_are_mistrals(
    method: str, uri: str, body: Any, base_url: str | None, reasoning: bool | None
) -> None:
    model = recognize_request(method, uri, body)
    if base_url is None:
        assert model is None
        return
    assert model is not None
    assert (model.api, model.provider, model.base_url) == ("mistral-conversations", "mistral",
                                                            base_url)  # fmt: skip
    assert model.reasoning is reasoning


@pytest.mark.parametrize(
    ("options", "affinity"),
    [
        ({"session_id": "s-1"}, "s-1"),
        ({"session_id": "s-1", "cache_retention": "long"}, "s-1"),
        ({"session_id": "s-1", "cache_retention": "none"}, None),  # pi-ai 1.6: no caching, none
        ({"session_id": ""}, None),
        ({}, None),
        ({"session_id": "s-1", "headers": {"X-Affinity": "mine"}}, "mine"),
        ({"session_id": "s-1", "cache_retention": "none", "headers": {"x-affinity": "mine"}},
         "mine"),
    ],
)  # fmt: skip
def test_x_affinity_carries_the_session_while_caching_is_on(
    options: dict[str, Any], affinity: str | None
) -> None:
    from pi_sdk_mistral._client import build_headers

    headers = {k.lower(): v for k, v in build_headers(MODEL, StreamOptions(**options)).items()}
    assert headers.get("x-affinity") == affinity
