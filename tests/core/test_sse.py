import asyncio
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_sdk._stream.sse import SseFramer
from pi_sdk.provider import iter_sse

BODY = (
    b": keep-alive comment\n"
    b"event: message_start\n"
    b'data: {"type":"message_start","text":"h\xc3\xa9llo \xf0\x9f\x98\x80"}\n'
    b"\n"
    b"data: line one\n"
    b"data: line two\n"
    b"\n"
    b"event: ping\r\n"
    b"data: {}\r\n"
    b"\r\n"
    b"event: cr_only\r"
    b"data:nospace\r"
    b"\r"
)
EXPECTED = [
    ("message_start", '{"type":"message_start","text":"héllo 😀"}'),
    ("message", "line one\nline two"),
    ("ping", "{}"),
    ("cr_only", "nospace"),
]


async def _collect(chunks):
    async def gen():
        for c in chunks:
            yield c

    return [(e.event, e.data) async for e in iter_sse(gen())]


async def test_whole_body():
    assert await _collect([BODY]) == EXPECTED


@pytest.mark.parametrize("cut", range(1, len(BODY)))
async def test_every_split_point_gives_the_same_events(cut):
    assert await _collect([BODY[:cut], BODY[cut:]]) == EXPECTED


async def test_byte_by_byte_and_random_chunks():
    assert await _collect([BODY[i : i + 1] for i in range(len(BODY))]) == EXPECTED
    rng = random.Random(7)
    for _ in range(50):
        chunks, i = [], 0
        while i < len(BODY):
            n = rng.randint(1, 9)
            chunks.append(BODY[i : i + n])
            i += n
        assert await _collect(chunks) == EXPECTED


async def test_unfinished_event_at_end_is_discarded():
    truncated = b'event: a\ndata: {"x": 1}\n\nevent: b\ndata: {"y": '
    assert await _collect([truncated]) == [("a", '{"x": 1}')]


@pytest.mark.parametrize(
    "tail",
    [
        b'data: {"y": 2}',
        b'data: {"y": 2}\n',
        b'data: {"y": 2}\r',
        b"data: [DONE]",
        b"data: [DONE]\n",
    ],
)
async def test_last_event_without_blank_line_counts_when_its_data_is_whole(tail: bytes):
    """A body may end ``data: {...}`` with no blank line (a real Anthropic recording ends so)."""
    body = b'event: a\ndata: {"x": 1}\n\nevent: b\n' + tail
    events = await _collect([body])
    assert events[0] == ("a", '{"x": 1}')
    assert events[1] == ("b", tail.partition(b": ")[2].strip().decode())
    # The same split into single bytes: the end-of-stream rule does not depend on chunking.
    assert await _collect([bytes([b]) for b in body]) == events


@pytest.mark.parametrize("tail", [b'data: {"y": 2', b"data: [DON", b"data: not json"])
async def test_last_event_without_blank_line_is_dropped_when_its_data_is_cut(tail: bytes):
    body = b'event: a\ndata: {"x": 1}\n\nevent: b\n' + tail
    assert await _collect([body]) == [("a", '{"x": 1}')]


@pytest.mark.parametrize("split", [0, 1, 2, 3, 4])
async def test_leading_byte_order_mark_is_ignored_not_the_first_event(split: int):
    """WHATWG SSE: one leading U+FEFF is stripped; the first event must not be lost with it."""
    body = b'\xef\xbb\xbfdata: {"a": 1}\n\ndata: {"b": 2}\n\n'
    chunks = [body[:split], body[split:]] if split else [body]
    assert await _collect(chunks) == [("message", '{"a": 1}'), ("message", '{"b": 2}')]
    assert await _collect([bytes([b]) for b in body]) == [
        ("message", '{"a": 1}'),
        ("message", '{"b": 2}'),
    ]


async def test_a_byte_order_mark_after_the_start_is_data():
    body = b'data: {"a": 1}\n\n\xef\xbb\xbfdata: {"b": 2}\n\n'
    events = await _collect([body])
    assert (
        events[0] == ("message", '{"a": 1}') and len(events) == 1
    )  # field name "\ufeffdata" is unknown


async def test_only_the_data_field_is_data_and_field_names_are_case_sensitive():
    """WHATWG SSE: ``id``/``retry``/unknown fields are ignored; ``Data`` is not ``data``."""
    body = (
        b"event: e\n"
        b"Data: shouted\n"
        b"DATA: shouted\n"
        b"comment: ignored\n"
        b"id: 7\n"
        b"retry: 100\n"
        b"data: kept\n"
        b"\n"
    )
    assert await _collect([body]) == [("e", "kept")]


def _reference(body: bytes) -> list[tuple[str, str]]:
    """The WHATWG SSE rules applied to a whole body, line by line (no chunking involved)."""
    if body.startswith(b"\xef\xbb\xbf"):
        body = body[3:]
    text = body.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    lines = text.split(b"\n")
    ended = text.endswith(b"\n")
    if ended:
        lines.pop()
    events: list[tuple[str, str]] = []
    event, data = "", []
    for line in lines:
        if not line:
            if data:
                events.append((event or "message", b"\n".join(data).decode(errors="replace")))
            event, data = "", []
            continue
        if line.startswith(b":"):
            continue
        name, sep, value = line.partition(b":")
        value = value[1:] if sep and value[:1] == b" " else value
        if name == b"data":
            data.append(value)
        elif name == b"event":
            event = value.decode(errors="replace")
    if data:  # unterminated: kept only when whole
        last = b"\n".join(data).decode(errors="replace")
        try:
            json.loads(last)
            whole = True
        except ValueError:
            whole = last == "[DONE]"
        if whole:
            events.append((event or "message", last))
    return events


_PIECES = [
    b"data: ",
    b"data:",
    b"data",
    b"event: ",
    b"event:",
    b"event: ping",
    b": comment",
    b"id: 1",
    b'{"a": 1}',
    b"[DONE]",
    b"x",
    b"\n",
    b"\n\n",
    b"\r",
    b"\r\n",
    b"\r\n\r\n",
    b"\xef\xbb\xbf",
    b"\xc3",
]


_CRLF_PIECES = [b"data: ", b'{"a": 1}', b"x", b"\r\n\r\n", b"\r\n", b"\r", b"\n", b"event: e\r\n"]
"""Mostly Gemini's CRLF CRLF events (split as they come), with stray CR and LF mixed in."""


@given(
    pieces=st.lists(st.sampled_from(_PIECES), max_size=40)
    | st.lists(st.sampled_from(_CRLF_PIECES), max_size=30),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
)
@settings(max_examples=800, deadline=None)
def test_any_body_cut_anywhere_gives_the_events_of_the_whatwg_rules(
    pieces: list[bytes], cuts: list[int]
):
    """The chunk framer (split per chunk, fast paths for the usual shapes) = the line rules."""
    body = b"".join(pieces)
    points = sorted({c % (len(body) + 1) for c in cuts})
    chunks = [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]
    assert asyncio.run(_collect(chunks)) == _reference(body)


def test_an_event_spread_over_many_chunks_comes_out_whole():
    """A long event (a whole Gemini function call) spans many chunks: one event, at its end."""
    framer = SseFramer()
    payload = b'{"k": "' + b"v" * 100_000 + b'"}'
    body = b"event: big\ndata: " + payload + b"\n\n"
    events = []
    for i in range(0, len(body), 1000):
        events += framer.feed(body[i : i + 1000])
    assert events == [("big", payload)] and framer.end() == []


def test_gemini_crlf_events_over_chunks_of_any_size_come_out_as_sent():
    """One-line events ended by CRLF CRLF, one of them long, cut at every size and offset."""
    events = [b'{"n": %d}' % i for i in range(5)] + [b'{"big": "' + b"v" * 3000 + b'"}']
    body = b"".join(b"data: " + e + b"\r\n\r\n" for e in events)
    want = [("message", e) for e in events]
    for size in (1, 2, 3, 5, 17, 700, 2999, 4096, len(body)):
        framer, got = SseFramer(), []
        for i in range(0, len(body), size):
            got += framer.feed(body[i : i + size])
        assert got + framer.end() == want, size
    for cut in range(1, len(body), 7):
        framer = SseFramer()
        got = framer.feed(body[:cut]) + framer.feed(body[cut:]) + framer.end()
        assert got == want, cut


_SHAPES = [
    b'data: {"a": 1}\r\n\r\ndata: x\r\n\r\n',  # Gemini's CRLF CRLF events
    b'event: e\r\ndata: {"b": 2}\r\n\r\ndata: y\r\rdata: z\n\n',  # CRLF, then CR, then LF
    b"data: a\rdata: b\r\r: c\r\ndata: d\r\n\r\n",  # a CR inside an event, a comment
    b"data: q\n\ndata: r\r\n\r\nevent: f\ndata: s\n\n",  # LF events around a CRLF one
    b'\xef\xbb\xbfdata: {"c": 3}\r\n\r\ndata: [DONE]',  # a BOM, an unterminated [DONE]
    b"data:1\r\n\r\n\r\n\r\ndata:2\r\n\r\n",  # a run of blank lines
]


@pytest.mark.parametrize("body", _SHAPES)
def test_every_cut_into_two_or_three_chunks_gives_the_events_of_the_whatwg_rules(body: bytes):
    """Each way of cutting these bodies (the CRLF fast path entered with an unfinished event
    held, left for the general path, at a CR that may be half a CRLF) gives the line rules'
    events: no random draw, every cut."""
    want = _reference(body)
    assert want  # each shape has events to lose
    n = len(body)
    for a in range(n + 1):
        for b in range(a, n + 1, 1 if a < 12 else 5):
            framer = SseFramer()
            got = []
            for chunk in (body[:a], body[a:b], body[b:]):
                got += framer.feed(chunk)
            got += framer.end()
            decoded = [(name, data.decode(errors="replace")) for name, data in got]
            assert decoded == want, (a, b)
