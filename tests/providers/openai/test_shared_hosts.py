"""What a URL tells the OpenAI APIs: the provider of a host, a server on this machine, a recording.

``provider_for_host``: a known host or any subdomain of it names its provider (case does not
matter), a look-alike does not, an unknown host is its own name. ``is_local_base_url``: the
loopback names, ``0.0.0.0``, Docker's host and any ``*.localhost`` are local (no key needed,
``max_tokens``), nothing else is. ``recognize_*_request``: only a ``POST`` to the API's path
with a JSON object naming the model is a recorded request of that API; its base URL is the
URI up to the path.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai._shared_hosts import (
    is_local_base_url,
    provider_for_host,
    recognize_completions_request,
    recognize_responses_request,
)


@pytest.mark.parametrize(
    ("host", "provider"),
    [
        ("api.openai.com", "openai"),
        ("API.OpenAI.com", "openai"),
        ("eu.api.openai.com", "openai"),
        ("openrouter.ai", "openrouter"),
        ("api.groq.com", "groq"),
        ("api.cerebras.ai", "cerebras"),
        ("api.x.ai", "xai"),
        ("api.z.ai", "zai"),
        ("router.huggingface.co", "huggingface"),
        ("api.deepseek.com", "deepseek"),
        ("my-res.openai.azure.com", "azure-openai"),
        ("generativelanguage.googleapis.com", "google"),
        ("notapi.openai.com", "notapi.openai.com"),  # not a subdomain: a look-alike
        ("evilopenrouter.ai", "evilopenrouter.ai"),
        ("LLM.Example.test", "llm.example.test"),
        ("", ""),
    ],
)
def test_provider_for_host(host: str, provider: str) -> None:
    assert provider_for_host(host) == provider


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://localhost:11434/v1", True),
        ("http://LOCALHOST:11434/v1", True),
        ("http://127.0.0.1:8080/v1", True),
        ("http://0.0.0.0:8000/v1", True),
        ("http://[::1]:1234/v1", True),
        ("http://host.docker.internal:11434/v1", True),
        ("http://ollama.localhost/v1", True),
        ("http://127.0.0.2:8080/v1", False),
        ("http://localhost.example.com/v1", False),
        ("http://mylocalhost/v1", False),
        ("https://api.openai.com/v1", False),
        ("", False),
        ("http://[::1/v1", False),  # unparsable: not local
    ],
)
def test_is_local_base_url(url: str, local: bool) -> None:
    assert is_local_base_url(url) is local


@pytest.mark.parametrize(
    ("recognize", "suffix", "api"),
    [
        (recognize_completions_request, "/chat/completions", "openai-completions"),
        (recognize_responses_request, "/responses", "openai-responses"),
    ],
)
def test_a_recorded_request_names_its_model(recognize: Any, suffix: str, api: str) -> None:
    uri = f"https://api.groq.com/openai/v1{suffix}/?trace=1"
    model = recognize("post", uri, {"model": "llama-x", "messages": []})
    assert model is not None
    assert (model.api, model.provider, model.id) == (api, "groq", "llama-x")
    assert model.base_url == "https://api.groq.com/openai/v1"
    for method, target, body in [
        ("GET", uri, {"model": "llama-x"}),
        ("put", uri, {"model": "llama-x"}),  # a method sorting after POST too
        ("POST", uri, {}),
        ("POST", uri, ["model"]),
        ("POST", uri, {"model": ""}),
        ("POST", uri, {"model": 3}),
        ("POST", "https://api.groq.com/openai/v1/models", {"model": "llama-x"}),
    ]:
        assert recognize(method, target, body) is None, (method, target, body)
