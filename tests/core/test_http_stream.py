"""run_http_stream: framing, terminal stop, drain, error mapping, closing on every path."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from typing import Any

import httpx2
import pytest

from pi_sdk import Model, ModelCost
from pi_sdk.events import AssistantMessageEvent
from pi_sdk.provider import (
    MessageBuilder,
    ProviderError,
    connection_error_from_httpx,
    is_json_response,
    run_http_stream,
)

MODEL = Model(
    id="m", api="test-api", provider="test", base_url="https://x.test", cost=ModelCost(input=1e6)
)


class Dropped(Exception):
    """A stand-in for the transport's "connection lost" exception."""


class FakeResponse:
    """A response whose body is ``chunks``; an exception in them is raised when reached."""

    def __init__(self, chunks: list[bytes | BaseException], content_type: str) -> None:
        self.headers = {"content-type": content_type}
        self._chunks = chunks
        self.read = 0
        self.closed = False

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            if isinstance(chunk, BaseException):
                raise chunk
            self.read += 1
            yield chunk

    @property
    def exhausted(self) -> bool:
        return self.read == len(self._chunks)

    async def aclose(self) -> None:
        self.closed = True


class Decoder:
    """Text events ``{"t": "..."}``; ``{"end": true}`` is terminal; records what it got."""

    def __init__(self, builder: MessageBuilder, *, strict: bool = True) -> None:
        self.b = builder
        self.fed: list[dict[str, Any]] = []
        self.documents: list[Any] = []
        self.saw_done: bool | None = None
        self.terminal = False
        self.strict = strict

    def feed(self, data: dict[str, Any]) -> Iterable[AssistantMessageEvent]:
        self.fed.append(data)
        if data.get("end"):
            self.terminal = True
            return []
        if "usage" in data:
            self.b.set_usage(input=data["usage"], price=False)
            return []
        return self.b.text(0, data["t"])

    def feed_document(self, document: Any) -> Iterable[AssistantMessageEvent]:
        self.documents.append(document)
        return self.b.text(0, document["text"])

    def finish(self, *, saw_done: bool) -> Iterable[AssistantMessageEvent]:
        self.saw_done = saw_done
        if self.strict and not (self.terminal or saw_done):
            raise ProviderError("ended before the end event")
        return self.b.done()


def sse(*items: Any) -> bytes:
    return b"".join(
        f"data: {item if isinstance(item, str) else json.dumps(item)}\n\n".encode()
        for item in items
    )


async def run(
    response: FakeResponse, *, strict: bool = True
) -> tuple[list[AssistantMessageEvent], Decoder, MessageBuilder]:
    builder = MessageBuilder(MODEL)
    decoder = Decoder(builder, strict=strict)

    async def open_response() -> FakeResponse:
        return response

    events: list[AssistantMessageEvent] = []
    stream = run_http_stream(
        open_response, decoder, builder, transport_errors=(Dropped,), timeout_errors=()
    )
    async for event in stream:
        events.append(event)
    return events, decoder, builder


async def test_sse_events_are_fed_until_the_terminal_event_then_drained_and_closed():
    body = [sse({"t": "Hel"}, {"t": "lo"}), sse({"end": True}, {"t": "late"}), b"tail"]
    response = FakeResponse(body, "text/event-stream")
    events, decoder, builder = await run(response)
    assert " ".join(e.type for e in events) == (
        "start text_start text_delta text_delta text_end done"
    )
    assert builder.message.content[0].text == "Hello"  # type: ignore[union-attr]
    assert {"t": "late"} not in decoder.fed  # nothing after the terminal event is merged
    assert decoder.saw_done is False
    assert response.exhausted and response.closed  # the rest was drained, then closed


async def test_keep_alives_are_skipped_and_done_marker_ends_the_body():
    body = [b"data:\n\n: ping\n\ndata:  \n\n", sse({"t": "a"}, "[DONE]", {"t": "b"})]
    events, decoder, _ = await run(FakeResponse(body, "text/event-stream"))
    assert decoder.fed == [{"t": "a"}]
    assert decoder.saw_done is True
    assert events[-1].type == "done"


@pytest.mark.parametrize(
    ("data", "why"),
    [("[1, 2]", "not a JSON object"), ("{not json", "Expecting property name")],
)
async def test_an_event_that_is_not_a_json_object_is_a_named_error(data: str, why: str):
    response = FakeResponse([sse({"t": "a"}), f"event: delta\ndata: {data}\n\n".encode()], "")
    with pytest.raises(ProviderError) as info:
        await run(response)
    text = str(info.value)
    assert text.startswith("malformed stream event #2 ('delta')") and why in text
    assert data in text
    assert response.closed


async def test_a_whole_json_document_goes_to_feed_document():
    response = FakeResponse([b'{"text": ', b'"whole"}'], "Application/JSON; charset=utf-8")
    assert is_json_response(response)
    events, decoder, builder = await run(response)
    assert decoder.documents == [{"text": "whole"}] and decoder.fed == []
    assert decoder.saw_done is True
    assert [e.type for e in events][-1] == "done"
    assert builder.message.content[0].text == "whole"  # type: ignore[union-attr]


async def test_a_malformed_json_document_is_an_error_with_an_excerpt():
    response = FakeResponse([b"<html>oops</html>"], "application/json")
    with pytest.raises(
        ProviderError, match=r"malformed JSON response: Expecting value.*body: .oops."
    ):
        await run(response)
    assert response.closed


async def test_a_body_cut_inside_an_event_is_an_error():
    response = FakeResponse([sse({"t": "a"}), b'data: {"t": "b'], "text/event-stream")
    with pytest.raises(ProviderError, match="cut in the middle of an event"):
        await run(response, strict=False)
    assert response.closed


async def test_a_clean_end_without_terminal_event_reaches_finish():
    response = FakeResponse([sse({"t": "a"})], "text/event-stream")
    with pytest.raises(ProviderError, match="ended before the end event"):
        await run(response)
    events, decoder, _ = await run(
        FakeResponse([sse({"t": "a"})], "text/event-stream"), strict=False
    )
    assert decoder.saw_done is False and events[-1].type == "done"


async def test_a_drop_before_the_first_byte_fails_before_start_and_is_retryable():
    response = FakeResponse([Dropped("reset")], "text/event-stream")
    builder = MessageBuilder(MODEL)

    async def open_response() -> FakeResponse:
        return response

    stream = run_http_stream(open_response, Decoder(builder), builder, transport_errors=(Dropped,))
    with pytest.raises(ProviderError) as info:
        await anext(stream)  # not even ``start``
    assert info.value.retryable and "before the response" in str(info.value)
    assert response.closed


async def test_a_drop_mid_body_is_a_retryable_connection_error():
    response = FakeResponse([sse({"t": "a"}), Dropped("reset")], "text/event-stream")
    with pytest.raises(ProviderError) as info:
        await run(response)
    assert info.value.retryable and "reset" in str(info.value)
    assert response.closed


async def test_usage_is_priced_even_when_the_stream_fails():
    response = FakeResponse([sse({"usage": 2}), Dropped("reset")], "text/event-stream")
    builder = MessageBuilder(MODEL)

    async def open_response() -> FakeResponse:
        return response

    stream = run_http_stream(open_response, Decoder(builder), builder, transport_errors=(Dropped,))
    with pytest.raises(ProviderError):
        async for _ in stream:
            pass
    assert builder.message.usage.cost.input == 2.0  # 2 tokens at 1e6 USD per million


async def test_a_consumer_that_stops_early_closes_the_response_without_draining():
    body = [sse({"t": "a"}), sse({"t": "b"}), sse({"end": True})]
    response = FakeResponse(body, "text/event-stream")
    builder = MessageBuilder(MODEL)

    async def open_response() -> FakeResponse:
        return response

    stream = run_http_stream(open_response, Decoder(builder), builder)
    assert (await anext(stream)).type == "start"
    assert (await anext(stream)).type == "text_start"
    await stream.aclose()
    assert response.closed and not response.exhausted


async def test_a_consumer_that_stops_at_done_still_drains():
    response = FakeResponse([sse({"t": "a"}, {"end": True}), b"rest"], "text/event-stream")
    builder = MessageBuilder(MODEL)

    async def open_response() -> FakeResponse:
        return response

    stream = run_http_stream(open_response, Decoder(builder), builder)
    async for event in stream:
        if event.type == "done":
            break
    await stream.aclose()
    assert response.closed and response.exhausted


async def test_an_error_from_open_response_propagates_before_any_event():
    builder = MessageBuilder(MODEL)

    async def open_response() -> FakeResponse:
        raise ProviderError("429 Too Many Requests", status=429, retryable=True)

    stream = run_http_stream(open_response, Decoder(builder), builder)
    with pytest.raises(ProviderError, match="429"):
        await anext(stream)


def _sdk_error(name: str, cause: BaseException) -> Exception:
    error = type(name, (Exception,), {})("Connection error.")
    error.__cause__ = cause
    return error


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (_sdk_error("APIConnectionError", httpx2.ConnectError("refused")), "could not connect"),
        (_sdk_error("APITimeoutError", httpx2.ConnectTimeout("slow")), "timed out connecting"),
        (_sdk_error("APIConnectionError", httpx2.RemoteProtocolError("eof")), "connection closed"),
        (_sdk_error("APITimeoutError", httpx2.ReadTimeout("slow")), "timed out waiting"),
    ],
)
def test_sdk_connection_errors_are_retryable_and_name_the_phase(error: Exception, text: str):
    mapped = connection_error_from_httpx(error)
    assert mapped.retryable and str(mapped).startswith(text)
    assert str(error.__cause__) in str(mapped)


def _chained(error: httpx2.TransportError) -> httpx2.TransportError:
    error.__cause__ = OSError("[Errno 111] Connection refused")  # httpx2 chains httpcore2's error
    return error


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (_chained(httpx2.ConnectError("refused")), "could not connect"),
        (_chained(httpx2.ConnectTimeout("slow")), "timed out connecting"),
        (_chained(httpx2.RemoteProtocolError("eof")), "connection closed"),
        (_chained(httpx2.ReadTimeout("slow")), "timed out waiting"),
    ],
)
def test_a_raw_httpx2_error_is_classified_by_itself_not_its_cause(
    error: httpx2.TransportError, text: str
):
    """Providers sending with httpx2 directly (Bedrock, the guide's echo) pass the error itself."""
    mapped = connection_error_from_httpx(error)
    assert mapped.retryable and str(mapped).startswith(text), str(mapped)
