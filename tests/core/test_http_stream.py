"""run_http_stream: framing, terminal stop, drain, error mapping, closing on every path."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable
from contextlib import aclosing
from typing import Any

import httpx2
import pytest

from pi_sdk import AbortController, Model, ModelCost, TextContent
from pi_sdk._stream.event_stream import AssistantMessageEventStream
from pi_sdk.events import AssistantMessageEvent
from pi_sdk.provider import (
    MessageBuilder,
    ProviderError,
    connection_error_from_httpx,
    forwards_events,
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

    await _leave_at_done(run_http_stream(open_response, Decoder(builder), builder))
    assert response.closed and response.exhausted


async def _leave_at_done(stream: Any) -> None:
    """Read ``stream`` up to its ``done`` event, then close it."""
    async for event in stream:
        if event.type == "done":
            break
    await stream.aclose()


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


# --- through the core: the kit hands it an EventPump ------------------------------------------


class Paused:
    """A body item: the server sends nothing for ``seconds``."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds


class SlowResponse(FakeResponse):
    """A ``FakeResponse`` whose body may pause (:class:`Paused`) between chunks."""

    def __init__(self, chunks: list[Any], content_type: str = "text/event-stream") -> None:
        super().__init__([c for c in chunks if not isinstance(c, Paused)], content_type)
        self._items = chunks

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        for item in self._items:
            if isinstance(item, Paused):
                await asyncio.sleep(item.seconds)
                continue
            if isinstance(item, BaseException):
                raise item
            self.read += 1
            yield item


@forwards_events
async def _provider(
    response: FakeResponse, builders: list[MessageBuilder], rewrite: bool, seen: list[str] | None
) -> AsyncIterator[AssistantMessageEvent]:
    """A first-party provider's shape: the kit's events forwarded, its errors maybe rewritten.

    ``seen`` gets the class name of each item that passes through it.
    """
    builder = MessageBuilder(MODEL)
    builders.append(builder)

    async def open_response() -> FakeResponse:
        return response

    events = run_http_stream(open_response, Decoder(builder), builder, transport_errors=(Dropped,))
    try:
        async with aclosing(events) as stream:
            async for event in stream:
                if seen is not None:
                    seen.append(type(event).__name__)
                yield event
    except ProviderError as exc:
        if not rewrite:
            raise
        raise ProviderError(f"provider says: {exc}") from exc


def core_stream(
    response: FakeResponse,
    *,
    rewrite: bool = False,
    marked: bool = True,
    seen: list[str] | None = None,
    **limits: Any,
) -> tuple[AssistantMessageEventStream, list[MessageBuilder]]:
    """The call as ``pi_sdk.stream`` runs it: the core over a provider generator over the kit.

    ``rewrite``: the provider's generator, as pi-sdk-azure's does, replaces a ``ProviderError``
    raised from the kit by its own. ``marked``: the core gets the :func:`forwards_events`
    generator itself (else an unmarked one around it, as a caller's own wrapper would be).
    """
    builders: list[MessageBuilder] = []

    def start() -> AsyncIterator[AssistantMessageEvent]:
        return _provider(response, builders, rewrite, seen)

    async def wrapped() -> AsyncIterator[AssistantMessageEvent]:
        async with aclosing(_provider(response, builders, rewrite, seen)) as stream:
            async for event in stream:
                yield event

    stream = AssistantMessageEventStream(start if marked else wrapped, model=MODEL, **limits)
    return stream, builders


async def test_only_a_marked_provider_generator_is_passed_by():
    """Unmarked, the provider's generator forwards every event (it may look at them)."""
    body = [sse({"t": "Hel"}, {"t": "lo"}, {"end": True})]
    plain: list[str] = []
    stream, _ = core_stream(FakeResponse(body, "text/event-stream"), marked=False, seen=plain)
    assert (await stream.result()).text == "Hello"
    assert plain == [
        "StartEvent",
        "TextStartEvent",
        "TextDeltaEvent",
        "TextDeltaEvent",
        "TextEndEvent",
        "DoneEvent",
    ]
    marked: list[str] = []
    stream, _ = core_stream(FakeResponse(body, "text/event-stream"), seen=marked)
    assert (await stream.result()).text == "Hello"
    assert marked == ["EventPump"]  # the core read the events from the kit's body loop


async def test_the_core_gets_the_same_events_and_each_partial_is_exact_at_its_event():
    """The pump decodes lazily: a whole chunk of events is never applied ahead of the reader."""
    body = [sse({"t": "a"}, {"t": "b"}, {"t": "c"}), sse({"t": "d"}, {"end": True})]
    direct, _, _ = await run(FakeResponse(body, "text/event-stream"))
    stream, _ = core_stream(FakeResponse(body, "text/event-stream"))
    seen: list[tuple[str, str]] = []
    async for event in stream:
        text = "".join(b.text for b in event.partial.content if isinstance(b, TextContent))
        seen.append((event.type, text))
    assert [t for t, _ in seen] == [e.type for e in direct]
    assert seen[2:6] == [
        ("text_delta", "a"),
        ("text_delta", "ab"),
        ("text_delta", "abc"),
        ("text_delta", "abcd"),
    ]
    assert (await stream.result()).stop_reason == "stop"


async def test_a_failure_in_the_body_goes_through_the_providers_own_handler():
    response = FakeResponse([sse({"t": "Hel"}), Dropped("reset")], "text/event-stream")
    stream, builders = core_stream(response, rewrite=True)
    message = await stream.result()
    assert message.stop_reason == "error"
    assert (message.error_message or "").startswith("provider says: "), message.error_message
    assert message.text == "Hel" and response.closed
    assert builders[0].message is message


async def test_the_core_closes_and_drains_the_response_after_done():
    response = FakeResponse([sse({"t": "Hel"}, {"end": True}), b"tail"], "text/event-stream")
    stream, _ = core_stream(response)
    await _leave_at_done(stream)
    assert response.closed and response.exhausted


async def test_a_consumer_slower_than_the_idle_limit_is_not_a_silent_server():
    """Stalls are measured on the wire reads; the time the consumer takes is not silence."""
    body = [sse({"t": "Hel"}), sse({"t": "lo"}), Paused(0.01), sse({"end": True})]
    stream, _ = core_stream(SlowResponse(body), idle_timeout_ms=50)
    async for event in stream:
        if event.type == "text_delta":
            await asyncio.sleep(0.2)
    message = await stream.result()
    assert message.stop_reason == "stop", message.error_message
    assert message.text == "Hello"


async def test_a_wire_read_is_timed_from_its_start_not_from_the_last_bytes():
    """The reader took most of the limit since the last bytes; the read that follows gets it all.

    Limit 200 ms: 150 ms after the first bytes the next read starts, and its bytes come 120 ms
    later (270 ms after the last ones, 120 ms into the read): no silence of 200 ms on the wire.
    """
    body = [sse({"t": "Hel"}), Paused(0.12), sse({"t": "lo"}, {"end": True})]
    stream, _ = core_stream(SlowResponse(body), idle_timeout_ms=200)
    async for event in stream:
        if event.type == "text_delta" and event.delta == "Hel":
            await asyncio.sleep(0.15)
    message = await stream.result()
    assert message.stop_reason == "stop", message.error_message
    assert message.text == "Hello"


async def test_a_wire_read_that_stalls_past_the_idle_limit_ends_the_call_and_closes():
    response = SlowResponse([sse({"t": "Hel"}), Paused(5), sse({"t": "lo"}, {"end": True})])
    stream, _ = core_stream(response, idle_timeout_ms=50)
    message = await asyncio.wait_for(stream.result(), timeout=3)
    assert message.stop_reason == "error"
    assert message.error_message == "timed out: the provider sent nothing for 50 ms"
    assert message.text == "Hel" and response.closed


async def test_an_abort_during_a_stalled_wire_read_ends_the_call_as_aborted():
    controller = AbortController()
    response = SlowResponse([sse({"t": "Hel"}), Paused(5), sse({"end": True})])
    stream, _ = core_stream(response, signal=controller.signal)
    types: list[str] = []
    async for event in stream:
        types.append(event.type)
        if event.type == "text_delta":
            asyncio.get_running_loop().call_later(0.05, controller.abort)
    message = await asyncio.wait_for(stream.result(), timeout=3)
    assert types == ["start", "text_start", "text_delta", "error"]
    assert (message.stop_reason, message.error_message) == ("aborted", "Request was aborted")
    assert message.text == "Hel" and response.closed


async def test_an_outside_cancellation_of_a_pumped_read_propagates():
    response = SlowResponse([sse({"t": "Hel"}), Paused(5), sse({"end": True})])
    stream, _ = core_stream(response, idle_timeout_ms=60_000)
    task = asyncio.create_task(stream.result())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert response.closed
