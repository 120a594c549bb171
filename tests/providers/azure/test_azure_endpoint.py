"""Azure's endpoint rules (base URL, deployment, api-version), recognizer, filters, catalog."""

from __future__ import annotations

import pytest
from _support.models import described
from pi_sdk_azure._endpoint import (
    is_azure_host,
    recognize_responses_request,
    resolve_endpoint,
    without_azure_options,
)
from pi_sdk_azure._filters import filter_message, filtered_categories

import pi_sdk
import pi_sdk.provider
from pi_sdk import ConfigurationError, Model, StreamOptions
from pi_sdk._models.default import get_api_key

_ENV = (
    "AZURE_OPENAI_BASE_URL",
    "AZURE_OPENAI_RESOURCE_NAME",
    "AZURE_OPENAI_API_VERSION",
    "AZURE_OPENAI_DEPLOYMENT_NAME_MAP",
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)


def _model(base_url: str = "", model_id: str = "gpt-5.4") -> Model:
    return Model(
        id=model_id,
        name=model_id,
        api="azure-openai-responses",
        provider="azure-openai-responses",
        base_url=base_url,
    )


def _options(**provider_options: object) -> StreamOptions:
    return StreamOptions(provider_options=dict(provider_options))


@pytest.mark.parametrize(
    "base",
    [
        "https://res.openai.azure.com",
        "https://res.openai.azure.com/",
        "https://res.openai.azure.com/openai",
        "https://res.openai.azure.com/openai/v1/",
    ],
)
def test_a_resource_root_becomes_its_v1_endpoint(base: str):
    endpoint = resolve_endpoint(_model(base), _options(), api="responses")
    assert endpoint.base_url == "https://res.openai.azure.com/openai/v1"
    assert not endpoint.is_deployment
    assert endpoint.api_version is None  # the v1 endpoint needs none
    assert endpoint.deployment == "gpt-5.4"


def test_cognitiveservices_hosts_are_azure_and_normalized():
    assert is_azure_host("my.cognitiveservices.azure.com")
    assert not is_azure_host("api.openai.com")
    endpoint = resolve_endpoint(
        _model("https://my.cognitiveservices.azure.com"), _options(), api="chat"
    )
    assert endpoint.base_url == "https://my.cognitiveservices.azure.com/openai/v1"


def test_a_non_azure_proxy_url_is_kept_as_given():
    endpoint = resolve_endpoint(_model("http://127.0.0.1:8080/proxy"), _options(), api="chat")
    assert endpoint.base_url == "http://127.0.0.1:8080/proxy"


@pytest.mark.parametrize(
    ("api", "version"), [("responses", "2025-04-01-preview"), ("chat", "2024-10-21")]
)
def test_a_deployment_url_names_the_deployment_and_needs_an_api_version(api: str, version: str):
    model = _model("https://res.openai.azure.com/openai/deployments/prod-4o")
    endpoint = resolve_endpoint(model, _options(), api=api)
    assert endpoint.is_deployment
    assert endpoint.deployment == "prod-4o"
    assert endpoint.api_version == version


def test_options_win_over_environment(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AZURE_OPENAI_API_VERSION", "2024-06-01")
    monkeypatch.setenv("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", "gpt-5.4=from-map, other=x")
    model = _model("https://res.openai.azure.com")
    from_env = resolve_endpoint(model, _options(), api="responses")
    assert (from_env.deployment, from_env.api_version) == ("from-map", "2024-06-01")
    chosen = resolve_endpoint(
        model, _options(azure_deployment="mine", azure_api_version="preview"), api="responses"
    )
    assert (chosen.deployment, chosen.api_version) == ("mine", "preview")


def test_base_url_from_environment_or_resource_name(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AZURE_OPENAI_RESOURCE_NAME", "from-name")
    assert (
        resolve_endpoint(_model(), _options(), api="responses").base_url
        == "https://from-name.openai.azure.com/openai/v1"
    )
    monkeypatch.setenv("AZURE_OPENAI_BASE_URL", "https://from-env.openai.azure.com")
    assert (
        resolve_endpoint(_model(), _options(), api="responses").base_url
        == "https://from-env.openai.azure.com/openai/v1"
    )
    # model.base_url wins over the environment, an option over both
    assert resolve_endpoint(
        _model("https://m.openai.azure.com"), _options(), api="responses"
    ).base_url.startswith("https://m.")
    chosen = resolve_endpoint(
        _model("https://m.openai.azure.com"),
        _options(azure_base_url="https://o.openai.azure.com"),
        api="responses",
    )
    assert chosen.base_url == "https://o.openai.azure.com/openai/v1"


def test_missing_or_bad_base_url_is_a_configuration_error():
    with pytest.raises(ConfigurationError, match="AZURE_OPENAI_BASE_URL"):
        resolve_endpoint(_model(), _options(), api="responses")
    with pytest.raises(ConfigurationError, match="Invalid Azure OpenAI base URL"):
        resolve_endpoint(_model("res.openai.azure.com"), _options(), api="responses")
    with pytest.raises(ConfigurationError, match="azure_deployment"):
        resolve_endpoint(
            _model("https://r.openai.azure.com"), _options(azure_deployment=3), api="chat"
        )


def test_azure_options_are_removed_before_the_openai_builder():
    options = _options(azure_deployment="d", azure_api_version="v", tool_choice="auto")
    assert without_azure_options(options).provider_options == {"tool_choice": "auto"}
    plain = _options(tool_choice="auto")
    assert without_azure_options(plain) is plain


def test_recognizer_takes_v1_and_deployment_requests_with_catalog_data():
    body = {"model": "gpt-5.4", "input": []}
    v1 = recognize_responses_request("POST", "https://r.openai.azure.com/openai/v1/responses", body)
    api, fields = "azure-openai-responses", ("api", "provider", "base_url")
    assert described(v1, *fields) == (api, api, "https://r.openai.azure.com/openai/v1")
    assert v1 is not None and v1.cost.input > 0  # the catalog model, with its prices
    uri = (
        "https://r.openai.azure.com/openai/deployments/dep/responses?api-version=2025-04-01-preview"
    )
    deployment = recognize_responses_request("POST", uri, {"model": "my-deployment"})
    assert deployment is not None
    assert deployment.base_url == "https://r.openai.azure.com/openai/deployments/dep"
    assert deployment.id == "my-deployment" and deployment.cost.input == 0  # a stand-in


@pytest.mark.parametrize(
    ("method", "uri", "body"),
    [
        ("GET", "https://r.openai.azure.com/openai/v1/responses", {"model": "m"}),
        ("PUT", "https://r.openai.azure.com/openai/v1/responses", {"model": "m"}),
        ("POST", "https://api.openai.com/v1/responses", {"model": "m"}),
        ("POST", "https://r.openai.azure.com/openai/v1/chat/completions", {"model": "m"}),
        ("POST", "https://r.openai.azure.com/openai/v1/responses", {"input": []}),
        ("POST", "https://r.openai.azure.com/openai/v1/responses", {"model": ""}),
        ("POST", "https://r.openai.azure.com/openai/v1/responses", {"model": 3}),
        ("POST", "https://r.openai.azure.com/other/responses", {"model": "m"}),
    ],
)
def test_recognizer_refuses_other_requests(method: str, uri: str, body: object):
    assert recognize_responses_request(method, uri, body) is None


def test_filtered_categories_name_what_was_filtered_with_severity():
    results = {
        "hate": {"filtered": False, "severity": "safe"},
        "violence": {"filtered": True, "severity": "high"},
        "jailbreak": {"filtered": True, "detected": True},
        "odd": "not an object",
    }
    assert filtered_categories(results) == ["violence (high)", "jailbreak"]
    assert filtered_categories(None) == []
    text = filter_message("x", prompt=["jailbreak"], completion=["violence (high)"])
    assert text == (
        "Azure's content filter blocked the reply (x):"
        " prompt: jailbreak; completion: violence (high)"
    )
    assert "name no filtered category" in filter_message("x", prompt=[], completion=[])


def test_catalog_lists_azure_models_with_prices():
    models = pi_sdk.get_models("azure-openai-responses")
    assert len(models) >= 40
    assert all(m.api == "azure-openai-responses" for m in models)
    gpt = pi_sdk.get_model("azure-openai-responses", "gpt-4o")
    assert (gpt.cost.input, gpt.cost.output) == (2.5, 10)


def test_the_key_comes_from_azure_openai_api_key(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "az-key")
    assert get_api_key("azure-openai-responses") == "az-key"
    assert get_api_key("azure-openai") == "az-key"
    monkeypatch.delenv("AZURE_OPENAI_API_KEY")
    assert get_api_key("azure-openai-responses") is None
