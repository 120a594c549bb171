"""Every refusal of a proxy request body and every rule of the proxy policy, each alone with
its whole text (``pi_sdk/_serve/request.py``, ``pi_sdk/_serve/policy.py``), and the default
model lookup (the default registry) when no ``resolve_model`` is given.
"""

from __future__ import annotations

import asyncio
import dataclasses
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


@pytest.mark.parametrize(
    ("given", "field", "value"),
    [
        ({"temperature": 0}, "temperature", 0),  # the lowest temperature is allowed
        ({"temperature": 1.5}, "temperature", 1.5),
        ({"maxTokens": 1}, "max_tokens", 1),  # the smallest reply is allowed
        ({"reasoning": "high"}, "reasoning", "high"),
        ({"cacheRetention": "long"}, "cache_retention", "long"),
        ({"sessionId": "s-1"}, "session_id", "s-1"),
        ({"metadata": {"user_id": "u"}}, "metadata", {"user_id": "u"}),
        ({"thinkingBudgets": {"low": 0}}, "thinking_budgets", {"low": 0}),
        ({"maxRetryDelayMs": 0}, "max_retry_delay_ms", 0),  # 0: no waiting allowed
        ({"maxRetryDelayMs": 2500}, "max_retry_delay_ms", 2500),
    ],
)
def test_each_proxy_option_becomes_its_stream_option(given: dict[str, Any], field: str, value: Any):
    _, _, options = parse_request(_body(options=given), _policy())
    assert getattr(options, field) == value
    assert options == dataclasses.replace(pi_sdk.StreamOptions(), **{field: value})  # only it


@pytest.mark.parametrize(
    "given",
    [
        {"headers": {"x-api-key": "client's"}},  # the server builds the vendor request
        {"transport": "sse"},
        {"disableContinuation": True},
        {"temperature": None, "maxTokens": None, "apiKey": None},  # null: not given
    ],
)
def test_ignored_and_null_options_change_nothing(given: dict[str, Any]):
    _, _, options = parse_request(_body(options=given), _policy())
    assert options == pi_sdk.StreamOptions()


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"maxTokens": 0}, "invalid options: maxTokens: Input should be greater than 0"),
        (
            {"maxRetryDelayMs": -1},
            "invalid options: maxRetryDelayMs: Input should be greater than or equal to 0",
        ),
        ({"maxTokens": 1.5}, "invalid options: maxTokens: Input should be a valid integer"),
        ({"toolChoice": "auto"}, "unknown option 'toolChoice'"),  # pi-messages only
    ],
)
def test_an_option_out_of_its_range_is_refused_naming_it(given: dict[str, Any], message: str):
    with pytest.raises(Refused) as caught:
        parse_request(_body(options=given), _policy())
    assert (caught.value.status, str(caught.value)) == (400, message)


class _Request:
    """A Starlette request's ``headers`` and ``stream()``, sending ``chunks``."""

    def __init__(self, chunks: list[bytes], length: str | None = None, stall: bool = False):
        self.headers = {} if length is None else {"content-length": length}
        self.chunks = chunks
        self.stall = stall

    async def stream(self) -> Any:
        for chunk in self.chunks:
            yield chunk
        if self.stall:
            await asyncio.Event().wait()


@pytest.mark.parametrize(
    ("chunks", "length", "whole"),
    [
        ([b"abcd", b"efgh"], "8", True),  # exactly the limit
        ([b"abcdefgh"], None, True),
        ([b"abcd", b"efghi"], None, False),  # counted: one byte over
        ([b"a"], "9", False),  # announced: refused before reading
        ([b"abcd", b"efgh"], "chunked", True),  # not a number: counted instead
    ],
)
async def test_a_body_up_to_the_limit_is_read_whole_and_one_byte_more_is_413(
    chunks: list[bytes], length: str | None, whole: bool
):
    from pi_sdk._serve.request import read_body

    policy = _policy(max_body_bytes=8)
    if whole:
        assert await read_body(_Request(chunks, length), policy) == b"".join(chunks)
        return
    with pytest.raises(Refused) as caught:
        await read_body(_Request(chunks, length), policy)
    assert (caught.value.status, str(caught.value)) == (
        413,
        "request body too large: the limit is 8 bytes",
    )


async def test_a_body_that_does_not_arrive_in_time_is_408_naming_the_time():
    from pi_sdk._serve.request import read_body

    with pytest.raises(Refused) as caught:
        await read_body(_Request([b"{"], stall=True), _policy(body_timeout_ms=20))
    assert (caught.value.status, str(caught.value)) == (
        408,
        "request body too slow: it did not arrive whole within 0.02 s",
    )


@pytest.mark.parametrize(
    "skipped",
    [
        {"headers": {"x-a": "1"}},
        {"transport": "sse"},
        {"disableContinuation": True},
        {"reasoning": None},
    ],
)
def test_an_ignored_or_null_option_leaves_the_options_after_it_read(
    skipped: dict[str, Any],
) -> None:
    # pi-mono clients send options the proxy does not forward (headers, transport, ...) and
    # nulls; each is passed over, and every option after it is still read.
    given = {**skipped, "temperature": 0.25, "maxTokens": 77}
    _, _, options = parse_request(_body(options=given), _policy())
    assert options == pi_sdk.StreamOptions(temperature=0.25, max_tokens=77)
