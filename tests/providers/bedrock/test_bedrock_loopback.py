"""The bedrock-converse-stream adapter over real sockets, through its normal client path.

A loopback server (``_support.loopback``) serves event-stream frames; the adapter builds its own
cached ``BedrockClient`` (no ``StreamOptions.client``), with an API key as bearer token.
"""

from __future__ import annotations

import asyncio

from _support.loopback import LoopbackServer, Step, json_step
from pi_sdk_bedrock import _client
from test_bedrock_frames import frame

import pi_sdk
from pi_sdk import AssistantMessage, Context, Model, StreamOptions, UserMessage

CONTEXT = Context(messages=[UserMessage(content="hi")])
HEADERS = {"content-type": "application/vnd.amazon.eventstream"}


def _model(url: str) -> Model:
    model = pi_sdk.get_model("amazon-bedrock", "amazon.nova-micro-v1:0")
    return model.model_copy(update={"base_url": url})


def _reply(text: str = "Hello", **kwargs: object) -> Step:
    frames = [frame("messageStart", {"role": "assistant"})]
    frames += [
        frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": piece}})
        for piece in (text[:2], text[2:])
    ]
    frames += [
        frame("contentBlockStop", {"contentBlockIndex": 0}),
        frame("messageStop", {"stopReason": "end_turn"}),
        frame("metadata", {"usage": {"inputTokens": 5, "outputTokens": 3}}),
    ]
    return Step(headers=HEADERS, parts=frames, **kwargs)  # type: ignore[arg-type]


async def _call(
    steps: list[Step], *, key: str = "loop-key-1", retries: int = 0
) -> tuple[AssistantMessage, LoopbackServer]:
    async with LoopbackServer(steps) as server:
        options = StreamOptions(api_key=key, max_retries=retries, max_retry_delay_ms=1)
        message = await asyncio.wait_for(pi_sdk.complete(_model(server.url), CONTEXT, options), 60)
        return message, server


async def test_sequential_calls_share_one_client_and_connection():
    async with LoopbackServer([_reply()]) as server:
        options = StreamOptions(api_key="reuse-key-1", max_retries=0)
        for _ in range(4):
            message = await pi_sdk.complete(_model(server.url), CONTEXT, options)
            assert message.text == "Hello", message.error_message
        assert len(server.requests) == 4 and server.connections == 1
        method, target, _ = server.requests[0]
        assert (method, target) == ("POST", "/model/amazon.nova-micro-v1%3A0/converse-stream")
    assert "reuse-key-1" not in repr(_client._CLIENTS)  # pyright: ignore[reportPrivateUsage]


async def test_the_reply_ends_at_metadata_when_the_server_keeps_the_connection():
    message, _ = await _call([_reply(end="hang")])
    assert message.stop_reason == "stop" and message.usage.output == 3


async def test_a_json_body_that_is_not_a_reply_is_an_error():
    message, _ = await _call([json_step(200, {"hello": "proxy"})])
    assert message.stop_reason == "error"
    assert "not a Converse response" in (message.error_message or "")
    assert "proxy" in (message.error_message or "")


async def test_an_http_error_is_named():
    body = {"message": "The provided model identifier is invalid."}
    error = json_step(400, body, {"x-amzn-ErrorType": "ValidationException:http://x/"})
    message, _ = await _call([error])
    assert message.error_message == (
        "400 Bad Request: ValidationException: The provided model identifier is invalid."
    )


async def test_an_api_key_is_sent_as_a_bearer_token():
    _, server = await _call([_reply()], key="bearer-key-7")
    assert server.headers[0]["authorization"] == "Bearer bearer-key-7"


async def test_a_reply_left_early_is_not_read_on_and_its_connection_is_not_reused():
    # A reply that ended as Bedrock ends it is drained so its connection is reused (the first
    # test above); one the caller left is closed unread: the next call opens a new connection.
    async with LoopbackServer([_reply(), _reply()]) as server:
        options = StreamOptions(api_key="early-key-1", max_retries=0)
        events = pi_sdk.stream(_model(server.url), CONTEXT, options)
        async for event in events:
            if event.type == "text_delta":
                break
        await events.aclose()
        message = await pi_sdk.complete(_model(server.url), CONTEXT, options)
        assert message.text == "Hello", message.error_message
        assert len(server.requests) == 2 and server.connections == 2
