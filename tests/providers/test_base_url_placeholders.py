"""Catalog base URLs with ``{NAME}`` placeholders (pi-ai 0.73.1's Cloudflare models).

pi-ai fills the names in from the environment at each request (``resolveCloudflareBaseUrl``)
and fails naming the variable when one is unset; so do the Anthropic and OpenAI clients.
"""

from __future__ import annotations

import pytest
from _support.loopback import LoopbackServer, text_reply

import pi_sdk
from pi_sdk.provider import load_models_json, resolve_base_url

HI = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
# (package, provider, api) of a catalog model whose base URL has placeholders
CASES = [
    ("pi_sdk_openai", "cloudflare-workers-ai", "openai-completions"),
    ("pi_sdk_openai", "cloudflare-ai-gateway", "openai-completions"),
    ("pi_sdk_openai", "cloudflare-ai-gateway", "openai-responses"),
    ("pi_sdk_anthropic", "cloudflare-ai-gateway", "anthropic-messages"),
]


def catalog_model(package: str, provider: str, api: str) -> pi_sdk.Model:
    return next(m for m in load_models_json(package) if (m.provider, m.api) == (provider, api))


def test_placeholders_are_filled_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "acct-1")
    monkeypatch.setenv("CLOUDFLARE_GATEWAY_ID", "gw-2")
    workers = catalog_model("pi_sdk_openai", "cloudflare-workers-ai", "openai-completions")
    assert resolve_base_url(workers) == "https://api.cloudflare.com/client/v4/accounts/acct-1/ai/v1"
    gateway = catalog_model("pi_sdk_anthropic", "cloudflare-ai-gateway", "anthropic-messages")
    assert resolve_base_url(gateway) == "https://gateway.ai.cloudflare.com/v1/acct-1/gw-2/anthropic"
    # lower-case names are not placeholders (Vertex AI's {location} is the provider's)
    vertex = catalog_model("pi_sdk_google", "google-vertex", "google-vertex")
    assert resolve_base_url(vertex) == "https://{location}-aiplatform.googleapis.com"
    plain = catalog_model("pi_sdk_openai", "openai", "openai-responses")
    assert resolve_base_url(plain) == "https://api.openai.com/v1"


def test_an_unset_placeholder_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "acct-1")
    monkeypatch.setenv("CLOUDFLARE_GATEWAY_ID", "")
    gateway = catalog_model("pi_sdk_openai", "cloudflare-ai-gateway", "openai-responses")
    with pytest.raises(pi_sdk.ConfigurationError, match="CLOUDFLARE_GATEWAY_ID.*cloudflare-ai"):
        resolve_base_url(gateway)


@pytest.mark.parametrize(("package", "provider", "api"), CASES)
async def test_the_request_goes_to_the_filled_in_url(
    package: str, provider: str, api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_TEST_ACCOUNT", "acct-9")
    async with LoopbackServer([text_reply(api)]) as server:
        base_url = f"{server.url}/accounts/{{PI_TEST_ACCOUNT}}/gateway"
        # compat dropped: the URL is under test (0.73's flags are the compat code's concern)
        update = {"base_url": base_url, "compat": None}
        model = catalog_model(package, provider, api).model_copy(update=update)
        message = await pi_sdk.complete(
            model, HI, pi_sdk.StreamOptions(api_key="test-key-123", max_retries=0)
        )
    assert message.stop_reason == "stop", message.error_message
    [(_, target, _)] = server.requests
    assert target.startswith("/accounts/acct-9/gateway/")


@pytest.mark.parametrize(("package", "provider", "api"), CASES)
async def test_an_unset_placeholder_fails_the_call_before_any_request(
    package: str, provider: str, api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLOUDFLARE_ACCOUNT_ID", raising=False)
    model = catalog_model(package, provider, api)
    message = await pi_sdk.complete(
        model, HI, pi_sdk.StreamOptions(api_key="test-key-123", max_retries=0)
    )
    assert message.stop_reason == "error"
    assert "CLOUDFLARE_ACCOUNT_ID is required" in (message.error_message or "")
