"""``is_context_overflow`` on real vendor error bodies, through the real adapters.

Two directions:

* every interaction of the shared conformance set (``../shared/conformance``: errors, rate
  limits, successful replies) is replayed and must *not* read as an overflow, with the model's
  context window given (so the silent cases are checked too);
* each vendor's documented overflow error body, served through the vendor client to the
  adapter, must read as one, and its error message must say so.

The overflow bodies are the vendors' documented texts (the examples pi-ai 0.73.1's
``utils/overflow.ts`` lists per vendor, in each API's JSON error envelope).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.conformance import (
    CLIENT_FACTORIES,
    Case,
    ChunkedTransport,
    ConformanceDirMissing,
    Reply,
    collect,
    conformance_dir,
    load_cases,
    model_for,
    provider_for,
    run_interaction,
)

import pi_sdk
from pi_sdk import StreamOptions, is_context_overflow
from pi_sdk._testing.replay import load_cassette
from pi_sdk._wire.overflow import OVERFLOW_NOTE

try:
    ROOT = conformance_dir()
except ConformanceDirMissing:
    ROOT = None
CASES = load_cases(ROOT) if ROOT is not None else []


def test_the_walk_covers_error_bodies():
    if ROOT is None:
        pytest.skip("conformance folder absent (set PI_SDK_CONFORMANCE_DIR to require it)")
    assert sum(1 for c in CASES if c.status >= 400) >= 10


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_no_conformance_interaction_reads_as_an_overflow(case: Case):
    if provider_for(case.api) is None:
        pytest.skip(f"API {case.api} not registered")
    model = model_for(case.api, load_cassette(case.cassette)[case.index])
    run = await run_interaction(case, model=model)
    if case.status >= 400:
        assert run.message.stop_reason == "error" and run.message.error_message
    assert not is_context_overflow(run.message, model.context_window), (
        case.id,
        run.message.stop_reason,
        run.message.error_message,
    )
    assert OVERFLOW_NOTE not in (run.message.error_message or "")


# --- the vendors' overflow bodies --------------------------------------------------------------

JSON = {"content-type": "application/json"}


def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status=status, body=json.dumps(body).encode(), headers={**JSON, **(headers or {})})


def _openai_error(message: str, code: str | None = "context_length_exceeded") -> dict[str, Any]:
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": "messages",
            "code": code,
        }
    }


_GEMINI = {
    "error": {
        "code": 400,
        "message": "The input token count (1196265) exceeds the maximum number of tokens allowed"
        " (1048576).",
        "status": "INVALID_ARGUMENT",
    }
}
_RESPONSES = _openai_error(
    "Your input exceeds the context window of this model. Please adjust your input and try again."
)

OVERFLOWS: list[tuple[str, str, Reply]] = [
    (
        "anthropic-messages",
        "anthropic prompt too long",
        _json(
            400,
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "prompt is too long: 213462 tokens > 200000 maximum",
                },
            },
        ),
    ),
    (
        "anthropic-messages",
        "anthropic 413 request_too_large",
        _json(
            413,
            {
                "type": "error",
                "error": {
                    "type": "request_too_large",
                    "message": "Request exceeds the maximum size",
                },
            },
        ),
    ),
    (
        "openai-completions",
        "openai maximum context length",
        _json(
            400,
            _openai_error(
                "This model's maximum context length is 128000 tokens. However, your messages"
                " resulted in 131072 tokens. Please reduce the length of the messages."
            ),
        ),
    ),
    (
        "openai-completions",
        "groq reduce the length",
        _json(400, _openai_error("Please reduce the length of the messages or completion.")),
    ),
    (
        "openai-completions",
        "openrouter endpoint maximum",
        _json(
            400,
            {
                "error": {
                    "message": "This endpoint's maximum context length is 200000 tokens. However,"
                    " you requested about 250123 tokens (250000 of text input, 123 of tool"
                    " input). Please reduce the length of either one.",
                    "code": 400,
                }
            },
        ),
    ),
    (
        "openai-completions",
        "xai maximum prompt length",
        _json(
            400,
            {
                "code": "Client specified an invalid argument",
                "error": "This model's maximum prompt length is 131072 but the request contains"
                " 537812 tokens.",
            },
        ),
    ),
    (
        "openai-completions",
        "llama.cpp context size",
        _json(
            400,
            {
                "error": {
                    "code": 400,
                    "message": "the request exceeds the available context size, try increasing it",
                    "type": "exceed_context_size_error",
                }
            },
        ),
    ),
    ("openai-completions", "cerebras 400 without a body", Reply(400, b"", {})),
    ("openai-completions", "proxy 413 without a body", Reply(413, b"", {})),
    ("openai-responses", "openai responses context window", _json(400, _RESPONSES)),
    ("azure-openai-responses", "azure responses context window", _json(400, _RESPONSES)),
    ("google-generative-ai", "gemini input token count", _json(400, _GEMINI)),
    ("google-vertex", "vertex input token count", _json(400, _GEMINI)),
    (
        "bedrock-converse-stream",
        "bedrock input is too long",
        _json(
            400,
            {"message": "Input is too long for requested model."},
            {"x-amzn-ErrorType": "ValidationException:http://internal.amazon.com/coral/"},
        ),
    ),
    (
        "bedrock-converse-stream",
        "bedrock claude prompt too long",
        _json(
            400,
            {"message": "prompt is too long: 204842 tokens > 200000 maximum"},
            {"x-amzn-ErrorType": "ValidationException"},
        ),
    ),
    (
        "mistral-conversations",
        "mistral too large for model",
        _json(
            400,
            {
                "object": "error",
                "message": "Prompt contains 140000 tokens and 0 draft tokens, too large for model"
                " with 131072 maximum context length",
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            },
        ),
    ),
]

NOT_OVERFLOWS: list[tuple[str, str, Reply]] = [
    (
        "bedrock-converse-stream",
        "bedrock throttling: too many tokens",
        _json(
            429,
            {"message": "Too many tokens, please wait before trying again."},
            {"x-amzn-ErrorType": "ThrottlingException"},
        ),
    ),
    (
        "anthropic-messages",
        "anthropic input-token rate limit",
        _json(
            429,
            {
                "type": "error",
                "error": {
                    "type": "rate_limit_error",
                    "message": "This request would exceed the rate limit for your organization"
                    " of 30,000 input tokens per minute.",
                },
            },
        ),
    ),
    (
        "openai-completions",
        "openai tokens per minute",
        _json(
            429,
            _openai_error(
                "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM):"
                " Limit 30000, Used 29000, Requested 2000. Too many tokens.",
                "rate_limit_exceeded",
            ),
        ),
    ),
]


def _model_of(api: str) -> pi_sdk.Model:
    if provider_for(api) is None or api not in CLIENT_FACTORIES:
        pytest.skip(f"API {api} not registered or without a client factory")
    case = next((c for c in CASES if c.api == api), None)
    if case is None:
        pytest.skip(f"no conformance cassette for {api} to take the model from")
    return model_for(api, load_cassette(case.cassette)[case.index])


async def _serve(api: str, reply: Reply) -> pi_sdk.AssistantMessage:
    model = _model_of(api)
    transport = ChunkedTransport([reply], chunk_size=64)
    client = CLIENT_FACTORIES[api](transport, model.base_url)
    try:
        options = StreamOptions(api_key="test-key", max_retries=0, client=client)
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="(a long conversation)")])
        _, message = await collect(pi_sdk.stream(model, context, options))
    finally:
        await client.close()
    assert len(transport.requests) == 1
    return message


@pytest.mark.parametrize(
    ("api", "reply"), [(a, r) for a, _, r in OVERFLOWS], ids=[n for _, n, _ in OVERFLOWS]
)
async def test_vendor_overflow_bodies_are_detected_and_say_so(api: str, reply: Reply):
    message = await _serve(api, reply)
    assert message.stop_reason == "error"
    assert is_context_overflow(message), message.error_message
    assert (message.error_message or "").endswith(f"({OVERFLOW_NOTE})"), message.error_message


@pytest.mark.parametrize(
    ("api", "reply"), [(a, r) for a, _, r in NOT_OVERFLOWS], ids=[n for _, n, _ in NOT_OVERFLOWS]
)
async def test_rate_limits_that_name_tokens_are_not_overflows(api: str, reply: Reply):
    message = await _serve(api, reply)
    assert message.stop_reason == "error" and message.error_message
    assert not is_context_overflow(message, 200_000), message.error_message
    assert OVERFLOW_NOTE not in message.error_message
