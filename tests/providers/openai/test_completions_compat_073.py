"""pi-ai 0.73's newer Chat Completions compat flags, checked on request bodies and headers.

``thinkingFormat`` ``deepseek`` / ``openrouter``, ``zaiToolStream``, ``cacheControlFormat``,
``supportsLongCacheRetention`` and ``sendSessionAffinityHeaders``, as 0.73's
``openai-completions.js`` (``buildParams``, ``createClient``, ``detectCompat``) sends them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support import openai_fakes as fakes
from _support.models import model_maker
from _support.openai_fakes import BASE
from pi_sdk_openai.completions import build_payload, resolve_compat

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, UserMessage

TOOLS = [pi_sdk.Tool(name="a"), pi_sdk.Tool(name="b")]
OK = (
    b'data: {"id":"x","model":"m","choices":[{"index":0,"delta":{"content":"ok"},'
    b'"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
)


model = model_maker(
    {
        "id": "some-model",
        "api": "openai-completions",
        "provider": "custom",
        "base_url": "https://llm.example.test/v1",
        "reasoning": True,
    }
)


def body(m: Model, context: Context | None = None, **options: Any) -> dict[str, Any]:
    context = context or Context(messages=[UserMessage(content="hi")])
    return build_payload(m, context, StreamOptions(**options))


# --- thinkingFormat ---------------------------------------------------------------------------


def test_deepseek_format_switches_thinking_and_sends_the_effort():
    m = model(base_url="https://api.deepseek.com")
    on = body(m, reasoning="high")
    assert on["thinking"] == {"type": "enabled"} and on["reasoning_effort"] == "high"
    off = body(m)
    assert off["thinking"] == {"type": "disabled"} and "reasoning_effort" not in off
    mapped = model(base_url="https://api.deepseek.com", thinking_level_map={"high": "max"})
    assert body(mapped, reasoning="high")["reasoning_effort"] == "max"


def test_openrouter_format_sends_a_reasoning_object():
    m = model(provider="openrouter", base_url="https://openrouter.ai/api/v1")
    assert resolve_compat(m).thinking_format == "openrouter"
    on = body(m, reasoning="low")
    assert on["reasoning"] == {"effort": "low"} and "reasoning_effort" not in on
    assert body(m)["reasoning"] == {"effort": "none"}  # off says so
    quiet = m.model_copy(update={"thinking_level_map": {"off": None}})
    assert "reasoning" not in body(quiet)  # a model that cannot turn thinking off: nothing
    minimal = m.model_copy(update={"thinking_level_map": {"off": "minimal"}})
    assert body(minimal)["reasoning"] == {"effort": "minimal"}
    assert "reasoning" not in body(m.model_copy(update={"reasoning": False}))


def test_thinking_format_from_model_compat():
    m = model(compat={"thinkingFormat": "deepseek"})
    assert body(m, reasoning="medium")["thinking"] == {"type": "enabled"}
    with pytest.raises(pi_sdk.ConfigurationError, match="thinking_format"):
        resolve_compat(model(compat={"thinkingFormat": "anthropic"}))


def test_openai_format_sends_the_models_off_value():
    m = model(thinking_level_map={"off": "none"})
    assert body(m)["reasoning_effort"] == "none"
    assert "reasoning_effort" not in body(model())


# --- zaiToolStream ----------------------------------------------------------------------------


def test_zai_tool_stream_only_with_tools():
    m = model(
        provider="zai", base_url="https://api.z.ai/api/paas/v4", compat={"zaiToolStream": True}
    )
    with_tools = body(m, Context(messages=[UserMessage(content="hi")], tools=TOOLS))
    assert with_tools["tool_stream"] is True
    assert "tool_stream" not in body(m)
    assert "tool_stream" not in body(model(provider="zai", base_url="https://api.z.ai/api/paas/v4"))


# --- cacheControlFormat -----------------------------------------------------------------------


def claude_on_openrouter(**fields: Any) -> Model:
    return model(
        provider="openrouter",
        id="anthropic/claude-sonnet-4.5",
        base_url="https://openrouter.ai/api/v1",
        **fields,
    )


def context_with_prompt() -> Context:
    return Context(
        system_prompt="be brief",
        messages=[UserMessage(content="one"), UserMessage(content="two")],
        tools=TOOLS,
    )


def test_anthropic_cache_markers_on_prompt_last_tool_and_last_text():
    sent = body(claude_on_openrouter(), context_with_prompt())
    marker = {"type": "ephemeral"}
    prompt, first, last = sent["messages"]
    assert prompt["content"] == [{"type": "text", "text": "be brief", "cache_control": marker}]
    assert first["content"] == "one"
    assert last["content"] == [{"type": "text", "text": "two", "cache_control": marker}]
    assert "cache_control" not in sent["tools"][0] and sent["tools"][1]["cache_control"] == marker


def test_anthropic_cache_markers_follow_the_cache_retention():
    long = body(claude_on_openrouter(), context_with_prompt(), cache_retention="long")
    assert long["tools"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    none = body(claude_on_openrouter(), context_with_prompt(), cache_retention="none")
    assert "cache_control" not in json.dumps(none)
    by_hand = model(compat={"cacheControlFormat": "anthropic"})
    assert body(by_hand, context_with_prompt())["tools"][-1]["cache_control"]


# --- supportsLongCacheRetention and prompt_cache_key ------------------------------------------


def test_long_cache_retention_sends_the_session_as_cache_key_for_24h():
    sent = body(model(), cache_retention="long", session_id="s-1")
    assert sent["prompt_cache_key"] == "s-1" and sent["prompt_cache_retention"] == "24h"
    short = body(model(), session_id="s-1")
    assert "prompt_cache_key" not in short and "prompt_cache_retention" not in short
    openai = model(base_url="https://api.openai.com/v1")
    assert body(openai, session_id="s-1")["prompt_cache_key"] == "s-1"
    assert "prompt_cache_key" not in body(openai, session_id="s-1", cache_retention="none")


def test_cloudflare_or_compat_without_long_retention():
    cloudflare = model(base_url="https://gateway.ai.cloudflare.com/v1/acct/gw/compat")
    assert not resolve_compat(cloudflare).supports_long_cache_retention
    for m in (cloudflare, model(compat={"supportsLongCacheRetention": False})):
        sent = body(m, cache_retention="long", session_id="s-1")
        assert "prompt_cache_key" not in sent and "prompt_cache_retention" not in sent


# --- sendSessionAffinityHeaders ---------------------------------------------------------------


async def test_session_affinity_headers_carry_the_session_id():
    m = model(base_url=BASE, compat={"sendSessionAffinityHeaders": True})
    _, _, transport = await fakes.run(
        m, OK, session_id="sess-9", headers={"x-session-affinity": "mine"}
    )
    headers = transport.requests[0].headers
    assert headers["session_id"] == "sess-9" and headers["x-client-request-id"] == "sess-9"
    assert headers["x-session-affinity"] == "mine"  # the caller's headers win


async def test_no_session_affinity_headers_when_off_or_without_cache():
    on = model(base_url=BASE, compat={"sendSessionAffinityHeaders": True})
    _, _, transport = await fakes.run(on, OK, session_id="sess-9", cache_retention="none")
    _, _, plain = await fakes.run(model(base_url=BASE), OK, session_id="sess-9")
    for sent in (transport, plain):
        assert "session_id" not in sent.requests[0].headers
        assert "x-session-affinity" not in sent.requests[0].headers


# --- pi-ai 0.73's catalog compat objects are understood ---------------------------------------


@pytest.mark.parametrize(
    "compat",
    [
        {"requiresReasoningContentOnAssistantMessages": True, "thinkingFormat": "deepseek"},
        {"sendSessionAffinityHeaders": True},
        {"supportsDeveloperRole": False, "thinkingFormat": "zai", "zaiToolStream": True},
        {"cacheControlFormat": "anthropic", "supportsLongCacheRetention": False},
        {"thinkingFormat": "openrouter"},
    ],
)
def test_pi_ai_073_catalog_compat_objects_resolve(compat: dict[str, Any]):
    resolve_compat(model(compat=compat))


@pytest.mark.parametrize(
    ("form", "names"),
    [
        ("openai", ["session_id", "x-client-request-id", "x-session-affinity"]),
        ("openai-nosession", ["x-client-request-id", "x-session-affinity"]),
        ("openrouter", ["x-session-id"]),
    ],
)
def test_each_session_affinity_form_sends_its_headers_in_pi_ais_order(
    form: str, names: list[str]
) -> None:
    from pi_sdk_openai.completions import session_affinity_headers
    from pi_sdk_openai.completions._compat import CompletionsCompat

    compat = CompletionsCompat(send_session_affinity_headers=True, session_affinity_format=form)  # type: ignore[arg-type]
    headers = session_affinity_headers(compat, StreamOptions(session_id="s-1"))
    assert list(headers.items()) == [(name, "s-1") for name in names]
