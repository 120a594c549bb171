"""Every refusal of a proxy request body and every rule of the proxy policy, each alone with
its whole text (``pi_sdk/_serve/request.py``, ``pi_sdk/_serve/policy.py``), and the default
model lookup (the default registry) when no ``resolve_model`` is given.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import pi_sdk
from pi_sdk._serve.policy import ProxyPolicy
from pi_sdk._serve.request import Refused, first_error, parse_request

TOKEN = "proxy-token-5c2e"
MODEL = pi_sdk.Model(id="m-1", api="x-api", provider="acme")
CONTEXT = {"messages": [{"role": "user", "content": "hi", "timestamp": 1}]}


def _policy(**changes: Any) -> ProxyPolicy:
    settings: dict[str, Any] = {
        "token": TOKEN,
        "allow": "acme/*",
        "resolve_model": lambda provider, model_id: MODEL,
    }
    return ProxyPolicy(**{**settings, **changes})


def _body(**fields: Any) -> bytes:
    wire = {"model": {"provider": "acme", "id": "m-1"}, "context": CONTEXT, **fields}
    return json.dumps(wire).encode()


def test_a_good_body_gives_the_model_context_and_options():
    model, context, options = parse_request(_body(options={"temperature": 0.5}), _policy())
    assert model is MODEL and context.messages[0].content == "hi"
    assert options.temperature == 0.5
    _, _, defaults = parse_request(_body(), _policy())
    assert defaults == pi_sdk.StreamOptions()


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b"\xff\xfe{}", 400, "the body is not UTF-8 JSON"),
        (_body(model="acme/m-1"), 400, "model must be an object with provider and id"),
        (_body(model={"provider": "acme"}), 400, "model must be an object with provider and id"),
        (
            _body(model={"provider": 1, "id": "m"}),
            400,
            "model must be an object with provider and id",
        ),
        (_body(options=["temperature"]), 400, "options must be an object"),
        (_body(options="fast"), 400, "options must be an object"),
        (
            _body(model={"provider": "other", "id": "m"}),
            403,
            "model other/m is not allowed on this proxy",
        ),
        (_body(context=None), 400, "context must be an object with messages, got missing"),
        (_body(context=[1]), 400, "context must be an object with messages, got a JSON list"),
        (
            _body(context={"messages": []}),
            400,
            "context.messages is empty: there is nothing to answer",
        ),
    ],
)
def test_each_refusal_of_a_body(body: bytes, status: int, message: str):
    with pytest.raises(Refused) as caught:
        parse_request(body, _policy())
    assert (caught.value.status, str(caught.value)) == (status, message)


def test_without_a_resolver_the_default_registry_answers(plugin_manager: Any):
    pi_sdk.register_provider(pi_sdk.Provider(id="acme", models=[MODEL]))
    model, _, _ = parse_request(_body(), _policy(resolve_model=None))
    assert (model.provider, model.id) == ("acme", "m-1")
    with pytest.raises(Refused) as caught:
        parse_request(_body(model={"provider": "acme", "id": "gone"}), _policy(resolve_model=None))
    assert (caught.value.status, str(caught.value)) == (400, "unknown model acme/gone")


def test_first_error_reads_a_validation_error_or_the_text():
    assert first_error(ValueError("plain words")) == "plain words"
    with pytest.raises(ValueError) as caught:
        pi_sdk.Context.model_validate({"messages": [{"role": "user"}]})
    assert first_error(caught.value) == "messages.0.user.content: Field required"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"token": ""}, "the proxy token is empty: set one (e.g. PI_SDK_PROXY_TOKEN)"),
        ({"allow": ()}, "the model allow-list is empty: allow at least one provider/id"),
        (
            {"allow": ("acme/*", "anthropic")},
            "model pattern 'anthropic' needs the form provider/id (e.g. anthropic/*)",
        ),
        ({"keepalive_ms": 0}, "keepalive_ms must be positive or None, got 0"),
        ({"max_body_bytes": 0}, "max_body_bytes must be at least 1, got 0"),
        ({"body_timeout_ms": 0}, "body_timeout_ms must be positive, got 0"),
        ({"body_timeout_ms": -5.0}, "body_timeout_ms must be positive, got -5.0"),
    ],
)
def test_each_policy_rule(changes: dict[str, Any], message: str):
    with pytest.raises(ValueError) as caught:
        _policy(**changes)
    assert str(caught.value) == message


def test_one_pattern_or_origin_given_as_text_is_one_item():
    policy = _policy(allow="acme/m-*", cors_origins="https://app.example", keepalive_ms=None)
    assert policy.allow == ("acme/m-*",) and policy.cors_origins == ("https://app.example",)
    assert policy.allows("acme", "m-1") and not policy.allows("acme", "x-1")
    listed = _policy(allow=["acme/a", "beta/*"], cors_origins=["https://a", "https://b"])
    assert listed.allow == ("acme/a", "beta/*")
    assert listed.cors_origins == ("https://a", "https://b")
