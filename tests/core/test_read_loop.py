"""The core's read loop, through ``pi_sdk.stream``: a wire API on the kit hands over its call plan.

Each test registers a wire API whose call function returns an :class:`HttpCall` over fake
responses (a body given chunk by chunk, a drop, a pause), then asserts what a caller sees: the
events, the final message, and what happened to the connection (the response closed, drained or
not, the client lease left) on every path: end, error, abort, timeout, a consumer that stops.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest

import pi_sdk
from pi_sdk import AbortController, Context, Model, ModelCost, StreamOptions, UserMessage
from pi_sdk._stream.wire_decoder import is_json_response
from pi_sdk.events import AssistantMessageEvent
from pi_sdk.provider import (
    ApiProvider,
    HttpCall,
    MessageBuilder,
    ProviderError,
    connection_error_from_httpx,
)

API = "test-read-loop"
MODEL = Model(
    id="m", api=API, provider="test", base_url="https://x.test", cost=ModelCost(input=1e6)
)
CONTEXT = Context(messages=[UserMessage(content="hi")])
QUICK = {"max_retries": 0}


class Dropped(Exception):
    """A stand-in for the transport's "connection lost" exception."""


class Paused:
    """A body item: the server sends nothing for ``seconds``."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds


class FakeResponse:
    """A response whose body is ``items``: bytes, a :class:`Paused`, or an exception raised."""

    def __init__(self, items: list[Any], content_type: str = "text/event-stream") -> None:
        self.headers = {"content-type": content_type}
        self.status_code = 200
        self._items = items
        self.read = 0
        self.closed = False

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        for item in self._items:
            if isinstance(item, Paused):
                await asyncio.sleep(item.seconds)
                continue
            if isinstance(item, BaseException):
                raise item
            self.read += 1
            yield item

    @property
    def exhausted(self) -> bool:
        return self.read == sum(isinstance(item, bytes) for item in self._items)

    async def aclose(self) -> None:
        self.closed = True


class Decoder:
    """Text events ``{"t": "..."}``; ``{"end": true}`` is terminal; ``{"fail": ...}`` raises."""

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
        if "fail" in data:
            raise ProviderError(data["fail"], retryable=True)
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


class ByteDecoder(Decoder):
    """The same events as JSON frames each ended by ``|``: a decoder that owns its framing."""

    def __init__(self, builder: MessageBuilder) -> None:
        super().__init__(builder)
        self.chunks: list[bytes] = []
        self.rest = b""

    def feed_bytes(self, chunk: bytes) -> Iterable[AssistantMessageEvent]:
        self.chunks.append(chunk)
        *frames, self.rest = (self.rest + chunk).split(b"|")
        events: list[AssistantMessageEvent] = []
        for frame in frames:
            events += self.feed(json.loads(frame))
            if self.terminal:
                break
        return events

    def finish(self, *, saw_done: bool) -> Iterable[AssistantMessageEvent]:
        if self.rest and not self.terminal:
            raise ProviderError("cut inside a frame", incomplete=True)
        return super().finish(saw_done=saw_done)


def sse(*items: Any) -> bytes:
    return b"".join(
        f"data: {item if isinstance(item, str) else json.dumps(item)}\n\n".encode()
        for item in items
    )


def frames(*items: Any) -> bytes:
    return b"".join(json.dumps(item).encode() + b"|" for item in items)


class Wire:
    """A wire API on the kit: each attempt's plan sends to the next of ``replies``.

    A reply is a :class:`FakeResponse` or an exception ``send`` raises. Records the payloads
    sent, the decoders made, and the client leases entered and left.
    """

    def __init__(
        self,
        *replies: FakeResponse | BaseException,
        decoder: Callable[[MessageBuilder], Any] = Decoder,
        **plan: Any,
    ) -> None:
        self.replies = list(replies)
        self.responses: list[FakeResponse] = []
        """The responses sent back, in order."""
        self.decoder = decoder
        self.plan = plan
        self.sent: list[dict[str, Any]] = []
        self.decoders: list[Any] = []
        self.entered = self.left = 0

    async def call(self, model: Model, context: Context, options: StreamOptions) -> HttpCall[str]:
        return HttpCall(
            lease=self._lease(),
            base_url=lambda client: f"https://{client}.test/v1",
            build_payload=lambda origin: {"origin": origin},
            send=self._send,
            decoder=self._decoder,
            errors=((Dropped,), ()),
            **self.plan,
        )

    @asynccontextmanager
    async def _lease(self) -> AsyncIterator[str]:
        self.entered += 1
        try:
            yield "called"
        finally:
            self.left += 1

    def _decoder(self, builder: MessageBuilder) -> Any:
        decoder = self.decoder(builder)
        self.decoders.append(decoder)
        return decoder

    async def _send(self, client: str, payload: dict[str, Any]) -> FakeResponse:
        self.sent.append(payload)
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        self.responses.append(reply)
        return reply

    @property
    def released(self) -> bool:
        """Every response closed and every lease left."""
        return all(r.closed for r in self.responses) and self.entered == self.left


@pytest.fixture
def wire(plugin_manager: Any) -> Callable[..., Wire]:
    """``wire(*replies, **plan)``: a :class:`Wire`, registered as the provider of ``API``."""

    def make(*replies: FakeResponse | BaseException, **plan: Any) -> Wire:
        made = Wire(*replies, **plan)
        pi_sdk.register_api_provider(ApiProvider(api=API, call=made.call), replace=True)
        return made

    return make


async def run(**options: Any) -> tuple[list[AssistantMessageEvent], pi_sdk.AssistantMessage]:
    stream = pi_sdk.stream(MODEL, CONTEXT, StreamOptions(**options))
    events = [event async for event in stream]
    return events, await stream.result()


def types(events: list[AssistantMessageEvent]) -> str:
    return " ".join(event.type for event in events)


# --- reading a reply ---------------------------------------------------------------------------


async def test_sse_events_are_fed_until_the_terminal_event_then_drained_and_closed(wire):
    body = [sse({"t": "Hel"}, {"t": "lo"}), sse({"end": True}, {"t": "late"}), b"tail"]
    api = wire(FakeResponse(body))
    events, message = await run()
    assert types(events) == "start text_start text_delta text_delta text_end done"
    assert message.text == "Hello" and message.stop_reason == "stop"
    [decoder] = api.decoders
    assert {"t": "late"} not in decoder.fed  # nothing after the terminal event is merged
    assert decoder.saw_done is False
    assert api.responses[0].exhausted and api.released  # the rest was drained, then closed


async def test_keep_alives_are_skipped_and_the_done_marker_ends_the_body(wire):
    body = [b"data:\n\n: ping\n\ndata:  \n\n", sse({"t": "a"}, "[DONE]", {"t": "b"})]
    api = wire(FakeResponse(body))
    events, _ = await run()
    assert api.decoders[0].fed == [{"t": "a"}]
    assert api.decoders[0].saw_done is True
    assert events[-1].type == "done"


@pytest.mark.parametrize(
    ("data", "why"),
    [("[1, 2]", "not a JSON object"), ("{not json", "Expecting property name")],
)
async def test_an_event_that_is_not_a_json_object_is_a_named_error(wire, data: str, why: str):
    api = wire(FakeResponse([sse({"t": "a"}), f"event: delta\ndata: {data}\n\n".encode()]))
    events, message = await run()
    assert types(events).endswith("text_delta error")
    text = message.error_message or ""
    assert text.startswith("malformed stream event #2 ('delta')") and why in text
    assert data in text and message.text == "a"
    assert api.released


async def test_a_whole_json_document_goes_to_feed_document(wire):
    response = FakeResponse([b'{"text": ', b'"whole"}'], "Application/JSON; charset=utf-8")
    assert is_json_response(response)
    api = wire(response)
    events, message = await run()
    [decoder] = api.decoders
    assert decoder.documents == [{"text": "whole"}] and decoder.fed == []
    assert decoder.saw_done is True
    assert events[-1].type == "done" and message.text == "whole"
    assert api.released


async def test_a_malformed_json_document_is_an_error_with_an_excerpt(wire):
    api = wire(FakeResponse([b"<html>oops</html>"], "application/json"))
    _, message = await run()
    assert message.stop_reason == "error"
    assert (message.error_message or "").startswith("malformed JSON response: Expecting value")
    assert (message.error_message or "").endswith("body: 'oops'")  # the excerpt, tags dropped
    assert api.released


async def test_a_page_where_the_stream_should_be_is_named_with_the_plans_words(wire):
    api = wire(FakeResponse([b"<html>portal</html>"], "text/html"), stream_kind="a test stream")
    _, message = await run()
    assert message.error_message == (
        "the server answered 200 with text/html, not a test stream: 'portal'"
    )
    assert api.released


async def test_a_clean_end_without_the_terminal_event_reaches_finish(wire):
    api = wire(FakeResponse([sse({"t": "a"})]))
    _, message = await run()
    assert (message.stop_reason, message.error_message) == ("error", "ended before the end event")
    assert message.text == "a" and api.released


async def test_a_body_cut_inside_an_event_is_an_error_even_for_a_lenient_decoder(wire):
    api = wire(
        FakeResponse([sse({"t": "a"}), b'data: {"t": "b']),
        decoder=lambda builder: Decoder(builder, strict=False),
    )
    _, message = await run()
    assert message.stop_reason == "error" and message.text == "a"
    assert "cut in the middle of an event" in (message.error_message or "")
    assert message.usage_estimated and api.released


async def test_a_settled_reply_cut_in_its_final_marker_is_complete(wire):
    class Settled(Decoder):
        settled = True  # the stop reason and usage arrived; only the final marker is missing

    lenient = lambda builder: Settled(builder, strict=False)  # noqa: E731
    wire(FakeResponse([sse({"t": "a"}), b'data: {"end": tr']), decoder=lenient)
    _, message = await run()
    assert (message.stop_reason, message.text) == ("stop", "a")


async def test_each_partial_is_exact_at_its_event(wire):
    """The loop decodes as the consumer asks: a chunk's events are not applied ahead of it."""
    wire(FakeResponse([sse({"t": "a"}, {"t": "b"}, {"t": "c"}), sse({"t": "d"}, {"end": True})]))
    seen: list[tuple[str, str]] = []
    stream = pi_sdk.stream(MODEL, CONTEXT)
    async for event in stream:
        seen.append((event.type, event.partial.text))
    assert seen[2:6] == [
        ("text_delta", "a"),
        ("text_delta", "ab"),
        ("text_delta", "abc"),
        ("text_delta", "abcd"),
    ]


async def test_the_payload_is_built_for_the_url_called_then_hooked(wire):
    api = wire(FakeResponse([sse({"t": "a"}, {"end": True})]))

    def hook(payload: dict[str, Any], model: Model) -> dict[str, Any]:
        return {**payload, "hooked": model.id}

    _, message = await run(on_payload=hook)
    assert api.sent == [{"origin": f"{API}@https://called.test", "hooked": "m"}]
    assert message.signature_origin == f"{API}@https://called.test"


async def test_a_byte_decoder_gets_the_raw_chunks_and_owns_its_framing(wire):
    body = frames({"t": "Hel"}, {"t": "lo"}, {"end": True}, {"t": "late"})
    api = wire(FakeResponse([body[:9], body[9:20], body[20:]]), decoder=ByteDecoder)
    events, message = await run()
    assert types(events) == "start text_start text_delta text_delta text_end done"
    assert message.text == "Hello"
    assert api.decoders[0].chunks == [body[:9], body[9:20], body[20:]]
    assert api.released


# --- failures: one error event, the partial kept -----------------------------------------------


async def test_a_drop_before_the_first_bytes_is_retried(wire):
    ok = FakeResponse([sse({"t": "ok"}, {"end": True})])
    api = wire(FakeResponse([Dropped("reset")]), ok)
    events, message = await run(max_retries=1, max_retry_delay_ms=1)
    assert (message.stop_reason, message.text) == ("stop", "ok")
    assert types(events).split().count("start") == 1 and len(api.sent) == 2
    assert api.released and api.entered == 2


async def test_a_drop_before_the_first_bytes_not_retried_ends_before_any_content(wire):
    api = wire(FakeResponse([Dropped("reset")]))
    events, message = await run(**QUICK)
    assert types(events) == "start error"
    assert "before the response" in (message.error_message or "")
    assert api.released


async def test_a_refused_send_is_retried_before_start(wire):
    busy = ProviderError("429 Too Many Requests", status=429, retryable=True)
    api = wire(busy, FakeResponse([sse({"t": "ok"}, {"end": True})]))
    _, message = await run(max_retries=1, max_retry_delay_ms=1)
    assert (message.stop_reason, message.text, len(api.sent)) == ("stop", "ok", 2)
    assert api.released and api.entered == 2


async def test_a_drop_mid_body_ends_in_one_error_with_the_partial_kept_not_retried(wire):
    api = wire(FakeResponse([sse({"t": "Hel"}), Dropped("reset")]), FakeResponse([]))
    events, message = await run(max_retries=2, max_retry_delay_ms=1)
    assert types(events).split().count("error") == 1 and message.stop_reason == "error"
    assert message.text == "Hel" and "reset" in (message.error_message or "")
    assert message.usage_estimated  # the vendor's usage never came: estimated
    assert len(api.sent) == 1 and api.released


async def test_usage_is_priced_even_when_the_stream_fails(wire):
    wire(FakeResponse([sse({"usage": 2}), Dropped("reset")]))
    _, message = await run()
    assert message.stop_reason == "error"
    assert message.usage.cost.input == 2.0  # 2 tokens at 1e6 USD per million


async def test_map_error_rewrites_each_error_of_the_call(wire):
    def mapped(error: ProviderError) -> ProviderError:
        return ProviderError(f"provider says: {error}", retryable=error.retryable)

    refused = ProviderError("400 Bad Request", status=400)
    api = wire(refused, map_error=mapped)
    _, message = await run()
    assert message.error_message == "provider says: 400 Bad Request"
    api = wire(FakeResponse([sse({"t": "Hel"}), Dropped("reset")]), map_error=mapped)
    _, message = await run()
    assert (message.error_message or "").startswith("provider says: ")
    assert message.text == "Hel" and api.released


@pytest.mark.parametrize("framing", ["sse", "bytes"])
async def test_a_body_cut_at_any_offset_ends_in_one_error_or_is_complete(wire, framing: str):
    """Cut at every byte: one terminal event; the text so far kept; the connection released."""
    items = [{"t": "Hel"}, {"t": "lo"}, {"t": " there"}]
    encode, decoder = (sse, Decoder) if framing == "sse" else (frames, ByteDecoder)
    content = encode(*items)
    body = content + encode({"end": True})
    for offset in range(len(body) + 1):
        cut = body[:offset]
        api = wire(FakeResponse([cut[i : i + 5] for i in range(0, len(cut), 5)]), decoder=decoder)
        events, message = await run(**QUICK)
        assert sum(e.type in ("done", "error") for e in events) == 1, offset
        assert events[0].type == "start", offset
        assert "Hello there".startswith(message.text), offset
        if api.decoders[0].terminal:
            assert (message.stop_reason, message.text) == ("stop", "Hello there"), offset
        else:
            assert message.stop_reason == "error" and message.error_message, offset
        assert offset > len(content) or message.stop_reason == "error", offset
        assert api.released, offset
    assert message.stop_reason == "stop"  # the whole body


# --- leaving early: the connection is released at every event ----------------------------------


def _reply() -> list[bytes]:
    return [sse({"t": "a"}), sse({"t": "b"}), sse({"t": "c"}), sse({"end": True}), b"tail"]


EVENTS = 7
"""start, text_start, three deltas, text_end, done."""


@pytest.mark.parametrize("at", range(EVENTS))
@pytest.mark.parametrize("how", ["break", "aclose", "abort"])
async def test_leaving_at_any_event_releases_the_connection(wire, how: str, at: int):
    api = wire(FakeResponse(_reply()))
    controller = AbortController()
    stream = pi_sdk.stream(MODEL, CONTEXT, StreamOptions(signal=controller.signal))
    seen: list[str] = []
    async with stream:
        async for event in stream:
            seen.append(event.type)
            if len(seen) - 1 == at:
                if how == "break":
                    break
                if how == "aclose":
                    await stream.aclose()
                    break
                controller.abort()
    message = await stream.result()
    assert api.released, (how, at)
    # Once the terminal event was read (text_end and done come after it), the reply is
    # complete: the rest of the body is drained for reuse; left before it, closed undrained.
    assert api.responses[0].exhausted is (at >= EVENTS - 2), (how, at)
    if at == EVENTS - 1:
        assert message.stop_reason == "stop"
    elif how == "abort":
        assert seen[-1] == "error" and message.stop_reason == "aborted"
    else:
        assert message.stop_reason == "aborted"
        # what was read is kept (a prefix of the whole text, at least the deltas seen), the
        # reason is the consumer's leaving, and the usage is an estimate of what was sent
        assert message.error_message == "stream closed by the consumer", (how, at)
        assert "abc".startswith(message.text) and len(message.text) >= seen.count("text_delta")
        assert message.usage_estimated is True, (how, at)


# --- start on the first content (HttpCall.start_on_content) ------------------------------------


async def test_an_error_before_the_first_content_is_retried_when_start_waits_for_content(wire):
    failed = FakeResponse([sse({"usage": 1}, {"fail": "transient, retry"})])
    ok = FakeResponse([sse({"t": "ok"}, {"end": True})])
    api = wire(failed, ok, start_on_content=True)
    events, message = await run(max_retries=1, max_retry_delay_ms=1)
    assert (message.stop_reason, message.text) == ("stop", "ok")
    assert types(events) == "start text_start text_delta text_end done"
    assert len(api.sent) == 2 and api.released


async def test_an_error_after_the_first_content_is_final_when_start_waits_for_content(wire):
    failed = FakeResponse([sse({"t": "Par"}, {"fail": "transient, retry"})])
    api = wire(failed, FakeResponse([]), start_on_content=True)
    events, message = await run(max_retries=1, max_retry_delay_ms=1)
    assert types(events) == "start text_start text_delta error"
    assert (message.stop_reason, message.text) == ("error", "Par")
    assert len(api.sent) == 1 and api.released


@pytest.mark.parametrize("decoder", [Decoder, ByteDecoder])
async def test_a_reply_without_content_still_starts_when_start_waits_for_content(wire, decoder):
    body = sse({"usage": 1}, {"end": True}) if decoder is Decoder else frames({"end": True})
    wire(FakeResponse([body]), decoder=decoder, start_on_content=True)
    events, message = await run()
    assert types(events) == "start done" and message.stop_reason == "stop"


async def test_the_byte_path_also_starts_on_content(wire):
    failed = FakeResponse([frames({"usage": 1}), frames({"fail": "throttled"})])
    ok = FakeResponse([frames({"t": "ok"}, {"end": True})])
    api = wire(failed, ok, decoder=ByteDecoder, start_on_content=True)
    _, message = await run(max_retries=1, max_retry_delay_ms=1)
    assert (message.stop_reason, message.text, len(api.sent)) == ("stop", "ok", 2)


class LazyByteDecoder(ByteDecoder):
    """:class:`ByteDecoder` with ``iter_bytes``: frames decoded one by one, as they are taken."""

    def iter_bytes(self, chunk: bytes) -> Iterator[AssistantMessageEvent]:
        self.chunks.append(chunk)
        *pieces, self.rest = (self.rest + chunk).split(b"|")
        for piece in pieces:
            yield from self.feed(json.loads(piece))
            if self.terminal:
                return


async def test_start_goes_out_before_the_rest_of_a_chunk_is_decoded(wire):
    """With ``iter_bytes``, the first event of a long chunk does not wait for the chunk."""
    body = frames({"usage": 1}, {"t": "a"}, {"t": "b"}, {"t": "c"}, {"end": True})
    api = wire(FakeResponse([body]), decoder=LazyByteDecoder, start_on_content=True)
    stream = pi_sdk.stream(MODEL, CONTEXT, StreamOptions())
    decoded_at: dict[str, int] = {}
    async for event in stream:
        decoded_at.setdefault(event.type, len(api.decoders[0].fed))
    assert decoded_at["start"] == 2  # the usage frame and the first text: not the whole chunk
    assert decoded_at["done"] == 5
    message = await stream.result()
    assert (message.stop_reason, message.text) == ("stop", "abc")


@pytest.mark.parametrize("decoder", [ByteDecoder, LazyByteDecoder])
async def test_an_error_after_content_in_one_chunk_is_final_on_the_lazy_byte_path(wire, decoder):
    """Content then an error in one chunk: as on the SSE path, the content is kept, no retry;
    an eager ``feed_bytes`` raises before it yields the chunk's content, so it is retried."""
    failed = FakeResponse([frames({"t": "Par"}, {"fail": "transient, retry"})])
    ok = FakeResponse([frames({"t": "ok"}, {"end": True})])
    api = wire(failed, ok, decoder=decoder, start_on_content=True)
    events, message = await run(max_retries=1, max_retry_delay_ms=1)
    if decoder is LazyByteDecoder:
        assert types(events) == "start text_start text_delta error"
        assert (message.stop_reason, message.text, len(api.sent)) == ("error", "Par", 1)
    else:
        assert (message.stop_reason, message.text, len(api.sent)) == ("stop", "ok", 2)


# --- timeouts and aborts watch the network reads -----------------------------------------------


async def test_a_consumer_slower_than_the_idle_limit_is_not_a_silent_server(wire):
    """Stalls are measured on the wire reads; the time the consumer takes is not silence."""
    wire(FakeResponse([sse({"t": "Hel"}), sse({"t": "lo"}), Paused(0.01), sse({"end": True})]))
    stream = pi_sdk.stream(MODEL, CONTEXT, StreamOptions(idle_timeout_ms=50))
    async for event in stream:
        if event.type == "text_delta":
            await asyncio.sleep(0.2)
    message = await stream.result()
    assert message.stop_reason == "stop", message.error_message
    assert message.text == "Hello"


async def test_a_wire_read_is_timed_from_its_start_not_from_the_last_bytes(wire):
    """The reader took most of the limit since the last bytes; the read that follows gets it all.

    Limit 200 ms: 150 ms after the first bytes the next read starts, and its bytes come 120 ms
    later (270 ms after the last ones, 120 ms into the read): no silence of 200 ms on the wire.
    """
    wire(FakeResponse([sse({"t": "Hel"}), Paused(0.12), sse({"t": "lo"}, {"end": True})]))
    stream = pi_sdk.stream(MODEL, CONTEXT, StreamOptions(idle_timeout_ms=200))
    async for event in stream:
        if event.type == "text_delta" and event.delta == "Hel":
            await asyncio.sleep(0.15)
    message = await stream.result()
    assert message.stop_reason == "stop", message.error_message
    assert message.text == "Hello"


async def test_a_wire_read_that_stalls_past_the_idle_limit_ends_the_call_and_closes(wire):
    api = wire(FakeResponse([sse({"t": "Hel"}), Paused(5), sse({"t": "lo"}, {"end": True})]))
    stream = pi_sdk.stream(MODEL, CONTEXT, StreamOptions(idle_timeout_ms=50))
    message = await asyncio.wait_for(stream.result(), timeout=3)
    assert message.stop_reason == "error"
    assert message.error_message == "timed out: the provider sent nothing for 50 ms"
    assert message.text == "Hel" and api.released


async def test_a_reply_that_does_not_start_in_time_is_retried(wire):
    slow = FakeResponse([Paused(5), sse({"t": "late"})])
    api = wire(slow, FakeResponse([sse({"t": "ok"}, {"end": True})]))
    options = StreamOptions(timeout_ms=50, max_retries=1, max_retry_delay_ms=1)
    message = await asyncio.wait_for(pi_sdk.complete(MODEL, CONTEXT, options), timeout=3)
    assert (message.stop_reason, message.text, len(api.sent)) == ("stop", "ok", 2)
    assert api.released


async def test_an_abort_during_a_stalled_wire_read_ends_the_call_as_aborted(wire):
    controller = AbortController()
    api = wire(FakeResponse([sse({"t": "Hel"}), Paused(5), sse({"end": True})]))
    stream = pi_sdk.stream(MODEL, CONTEXT, StreamOptions(signal=controller.signal))
    seen: list[str] = []
    async for event in stream:
        seen.append(event.type)
        if event.type == "text_delta":
            asyncio.get_running_loop().call_later(0.05, controller.abort)
    message = await asyncio.wait_for(stream.result(), timeout=3)
    assert seen == ["start", "text_start", "text_delta", "error"]
    assert (message.stop_reason, message.error_message) == ("aborted", "Request was aborted")
    assert message.text == "Hel" and api.released


async def test_an_outside_cancellation_of_a_wire_read_propagates(wire):
    api = wire(FakeResponse([sse({"t": "Hel"}), Paused(5), sse({"end": True})]))
    stream = pi_sdk.stream(MODEL, CONTEXT, StreamOptions(idle_timeout_ms=60_000))
    task = asyncio.create_task(stream.result())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert api.released


# --- httpx2's errors ---------------------------------------------------------------------------


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


# --- the contract ------------------------------------------------------------------------------


def test_an_api_provider_takes_exactly_one_implementation():
    async def call(model: Model, context: Context, options: StreamOptions) -> Any:
        raise AssertionError

    async def stream(model: Model, context: Context, options: StreamOptions) -> Any:
        yield  # pragma: no cover

    with pytest.raises(TypeError, match="got both"):
        ApiProvider(api=API, call=call, stream=stream)
    with pytest.raises(TypeError, match="got neither"):
        ApiProvider(api=API)


def test_a_call_written_as_a_generator_of_events_is_refused_at_registration():
    async def events(model: Model, context: Context, options: StreamOptions) -> Any:
        yield  # pragma: no cover

    with pytest.raises(TypeError, match=r"\.call must return the HttpCall plan.*goes in stream="):
        ApiProvider(api=API, call=events)


async def test_a_call_function_that_returns_no_plan_ends_in_an_error_naming_it(plugin_manager):
    async def call(model: Model, context: Context, options: StreamOptions) -> Any:
        return {"url": "https://x.test"}

    pi_sdk.register_api_provider(ApiProvider(api=API, call=call), replace=True)
    _, message = await run()
    assert message.error_message == f"the call function of {API!r} returned dict, not an HttpCall"


@pytest.mark.parametrize(
    ("settled", "raised_incomplete", "estimated"),
    [
        (False, False, True),  # the body ended before the API's end: a cut reply
        (True, False, False),  # the stop reason and usage arrived: the vendor's usage stands
        (True, True, True),  # the decoder itself says the reply is incomplete
    ],
)
async def test_a_failing_finish_marks_the_reply_cut_only_when_it_ended_early(
    wire, settled: bool, raised_incomplete: bool, estimated: bool
):
    class Ending(Decoder):
        def finish(self, *, saw_done: bool) -> Iterable[AssistantMessageEvent]:
            raise ProviderError("ended before the end event", incomplete=raised_incomplete)

    Ending.settled = settled  # type: ignore[attr-defined]
    api = wire(FakeResponse([sse({"t": "abcd"})]), decoder=Ending)
    _, message = await run()
    assert (message.stop_reason, message.error_message) == ("error", "ended before the end event")
    assert bool(message.usage_estimated) is estimated
    assert message.usage.output == (1 if estimated else 0)  # 4 characters, about a token
    assert api.released


async def test_a_response_without_an_int_status_is_taken_as_200(wire):
    page = FakeResponse([b"<html>portal</html>"], content_type="text/html")
    page.status_code = None  # type: ignore[assignment]
    seen: list[int] = []
    wire(page)
    _, message = await run(on_response=lambda status, headers: seen.append(status))
    assert seen == [200]
    assert (message.error_message or "").startswith("the server answered 200 with text/html")


@pytest.mark.parametrize("framing", ["sse", "bytes"])
async def test_a_chunk_after_the_terminal_event_is_drained_not_fed(wire, framing: str):
    # The terminal event ends its chunk; the events of the next chunk are never the reply's.
    encode, decoder = (sse, Decoder) if framing == "sse" else (frames, ByteDecoder)
    chunks = [encode({"t": "Hel"}, {"t": "lo"}), encode({"end": True}), encode({"t": "late"})]
    api = wire(FakeResponse(chunks), decoder=decoder)
    events, message = await run()
    assert types(events) == "start text_start text_delta text_delta text_end done"
    assert (message.text, message.stop_reason) == ("Hello", "stop")
    [used] = api.decoders
    assert used.fed == [{"t": "Hel"}, {"t": "lo"}, {"end": True}]
    if framing == "bytes":
        assert used.chunks == chunks[:2]
    assert api.responses[0].exhausted and api.released  # the late chunk was drained
