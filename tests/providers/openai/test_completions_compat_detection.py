"""Chat Completions compat detection, row by row: each server alone, by its id and by each URL form.

``detect_compat`` (pi-ai 1.6 ``detectCompat``, read from tests/node's dist, plus local servers
and Kimi's reasoning replay) decides a server's flags from ``model.provider`` *or* a fragment of
``model.base_url``. Each row here names one server by one form only (the provider id with a
neutral URL, or a URL form with a neutral provider id), so every ``or`` of every rule is
reached alone, and compares the *whole* flag set with the neutral host's plus that server's
changes: a flag a server must not get is checked as much as the ones it gets. Near misses
(``z.ai`` without ``api.``, an upper-case host where pi-ai matches case-sensitively) get the
neutral flags, and where two servers match, the thinking format's order decides.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from pi_sdk_openai.completions import detect_compat
from pi_sdk_openai.completions._compat import CompletionsCompat

from pi_sdk import Model

NEUTRAL_PROVIDER = "acme"
NEUTRAL_URL = "https://llm.acme.test/v1"
NEUTRAL = CompletionsCompat(supports_developer_role=False)
"""A host no rule knows: OpenAI's wire, ``store`` and ``reasoning_effort`` sent, ``system`` role."""

_NO_STORE: dict[str, Any] = {"supports_store": False}
_MAX_TOKENS: dict[str, Any] = {"max_tokens_field": "max_tokens"}
_NO_EFFORT: dict[str, Any] = {"supports_reasoning_effort": False}
_NO_LONG_CACHE: dict[str, Any] = {"supports_long_cache_retention": False}

# server -> (provider ids, base URL forms, flags that differ from NEUTRAL)
SERVERS: dict[str, tuple[tuple[str, ...], tuple[str, ...], dict[str, Any]]] = {
    "zai": (
        ("zai", "zai-coding-cn"),
        ("https://api.z.ai/api/paas/v4", "https://open.bigmodel.cn/api/paas/v4"),
        {**_NO_STORE, **_MAX_TOKENS, **_NO_EFFORT, "thinking_format": "zai"},
    ),
    "together": (
        ("together",),
        ("https://api.together.ai/v1", "https://api.together.xyz/v1"),
        {**_NO_STORE, **_MAX_TOKENS, **_NO_EFFORT, **_NO_LONG_CACHE, "thinking_format": "together"},
    ),
    "moonshot": (
        ("moonshotai", "moonshotai-cn"),
        ("https://api.moonshot.ai/v1", "https://api.moonshot.cn/v1"),
        {**_NO_STORE, **_MAX_TOKENS, **_NO_EFFORT},
    ),
    "openrouter": (
        ("openrouter",),
        ("https://openrouter.ai/api/v1",),
        {
            "thinking_format": "openrouter",
            "send_session_affinity_headers": True,
            "session_affinity_format": "openrouter",
        },
    ),
    "cloudflare-workers-ai": (
        ("cloudflare-workers-ai",),
        ("https://api.cloudflare.com/client/v4/accounts/abc/ai/v1",),
        {**_NO_STORE, **_NO_LONG_CACHE},
    ),
    "cloudflare-ai-gateway": (
        ("cloudflare-ai-gateway",),
        ("https://gateway.ai.cloudflare.com/v1/abc/gw/compat",),
        {**_NO_STORE, **_MAX_TOKENS, **_NO_EFFORT, **_NO_LONG_CACHE},
    ),
    "nvidia": (
        ("nvidia",),
        ("https://integrate.api.nvidia.com/v1",),
        {**_NO_STORE, **_MAX_TOKENS, **_NO_EFFORT, **_NO_LONG_CACHE},
    ),
    "ant-ling": (
        ("ant-ling",),
        ("https://api.ant-ling.com/v1",),
        {**_NO_STORE, **_MAX_TOKENS, **_NO_EFFORT, **_NO_LONG_CACHE, "thinking_format": "ant-ling"},
    ),
    "cerebras": (("cerebras",), ("https://api.cerebras.ai/v1",), _NO_STORE),
    "deepseek": (
        ("deepseek",),
        ("https://api.deepseek.com/v1", "https://API.DeepSeek.COM/v1"),  # any case (pi-ai)
        {**_NO_STORE, **_MAX_TOKENS, "thinking_format": "deepseek"},
    ),
    "xai": (("xai",), ("https://api.x.ai/v1",), {**_NO_STORE, **_NO_EFFORT}),
    "chutes": ((), ("https://llm.chutes.ai/v1",), {**_NO_STORE, **_MAX_TOKENS}),
    "opencode": (("opencode",), ("https://opencode.ai/zen/v1",), _NO_STORE),
    "openai": (
        ("openai",),
        ("https://api.openai.com/v1",),
        {"supports_developer_role": True},
    ),
    "groq": (("groq",), ("https://api.groq.com/openai/v1",), {}),
    "local": (
        (),
        (
            "http://localhost:11434/v1",
            "http://127.0.0.1:1234/v1",
            "http://0.0.0.0:8080/v1",
            "http://[::1]:8000/v1",
            "http://host.docker.internal:11434/v1",
            "http://ollama.localhost/v1",
        ),
        {**_NO_STORE, **_MAX_TOKENS},
    ),
}


def _rows() -> list[Any]:
    rows: list[Any] = []
    for server, (providers, urls, changes) in SERVERS.items():
        for provider in providers:
            rows.append(pytest.param(provider, NEUTRAL_URL, changes, id=f"{server}-id-{provider}"))
        for url in urls:
            rows.append(pytest.param(NEUTRAL_PROVIDER, url, changes, id=f"{server}-url-{url}"))
    return rows


def _model(provider: str, url: str, model_id: str = "m-1", *, reasoning: bool = False) -> Model:
    return Model(
        id=model_id, api="openai-completions", provider=provider, base_url=url, reasoning=reasoning
    )


def test_a_host_no_rule_knows_gets_the_neutral_flags() -> None:
    assert detect_compat(_model(NEUTRAL_PROVIDER, NEUTRAL_URL)) == NEUTRAL


@pytest.mark.parametrize(("provider", "url", "changes"), _rows())
def test_each_server_by_each_of_its_names(provider: str, url: str, changes: dict[str, Any]):
    expected = dataclasses.replace(NEUTRAL, **changes)
    assert detect_compat(_model(provider, url)) == expected


@pytest.mark.parametrize(
    ("provider", "url"),
    [
        ("zai-coding", NEUTRAL_URL),  # not one of z.ai's ids
        (NEUTRAL_PROVIDER, "https://z.ai/v1"),  # api.z.ai only
        (NEUTRAL_PROVIDER, "https://API.Z.AI/v1"),  # hosts match case-sensitively (pi-ai)
        (NEUTRAL_PROVIDER, "https://together.ai/v1"),
        (NEUTRAL_PROVIDER, "https://moonshot.ai/v1"),
        (NEUTRAL_PROVIDER, "https://cloudflare.com/v1"),
        (NEUTRAL_PROVIDER, "https://ai.cloudflare.com/v1"),
        (NEUTRAL_PROVIDER, "https://build.nvidia.com/v1"),
        (NEUTRAL_PROVIDER, "https://x.ai/v1"),
        (NEUTRAL_PROVIDER, "https://openai.com/v1"),
        ("Deepseek", NEUTRAL_URL),  # provider ids match exactly
        ("moonshot", NEUTRAL_URL),
        (NEUTRAL_PROVIDER, "http://localhost.acme.test/v1"),  # not a host on this machine
        (NEUTRAL_PROVIDER, "http://[::1"),  # an unparsable URL is not local
    ],
)
def test_near_misses_get_the_neutral_flags(provider: str, url: str) -> None:
    assert detect_compat(_model(provider, url)) == NEUTRAL


def test_a_local_server_never_gets_the_developer_role() -> None:
    local = detect_compat(_model("openai", "http://localhost:8000/v1"))
    assert local == dataclasses.replace(NEUTRAL, **_NO_STORE, **_MAX_TOKENS)


@pytest.mark.parametrize(
    ("provider", "url", "thinking_format"),
    [
        ("openrouter", "https://api.deepseek.com/v1", "deepseek"),  # deepseek first
        ("deepseek", "https://api.z.ai/v1", "deepseek"),
        ("zai", "https://api.together.ai/v1", "zai"),  # then z.ai
        ("together", "https://api.ant-ling.com/v1", "together"),  # then together
        ("ant-ling", "https://openrouter.ai/api/v1", "ant-ling"),  # then Ant Ling, OpenRouter
    ],
)
def test_where_two_servers_match_the_thinking_format_goes_by_order(
    provider: str, url: str, thinking_format: str
) -> None:
    assert detect_compat(_model(provider, url)).thinking_format == thinking_format


@pytest.mark.parametrize(
    ("provider", "model_id", "cache_control_format"),
    [
        ("openrouter", "anthropic/claude-sonnet-4", "anthropic"),
        ("openrouter", "openai/gpt-5", None),
        ("openrouter", "claude-anthropic/x", None),  # the prefix, not a substring
        (NEUTRAL_PROVIDER, "anthropic/claude-sonnet-4", None),  # OpenRouter's id only
    ],
)
def test_anthropic_cache_control_only_for_openrouters_anthropic_models(
    provider: str, model_id: str, cache_control_format: str | None
) -> None:
    url = "https://openrouter.ai/api/v1"
    compat = detect_compat(_model(provider, url, model_id))
    assert compat.cache_control_format == cache_control_format


@pytest.mark.parametrize(
    ("provider", "url", "model_id", "mapped"),
    [
        ("groq", NEUTRAL_URL, "qwen/qwen3-32b", True),
        (NEUTRAL_PROVIDER, "https://api.groq.com/openai/v1", "qwen/qwen3-32b", True),
        ("groq", NEUTRAL_URL, "qwen/qwen3-235b", False),  # another id sorting before it
        ("groq", NEUTRAL_URL, "qwen/qwen3-32b-fast", False),  # and after it
        ("groq", NEUTRAL_URL, "qwen/qwen3-coder", False),
        ("groq", NEUTRAL_URL, json.loads('"qwen/qwen3-32b"'), True),  # an id read from JSON
        (NEUTRAL_PROVIDER, NEUTRAL_URL, "qwen/qwen3-32b", False),
    ],
)
def test_groq_qwen3_32b_maps_every_effort_to_default(
    provider: str, url: str, model_id: str, mapped: bool
) -> None:
    levels = ("minimal", "low", "medium", "high", "xhigh")
    expected = dict.fromkeys(levels, "default") if mapped else {}
    assert detect_compat(_model(provider, url, model_id)).reasoning_effort_map == expected


@pytest.mark.parametrize(
    ("provider", "url", "replay"),
    [
        ("deepseek", NEUTRAL_URL, "assistant"),
        (NEUTRAL_PROVIDER, "https://api.deepseek.com/v1", "assistant"),
        ("moonshotai", NEUTRAL_URL, "tool_calls"),
        ("moonshotai-cn", NEUTRAL_URL, "tool_calls"),
        (NEUTRAL_PROVIDER, "https://api.moonshot.ai/v1", "tool_calls"),
        ("zai", NEUTRAL_URL, None),
        (NEUTRAL_PROVIDER, NEUTRAL_URL, None),
    ],
)
def test_reasoning_replay_of_a_thinking_model(provider: str, url: str, replay: str | None):
    thinking = detect_compat(_model(provider, url, reasoning=True))
    plain = detect_compat(_model(provider, url, reasoning=False))
    assert (
        thinking.requires_reasoning_content,
        thinking.requires_reasoning_content_on_assistant_messages,
    ) == (replay == "tool_calls", replay == "assistant")
    # the rest of the flags do not depend on reasoning; a model that never thinks replays nothing
    assert (
        dataclasses.replace(
            thinking,
            requires_reasoning_content=False,
            requires_reasoning_content_on_assistant_messages=False,
        )
        == plain
    )
    assert not plain.requires_reasoning_content
    assert not plain.requires_reasoning_content_on_assistant_messages
