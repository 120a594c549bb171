"""Google settings and schemas as they really arrive: from the environment, a request or JSON.

A location read from ``GOOGLE_CLOUD_LOCATION`` or a base URL, a thinking level from a proxy
request and a tool schema decoded from an MCP server's JSON are equal to the literals the
adapter compares them with but never the same objects (a test's literals are interned), so
each rule is shown with such a value.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.strings import built
from pi_sdk_google._shared_schema import to_gemini_parameters
from pi_sdk_google._shared_thinking import thinking_config
from pi_sdk_google.vertex._request import resolve_target

from pi_sdk import Model, StreamOptions

VERTEX = Model(id="gemini-2.5-flash", api="google-vertex", provider="google-vertex")


@pytest.fixture(autouse=True)
def _no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("location", "url"),
    [
        (
            "global",
            "https://aiplatform.googleapis.com/v1beta1/projects/p/locations/global/publishers"
            "/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        ),
        (
            "us-east1",
            "https://us-east1-aiplatform.googleapis.com/v1beta1/projects/p/locations/us-east1"
            "/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        ),
    ],
)
def test_the_host_of_a_location_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, location: str, url: str
) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", location)
    target = resolve_target(VERTEX, StreamOptions())
    assert (target.project, target.location, target.url) == ("p", location, url)


@pytest.mark.parametrize("source", ["options", "environment"])
def test_a_global_location_from_a_request_or_the_environment_uses_the_global_host(
    monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    if source == "environment":
        monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "global")
        options = StreamOptions(provider_options={"project": "p"})
    else:
        options = StreamOptions(provider_options={"project": "p", "location": built("global")})
    assert resolve_target(VERTEX, options).base_url == (
        "https://aiplatform.googleapis.com/v1beta1/projects/p/locations/global"
    )


@pytest.mark.parametrize(
    ("model", "config"),
    [
        (
            Model(
                id="gemini-2.5-flash", api="google-generative-ai", provider="google", reasoning=True
            ),
            {"thinkingBudget": 0},
        ),
        (
            Model(
                id="gemini-2.5-pro", api="google-generative-ai", provider="google", reasoning=True
            ),
            {"thinkingBudget": 128},
        ),
        (
            Model(
                id="gemini-3-pro-preview",
                api="google-generative-ai",
                provider="google",
                reasoning=True,
            ),
            {"thinkingLevel": "LOW"},
        ),
    ],
)
def test_reasoning_off_read_from_a_request_turns_thinking_off(
    model: Model, config: dict[str, Any]
) -> None:
    assert thinking_config(model, StreamOptions(reasoning=built("off"))) == config


def test_one_of_and_const_of_a_schema_decoded_from_json() -> None:
    schema = json.loads(
        '{"type": "object", "properties": {"unit": {"const": "c"},'
        ' "value": {"oneOf": [{"type": "string"}, {"type": "integer"}]},'
        ' "mode": {"const": "a", "enum": ["a", "b"]}}}'
    )
    assert to_gemini_parameters(schema, "t") == {
        "type": "object",
        "properties": {
            "unit": {"enum": ["c"]},
            "value": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "mode": {"enum": ["a", "b"]},
        },
    }
