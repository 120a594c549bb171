"""Azure calls end to end: URL, api-version, auth header, deployment, filters, cut bodies.

Requests go to a loopback server through the clients the package builds (no
``StreamOptions.client``), so the URL and headers are the ones Azure would get; cut bodies are
served through :class:`ChunkedTransport` with a caller's client.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from _support.conformance import ChunkedTransport, Reply, assert_valid_event_sequence, collect
from _support.loopback import LoopbackServer, json_step, sse_step, text_events

import pi_sdk
from pi_sdk import Context, Model, StreamOptions, TextContent, UserMessage

CONTEXT = Context(messages=[UserMessage(content="hi")])


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "AZURE_OPENAI_API_KEY",
        "AZURE_OPENAI_BASE_URL",
        "AZURE_OPENAI_RESOURCE_NAME",
        "AZURE_OPENAI_API_VERSION",
        "AZURE_OPENAI_DEPLOYMENT_NAME_MAP",
    ):
        monkeypatch.delenv(name, raising=False)


def _responses_model(base_url: str) -> Model:
    return pi_sdk.get_model("azure-openai-responses", "gpt-4.1").model_copy(
        update={"base_url": base_url}
    )


def _chat_model(base_url: str) -> Model:
    return Model(
        id="gpt-4o",
        name="gpt-4o",
        api="openai-completions",
        provider="azure-openai",
        base_url=base_url,
    )


def _responses_text() -> Any:
    body, terminal = text_events("openai-responses", ["Hel", "lo"])
    return sse_step(body + terminal)


def _chat_text() -> Any:
    body, terminal = text_events("openai-completions", ["Hel", "lo"])
    return sse_step(body + terminal)


async def _call(model: Model, **options: Any) -> pi_sdk.AssistantMessage:
    options.setdefault("max_retries", 0)
    events, message = await collect(pi_sdk.stream(model, CONTEXT, StreamOptions(**options)))
    assert_valid_event_sequence(events)
    return message


async def test_v1_responses_send_the_deployment_and_the_key_as_bearer():
    async with LoopbackServer([_responses_text()]) as server:
        model = _responses_model(server.url + "/openai/v1")
        message = await _call(model, api_key="k-1", provider_options={"azure_deployment": "dep"})
    assert message.stop_reason == "stop", message.error_message
    assert message.content == [TextContent(text="Hello", text_signature='{"v":1,"id":"msg_0"}')]
    method, target, body = server.requests[0]
    assert (method, target) == ("POST", "/openai/v1/responses")  # no api-version on v1
    assert json.loads(body)["model"] == "dep"
    headers = server.headers[0]
    assert headers["authorization"] == "Bearer k-1"
    assert "api-key" not in headers


async def test_deployment_responses_send_api_version_and_api_key_header():
    async with LoopbackServer([_responses_text()]) as server:
        model = _responses_model(server.url + "/openai/deployments/prod")
        message = await _call(model, api_key="k-2")
    assert message.stop_reason == "stop", message.error_message
    _, target, body = server.requests[0]
    assert target == "/openai/deployments/prod/responses?api-version=2025-04-01-preview"
    assert json.loads(body)["model"] == "prod"
    assert server.headers[0]["api-key"] == "k-2"
    assert "authorization" not in server.headers[0]


@pytest.mark.parametrize("suffix", ["/openai/v1", "/openai/deployments/prod"])
@pytest.mark.parametrize("is_async", [False, True])
async def test_an_entra_token_provider_is_sent_as_bearer(suffix: str, is_async: bool):
    calls: list[int] = []

    def sync_token() -> str:
        calls.append(1)
        return "entra-token"

    async def async_token() -> str:
        return sync_token()

    provider = async_token if is_async else sync_token
    async with LoopbackServer([_responses_text()]) as server:
        model = _responses_model(server.url + suffix)
        message = await _call(model, provider_options={"azure_ad_token_provider": provider})
    assert message.stop_reason == "stop", message.error_message
    assert server.headers[0]["authorization"] == "Bearer entra-token"
    assert "api-key" not in server.headers[0]
    assert calls


async def test_no_key_and_no_azure_identity_names_both_ways_to_authenticate(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setitem(sys.modules, "azure.identity.aio", None)  # as if not installed
    message = await _call(_responses_model("https://r.openai.azure.com"))
    assert message.stop_reason == "error"
    assert "AZURE_OPENAI_API_KEY" in (message.error_message or "")
    assert "pi-sdk-azure[entra]" in (message.error_message or "")


async def test_without_a_key_entra_id_signs_in_through_default_azure_credential(
    monkeypatch: pytest.MonkeyPatch,
):
    import types

    from pi_sdk._kit import clients as _clients

    scopes: list[str] = []

    class DefaultAzureCredential:  # what azure.identity.aio offers
        pass

    def get_bearer_token_provider(credential: object, scope: str) -> Any:
        assert isinstance(credential, DefaultAzureCredential)
        scopes.append(scope)

        async def token() -> str:
            return "from-entra"

        return token

    fake = types.ModuleType("azure.identity.aio")
    fake.DefaultAzureCredential = DefaultAzureCredential  # type: ignore[attr-defined]
    fake.get_bearer_token_provider = get_bearer_token_provider  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "azure.identity.aio", fake)
    monkeypatch.delitem(_clients._shared, "azure.identity.token_provider", raising=False)  # pyright: ignore[reportPrivateUsage]
    try:
        async with LoopbackServer([_responses_text()]) as server:
            message = await _call(_responses_model(server.url + "/openai/deployments/prod"))
    finally:
        _clients._shared.pop("azure.identity.token_provider", None)  # pyright: ignore[reportPrivateUsage]
    assert message.stop_reason == "stop", message.error_message
    assert scopes == ["https://cognitiveservices.azure.com/.default"]
    assert server.headers[0]["authorization"] == "Bearer from-entra"
    assert "api-key" not in server.headers[0]


async def test_a_bad_token_provider_option_is_a_configuration_error():
    model = _responses_model("https://r.openai.azure.com")
    message = await _call(model, provider_options={"azure_ad_token_provider": "token"})
    assert message.stop_reason == "error"
    assert "azure_ad_token_provider" in (message.error_message or "")


async def test_unknown_provider_options_are_still_rejected():
    model = _responses_model("https://r.openai.azure.com")
    message = await _call(model, api_key="test-key", provider_options={"azure_deploymnt": "x"})
    assert message.stop_reason == "error"
    assert "azure_deploymnt" in (message.error_message or "")


async def test_azure_chat_completions_go_through_the_azure_rules():
    async with LoopbackServer([_chat_text()]) as server:
        model = _chat_model(server.url + "/openai/deployments/chat-dep")
        message = await _call(model, api_key="k-3")
    assert message.stop_reason == "stop", message.error_message
    assert message.content == [TextContent(text="Hello")]
    _, target, body = server.requests[0]
    assert target == "/openai/deployments/chat-dep/chat/completions?api-version=2024-10-21"
    assert json.loads(body)["model"] == "chat-dep"
    assert server.headers[0]["api-key"] == "k-3"


async def test_other_chat_providers_keep_the_openai_client():
    model = pi_sdk.get_model("openai", "gpt-4o-mini")
    async with LoopbackServer([_chat_text()]) as server:
        message = await _call(
            model.model_copy(update={"api": "openai-completions", "base_url": server.url + "/v1"}),
            api_key="k-4",
        )
    assert message.stop_reason == "stop", message.error_message
    assert server.requests[0][1] == "/v1/chat/completions"
    assert server.headers[0]["authorization"] == "Bearer k-4"


_VIOLENCE = {
    "hate": {"filtered": False, "severity": "safe"},
    "violence": {"filtered": True, "severity": "high"},
}


async def test_chat_content_filter_stop_names_the_category_and_keeps_the_text():
    chunks: list[Any] = [
        {"choices": [], "model": "", "prompt_filter_results": [{"prompt_index": 0}]},
        {"choices": [{"index": 0, "delta": {"content": "Once"}}], "model": "gpt-4o-x"},
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {},
                    "finish_reason": "content_filter",
                    "content_filter_results": _VIOLENCE,
                }
            ]
        },
        b"data: [DONE]\n\n",
    ]
    async with LoopbackServer([sse_step(chunks)]) as server:
        message = await _call(_chat_model(server.url + "/openai/v1"), api_key="test-key")
    assert message.stop_reason == "error"
    assert message.content == [TextContent(text="Once")]
    assert message.error_message == (
        "Azure's content filter blocked the reply (finish_reason: content_filter):"
        " completion: violence (high)"
    )


async def test_responses_content_filter_incomplete_names_prompt_and_completion():
    item = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
    filters = [
        {"source_type": "prompt", "blocked": False, "content_filter_results": {}},
        {"source_type": "completion", "blocked": True, "content_filter_results": _VIOLENCE},
    ]
    document = {
        "id": "resp_1",
        "status": "incomplete",
        "incomplete_details": {"reason": "content_filter"},
        "output": [item],
        "content_filters": filters,
        "usage": {"input_tokens": 3, "output_tokens": 1},
    }
    async with LoopbackServer([json_step(200, document)]) as server:
        message = await _call(_responses_model(server.url + "/openai/v1"), api_key="test-key")
    assert message.stop_reason == "error"
    assert message.error_message == (
        "Azure's content filter blocked the reply (incomplete: content_filter):"
        " completion: violence (high)"
    )
    assert message.usage.input == 3


async def test_http_errors_keep_azure_s_message_and_status():
    error = {
        "error": {"code": "DeploymentNotFound", "message": "The API deployment does not exist"}
    }
    async with LoopbackServer([json_step(404, error)]) as server:
        message = await _call(
            _responses_model(server.url + "/openai/deployments/x"), api_key="test-key"
        )
    assert message.stop_reason == "error"
    assert "404" in (message.error_message or "")
    assert "DeploymentNotFound: The API deployment does not exist" in (message.error_message or "")


async def test_a_prompt_refused_by_the_filter_names_the_category():
    error = {
        "error": {
            "code": "content_filter",
            "param": "prompt",
            "status": 400,
            "message": "The response was filtered due to the prompt triggering Azure's policy.",
            "innererror": {
                "code": "ResponsibleAIPolicyViolation",
                "content_filter_result": {
                    "hate": {"filtered": False, "severity": "safe"},
                    "jailbreak": {"filtered": True, "detected": True},
                },
            },
        }
    }
    async with LoopbackServer([json_step(400, error)]) as server:
        message = await _call(_chat_model(server.url + "/openai/v1"), api_key="test-key")
    assert message.stop_reason == "error"
    text = message.error_message or ""
    assert text.startswith("400 Bad Request: content_filter: The response was filtered"), text
    assert text.endswith("(filtered: prompt: jailbreak)"), text
    assert len(server.requests) == 1  # not retried


def _sse(events: list[Any]) -> bytes:
    return b"".join(
        e if isinstance(e, bytes) else f"data: {json.dumps(e)}\n\n".encode() for e in events
    )


def _client(transport: ChunkedTransport, base_url: str) -> Any:
    import httpx2
    from openai import AsyncOpenAI

    return AsyncOpenAI(
        api_key="test-key",
        base_url=base_url,
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=transport),
    )


def _cases() -> list[tuple[str, bytes]]:
    responses = text_events("openai-responses", ["Hel", "lo ", "wor", "ld"])
    chat = text_events("openai-completions", ["Hel", "lo ", "wor", "ld"])
    return [
        ("responses", _sse(responses[0] + responses[1])),
        ("chat", _sse(chat[0] + chat[1])),
    ]


@pytest.mark.parametrize(("api", "body"), _cases(), ids=["responses", "chat"])
async def test_a_cut_stream_ends_in_one_error_event_with_the_partial_text(api: str, body: bytes):
    base = "https://r.openai.azure.com/openai/v1"
    model = _responses_model(base) if api == "responses" else _chat_model(base)
    offsets = sorted({1, len(body) // 3, len(body) // 2, (2 * len(body)) // 3, len(body) - 20})
    for offset in offsets:
        transport = ChunkedTransport(
            [Reply(200, body[:offset], {"content-type": "text/event-stream"})], 7
        )
        client = _client(transport, base)
        try:
            options = StreamOptions(api_key="test-key", max_retries=0, client=client)
            events, message = await collect(pi_sdk.stream(model, CONTEXT, options))
        finally:
            await client.close()
        where = f"{api} cut at {offset}/{len(body)}"
        assert [e.type for e in events].count("error") == 1, where
        assert events[-1].type == "error", where
        assert_valid_event_sequence(events)
        assert transport.closed == 1, where
        text = "".join(b.text for b in message.content if isinstance(b, TextContent))
        assert "Hello world".startswith(text), where


@pytest.mark.parametrize("is_async", [False, True])
@pytest.mark.parametrize(("returned", "token"), [("tok-1", "tok-1"), ("", None), (None, None),
                                                 (42, None), (b"tok", None)])  # fmt: skip
async def test_the_token_providers_answer_must_be_a_token(
    is_async: bool, returned: object, token: str | None
) -> None:
    from pi_sdk_azure._client import _async_token  # pyright: ignore[reportPrivateUsage]

    def sync_provider() -> Any:
        return returned

    async def async_provider() -> Any:
        return returned

    get = _async_token(async_provider if is_async else sync_provider)
    if token is not None:
        assert await get() == token
        return
    with pytest.raises(pi_sdk.ConfigurationError, match="^the Azure token provider returned no"):
        await get()


async def test_a_token_provider_that_gives_no_token_ends_the_call_with_that_error():
    async with LoopbackServer([_responses_text()]) as server:
        model = _responses_model(server.url + "/openai/v1")
        message = await _call(model, provider_options={"azure_ad_token_provider": lambda: ""})
    assert message.stop_reason == "error"
    assert "the Azure token provider returned no token" in (message.error_message or "")
    assert not server.requests
