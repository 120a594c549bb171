"""Azure endpoint options and the deployment map, value by value (pi-mono ``azure-openai``).

``AZURE_OPENAI_DEPLOYMENT_NAME_MAP`` is ``model-id=deployment`` pairs separated by commas,
spaces around either side ignored, an entry without both sides skipped; an option given must be
a non-empty string (spaces around it are dropped); the environment's base URL, resource name
and api-version are used only when nothing nearer is given.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_azure._endpoint import resolve_endpoint

from pi_sdk import ConfigurationError, Model, StreamOptions

BASE = "https://res.openai.azure.com/openai/v1"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "AZURE_OPENAI_BASE_URL",
        "AZURE_OPENAI_RESOURCE_NAME",
        "AZURE_OPENAI_API_VERSION",
        "AZURE_OPENAI_DEPLOYMENT_NAME_MAP",
    ):
        monkeypatch.delenv(name, raising=False)


def _model(model_id: str, base_url: str = BASE) -> Model:
    return Model(
        id=model_id,
        api="azure-openai-responses",
        provider="azure-openai-responses",
        base_url=base_url,
    )


@pytest.mark.parametrize(
    ("mapping", "model_id", "deployment"),
    [
        ("gpt-a=dep-a", "gpt-a", "dep-a"),
        (" gpt-a = dep-a , gpt-b=dep-b ", "gpt-b", "dep-b"),
        ("bad,gpt-b=dep-b", "gpt-b", "dep-b"),  # an entry without '=' does not stop the rest
        ("=dep-x,gpt-b=dep-b", "gpt-b", "dep-b"),
        ("gpt-a=,gpt-b=dep-b", "gpt-a", "gpt-a"),  # no deployment: the model id
        ("gpt-a=dep-a,gpt-a=", "gpt-a", "dep-a"),  # an empty later entry changes nothing
        ("gpt-a=dep=x", "gpt-a", "dep=x"),
        ("", "gpt-a", "gpt-a"),
        ("gpt-c=dep-c", "gpt-a", "gpt-a"),
    ],
)
def test_the_deployment_map(
    monkeypatch: pytest.MonkeyPatch, mapping: str, model_id: str, deployment: str
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", mapping)
    endpoint = resolve_endpoint(_model(model_id), StreamOptions(), api="responses")
    assert endpoint.deployment == deployment


@pytest.mark.parametrize("key", ["azure_base_url", "azure_deployment", "azure_api_version"])
@pytest.mark.parametrize("value", ["", "   ", 3, ["x"]])
def test_an_option_must_be_a_non_empty_string(key: str, value: Any) -> None:
    options = StreamOptions(provider_options={key: value})
    with pytest.raises(ConfigurationError) as refused:
        resolve_endpoint(_model("gpt-a"), options, api="chat")
    assert str(refused.value) == f"provider_options[{key!r}] must be a non-empty string"


def test_options_are_stripped_and_win() -> None:
    options = StreamOptions(
        provider_options={
            "azure_base_url": "  https://other.openai.azure.com  ",
            "azure_deployment": " dep ",
            "azure_api_version": " 2025-01-01 ",
        }
    )
    endpoint = resolve_endpoint(_model("gpt-a"), options, api="chat")
    assert endpoint.base_url == "https://other.openai.azure.com/openai/v1"
    assert (endpoint.deployment, endpoint.api_version) == ("dep", "2025-01-01")
    assert endpoint.is_deployment is False


def test_the_environment_fills_only_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_BASE_URL", "https://env.openai.azure.com")
    monkeypatch.setenv("AZURE_OPENAI_RESOURCE_NAME", "named")
    monkeypatch.setenv("AZURE_OPENAI_API_VERSION", "  ")  # blank: none
    from_model = resolve_endpoint(_model("gpt-a"), StreamOptions(), api="chat")
    assert (from_model.base_url, from_model.api_version) == (BASE, None)
    from_env = resolve_endpoint(_model("gpt-a", base_url=""), StreamOptions(), api="chat")
    assert from_env.base_url == "https://env.openai.azure.com/openai/v1"
    monkeypatch.delenv("AZURE_OPENAI_BASE_URL")
    named = resolve_endpoint(_model("gpt-a", base_url=" "), StreamOptions(), api="chat")
    assert named.base_url == "https://named.openai.azure.com/openai/v1"
    by_option = StreamOptions(provider_options={"azure_resource_name": "opt"})
    assert resolve_endpoint(_model("gpt-a", base_url=""), by_option, api="chat").base_url == (
        "https://opt.openai.azure.com/openai/v1"
    )


@pytest.mark.parametrize(
    "base_url",
    [
        "ftp://res.openai.azure.com/openai/v1",
        "https://",
        "https:///openai/v1",
        "res.openai.azure.com",
        "http//res.openai.azure.com",
    ],
)
def test_a_base_url_must_be_an_http_url_with_a_host(base_url: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        resolve_endpoint(_model("gpt-a", base_url), StreamOptions(), api="responses")
    assert str(raised.value) == f"Invalid Azure OpenAI base URL: {base_url!r}"


@pytest.mark.parametrize(
    ("base_url", "normalized"),
    [
        ("http://127.0.0.1:8080/openai/v1/", "http://127.0.0.1:8080/openai/v1"),
        ("https://res.openai.azure.com", BASE),
        ("https://res.openai.azure.com/openai/", BASE),
        ("https://proxy.test/openai", "https://proxy.test/openai"),  # not Azure's host: as given
    ],
)
def test_an_azure_resource_root_becomes_its_v1_endpoint(base_url: str, normalized: str) -> None:
    endpoint = resolve_endpoint(_model("gpt-a", base_url), StreamOptions(), api="responses")
    assert endpoint.base_url == normalized


def test_the_endpoint_fields_annotations_resolve() -> None:
    """``AzureEndpoint``'s field annotations evaluate (``typing.get_type_hints``)."""
    import typing

    from pi_sdk_azure._endpoint import AzureEndpoint

    hints = typing.get_type_hints(AzureEndpoint)
    assert set(hints) >= {"base_url", "deployment", "api_version"}
    assert not any(isinstance(hint, str) for hint in hints.values())
