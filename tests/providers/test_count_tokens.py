"""``count_tokens``: each vendor's counting endpoint on its documented shapes, else the estimate.

Over a loopback server (issue 28, item 5): the request each provider sends (path, the fields the
endpoint takes, the same history as a call) and the answer it reads, as the vendors document
them (Anthropic "Token counting", OpenAI "Get input token counts", Gemini ``models.countTokens``);
an endpoint that fails, or answers something else, gives the estimate and says why; an API with
no endpoint gives the estimate and says so.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.loopback import LoopbackServer, json_step, model_at

import pi_sdk
from pi_sdk._wire.estimate import estimate_context_tokens

KEY = "sk-count-secret-123456"
CONTEXT = pi_sdk.Context(
    system_prompt="Be brief.",
    messages=[pi_sdk.UserMessage(content="What is the weather in Paris?")],
    tools=[
        pi_sdk.Tool(
            name="weather",
            description="The weather in a city",
            parameters={"type": "object", "properties": {"city": {"type": "string"}}},
        )
    ],
)
OPTIONS = pi_sdk.StreamOptions(api_key=KEY, max_retries=0)


async def _count(api: str, answer: Any, status: int = 200) -> tuple[pi_sdk.TokenCount, Any]:
    async with LoopbackServer([json_step(status, answer)]) as server:
        counted = await pi_sdk.count_tokens(model_at(api, server.url), CONTEXT, OPTIONS)
        method, target, body = server.requests[0]
    assert method == "POST"
    return counted, (target, json.loads(body))


async def test_anthropic_counts_with_messages_count_tokens() -> None:
    counted, (target, body) = await _count("anthropic-messages", {"input_tokens": 1234})
    assert counted == pi_sdk.TokenCount(1234, "vendor")
    assert target == "/v1/messages/count_tokens"
    fields = {"model", "messages", "system", "tools", "tool_choice", "thinking"}
    assert {"model", "messages", "system", "tools"} <= set(body) <= fields
    assert body["model"] == "claude-sonnet-4-5"
    assert body["messages"][0]["role"] == "user" and body["tools"][0]["name"] == "weather"


async def test_openai_responses_counts_with_input_tokens() -> None:
    answer = {"object": "response.input_tokens", "input_tokens": 77}
    counted, (target, body) = await _count("openai-responses", answer)
    assert counted == pi_sdk.TokenCount(77, "vendor")
    assert target == "/v1/responses/input_tokens"
    assert {"model", "input", "tools"} <= set(body)
    assert not {"stream", "store", "include", "max_output_tokens"} & set(body)
    assert "Be brief." in json.dumps(body)  # the system prompt is counted


async def test_gemini_counts_with_count_tokens() -> None:
    answer = {"totalTokens": 31, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 31}]}
    counted, (target, body) = await _count("google-generative-ai", answer)
    assert counted == pi_sdk.TokenCount(31, "vendor")
    assert target == "/v1beta/models/gemini-2.5-flash:countTokens"
    request = body["generateContentRequest"]
    assert request["model"] == "models/gemini-2.5-flash"
    assert request["contents"][0]["role"] == "user"
    assert "systemInstruction" in request and "tools" in request


@pytest.mark.parametrize("api", ["anthropic-messages", "openai-responses", "google-generative-ai"])
async def test_a_failing_endpoint_falls_back_to_the_estimate_and_says_why(api: str) -> None:
    error = {"error": {"type": "authentication_error", "message": f"bad key {KEY}"}}
    counted, _ = await _count(api, error, status=401)
    assert counted.source == "estimate"
    assert counted.tokens == estimate_context_tokens(CONTEXT).tokens
    assert counted.reason is not None and "count_tokens endpoint failed: 401" in counted.reason
    assert KEY not in counted.reason


async def test_an_answer_that_is_not_a_count_falls_back_to_the_estimate() -> None:
    counted, _ = await _count("anthropic-messages", {"tokens": "many"})
    assert counted.source == "estimate" and "input_tokens" in (counted.reason or "")
    counted, _ = await _count("openai-responses", {"input_tokens": -3})
    assert counted.source == "estimate" and "-3" in (counted.reason or "")


async def test_an_api_without_an_endpoint_gives_the_estimate_and_says_so() -> None:
    model = model_at("openai-completions", "http://127.0.0.1:9")  # never asked
    counted = await pi_sdk.count_tokens(model, CONTEXT, OPTIONS)
    assert counted == pi_sdk.TokenCount(
        estimate_context_tokens(CONTEXT).tokens,
        "estimate",
        "no counting endpoint for openai-completions",
    )


async def test_a_third_party_api_can_count() -> None:
    async def count(model: pi_sdk.Model, context: pi_sdk.Context, options: Any) -> int:
        return 1000 + len(context.messages)

    async def never(model: Any, context: Any, options: Any) -> Any:  # pragma: no cover
        yield None

    from pi_sdk.provider import ApiProvider

    models = pi_sdk.Models(plugins=None)
    models.register_api_provider(ApiProvider(api="my-api", stream=never, count_tokens=count))
    model = pi_sdk.Model(id="m", api="my-api", provider="me")
    assert await models.count_tokens(model, CONTEXT) == pi_sdk.TokenCount(1001, "vendor")
