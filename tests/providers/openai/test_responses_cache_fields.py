"""Responses prompt-cache fields for every combination that changes them (pi-ai 1.6).

``prompt_cache_key`` (the session id) goes with a session unless the compat's key mode is
``disabled``, and on OpenAI only while caching is on (Azure always sends it). On OpenAI (not
Azure): with ``supportsExplicitPromptCacheMode``, ``prompt_cache_options`` is ``{mode:
explicit}`` for retention ``none`` and ``{ttl: 30m}`` for long retention where supported;
otherwise long retention where supported is ``prompt_cache_retention: "24h"``. The whole set of
cache fields is compared per row. Also the output cap (at least 16, left out where the compat
says the gateway rejects it, except on Azure) and ``service_tier``.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai.responses import build_payload

import pi_sdk
from pi_sdk import Context, StreamOptions, UserMessage

CACHE_FIELDS = ("prompt_cache_key", "prompt_cache_options", "prompt_cache_retention")
KEY = {"prompt_cache_key": "s-1"}


def _model(api: str = "openai-responses", **compat: Any) -> pi_sdk.Model:
    return pi_sdk.Model(
        id="gpt-x",
        api=api,
        provider="azure-openai-responses" if api.startswith("azure") else "openai",
        base_url="https://api.openai.com/v1",
        compat=compat or None,
        max_tokens=4096,
    )


def _body(model: pi_sdk.Model, **options: Any) -> dict[str, Any]:
    return build_payload(
        model, Context(messages=[UserMessage(content="hi")]), StreamOptions(**options)
    )


def _cache(model: pi_sdk.Model, **options: Any) -> dict[str, Any]:
    body = _body(model, **options)
    return {k: body[k] for k in CACHE_FIELDS if k in body}


EXPLICIT = {"supportsExplicitPromptCacheMode": True}
NO_LONG = {"supportsLongCacheRetention": False}
DISABLED = {"promptCacheKeyMode": "disabled"}


@pytest.mark.parametrize(
    ("compat", "session", "retention", "expected"),
    [
        ({}, True, "short", KEY),
        ({}, False, "short", {}),
        ({}, True, "none", {}),
        ({}, True, "long", {**KEY, "prompt_cache_retention": "24h"}),
        ({}, False, "long", {"prompt_cache_retention": "24h"}),
        (NO_LONG, True, "long", KEY),
        (DISABLED, True, "long", {"prompt_cache_retention": "24h"}),
        ({"promptCacheKeyMode": "enabled"}, True, "short", KEY),
        (EXPLICIT, True, "none", {"prompt_cache_options": {"mode": "explicit"}}),
        (EXPLICIT, True, "short", KEY),
        (EXPLICIT, True, "long", {**KEY, "prompt_cache_options": {"ttl": "30m"}}),
        ({**EXPLICIT, **NO_LONG}, True, "long", KEY),
        ({**EXPLICIT, **DISABLED}, True, "none", {"prompt_cache_options": {"mode": "explicit"}}),
    ],
)
def test_openai_cache_fields(
    compat: dict[str, Any], session: bool, retention: str, expected: dict[str, Any]
) -> None:
    options: dict[str, Any] = {"cache_retention": retention}
    if session:
        options["session_id"] = "s-1"
    assert _cache(_model(**compat), **options) == expected


@pytest.mark.parametrize(
    ("compat", "retention", "expected"),
    [
        ({}, "none", KEY),
        ({}, "long", KEY),
        (EXPLICIT, "none", KEY),
        (EXPLICIT, "long", KEY),
        (DISABLED, "short", {}),
    ],
)
def test_azure_sends_the_key_whatever_the_retention_and_no_retention_fields(
    compat: dict[str, Any], retention: str, expected: dict[str, Any]
) -> None:
    model = _model("azure-openai-responses", **compat)
    assert _cache(model, session_id="s-1", cache_retention=retention) == expected


def test_a_long_session_id_is_cut_to_the_key_limit() -> None:
    key = _body(_model(), session_id="x" * 100)["prompt_cache_key"]
    assert key == "x" * 64


@pytest.mark.parametrize(
    ("api", "compat", "max_tokens", "sent"),
    [
        ("openai-responses", {}, 500, 500),
        ("openai-responses", {}, 3, 16),  # OpenAI's minimum
        ("openai-responses", {"supportsMaxOutputTokens": False}, 500, None),
        ("azure-openai-responses", {"supportsMaxOutputTokens": False}, 500, 500),
        ("azure-openai-responses", {}, 1, 16),
    ],
)
def test_the_output_cap(
    api: str, compat: dict[str, Any], max_tokens: int, sent: int | None
) -> None:
    body = _body(_model(api, **compat), max_tokens=max_tokens)
    assert body.get("max_output_tokens") == sent
    assert body["store"] is False


def test_service_tier_and_temperature_only_when_given() -> None:
    plain = _body(_model())
    assert "service_tier" not in plain and "temperature" not in plain
    given = _body(_model(), temperature=0.3, provider_options={"service_tier": "flex"})
    assert (given["service_tier"], given["temperature"]) == ("flex", 0.3)
    with pytest.raises(pi_sdk.ConfigurationError) as refused:
        _body(_model(), provider_options={"service_tier": 2})
    assert str(refused.value) == (
        "openai-responses: provider_options['service_tier'] must be a string, got 2"
    )
