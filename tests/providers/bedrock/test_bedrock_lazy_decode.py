"""A chunk of many frames is decoded frame by frame (``Decoder.iter_bytes``, what the core reads).

``start`` (deferred to the first content on Bedrock) goes out once the first content frame is
decoded, not after the whole chunk; ``iter_bytes`` gives ``feed_bytes``'s events; and content
followed by an exception frame in one chunk ends the call with the content kept, as when they
come in separate chunks (``HttpCall.start_on_content``).
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from _support.conformance import ChunkedTransport, Reply, collect
from pi_sdk_bedrock.converse import BedrockClient
from pi_sdk_bedrock.converse._decode import Decoder
from test_bedrock_frames import frame
from test_bedrock_stream import BASE, CTX, MODEL, START, STREAM_HEADERS, delta, end

import pi_sdk
from pi_sdk import StreamOptions, TextContent
from pi_sdk.provider import MessageBuilder, ProviderError

WHOLE = 1 << 20
"""A chunk size larger than any body here: the reply arrives in one chunk."""


async def _run(*bodies: bytes, **options: Any) -> tuple[list[Any], pi_sdk.AssistantMessage, Any]:
    replies = [Reply(status=200, body=body, headers=STREAM_HEADERS) for body in bodies]
    transport = ChunkedTransport(replies, chunk_size=WHOLE)
    client = BedrockClient(
        httpx2.AsyncClient(transport=transport), region="us-west-2", endpoint=BASE, token="k"
    )
    try:
        opts = StreamOptions(client=client, **options)
        events, message = await collect(pi_sdk.stream(MODEL, CTX, opts))
    finally:
        await client.close()
    return events, message, transport


def _body(pieces: int) -> bytes:
    return START + b"".join(delta(0, text=f"w{i} ") for i in range(pieces)) + end()


def test_iter_bytes_gives_feed_bytes_events_and_stops_after_metadata() -> None:
    body = _body(5) + delta(1, text="after the end")

    def types(eager: bool) -> tuple[list[str], str]:
        builder = MessageBuilder(MODEL)
        builder.start()
        decoder = Decoder(builder)
        events = decoder.feed_bytes(body) if eager else list(decoder.iter_bytes(body))
        return [e.type for e in events], builder.message.text

    assert types(eager=False) == types(eager=True)
    assert types(eager=False)[1] == "w0 w1 w2 w3 w4 "


def test_iter_bytes_decodes_a_frame_when_the_events_before_it_were_taken() -> None:
    builder = MessageBuilder(MODEL)
    builder.start()
    events = Decoder(builder).iter_bytes(_body(50))
    assert next(iter(events)).type == "text_start"
    assert builder.message.text == "w0 "  # one frame decoded of the 53 in the chunk


async def test_start_comes_before_the_rest_of_a_one_chunk_reply_is_decoded() -> None:
    texts: list[str] = []
    replies = [Reply(status=200, body=_body(50), headers=STREAM_HEADERS)]
    transport = ChunkedTransport(replies, chunk_size=WHOLE)
    client = BedrockClient(
        httpx2.AsyncClient(transport=transport), region="us-west-2", endpoint=BASE, token="k"
    )
    try:
        stream = pi_sdk.stream(MODEL, CTX, StreamOptions(client=client))
        async for event in stream:
            if event.type == "start":
                texts.append(event.partial.text)
        message = await stream.result()
    finally:
        await client.close()
    assert texts == ["w0 "]  # at start, the first content frame decoded, not the 50 of the chunk
    assert message.text == "".join(f"w{i} " for i in range(50))


async def test_content_then_an_exception_frame_in_one_chunk_keeps_the_content() -> None:
    after_content = (
        START
        + delta(0, text="Par")
        + frame("throttlingException", {"message": "slow"}, message_type="exception")
    )
    events, message, transport = await _run(
        after_content, _body(1), max_retries=2, max_retry_delay_ms=1
    )
    assert [e.type for e in events] == ["start", "text_start", "text_delta", "error"]
    assert (message.stop_reason, message.content) == ("error", [TextContent(text="Par")])
    assert message.error_message == "throttlingException: slow"
    assert len(transport.requests) == 1


async def test_an_exception_frame_before_content_in_one_chunk_is_still_retried() -> None:
    failed = START + frame("throttlingException", {"message": "slow"}, message_type="exception")
    events, message, transport = await _run(failed, _body(1), max_retries=1, max_retry_delay_ms=1)
    assert (message.stop_reason, message.text) == ("stop", "w0 ")
    assert [e.type for e in events].count("start") == 1 and len(transport.requests) == 2


def test_a_corrupt_frame_after_content_raises_when_reached() -> None:
    builder = MessageBuilder(MODEL)
    builder.start()
    events = Decoder(builder).iter_bytes(delta(0, text="a") + b"\x00" * 16)
    with pytest.raises(ProviderError, match="malformed event-stream frame"):
        list(events)
