"""Event-stream framing, rule by rule (``pi_sdk_bedrock.converse._frames``).

Every header value type with its width and sign, the length limits at their edges, the frame
number each error names, and how a frame's kind and name are read from its headers (AWS "Event
stream encoding"; botocore's ``EventStreamBuffer``).
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import pytest
from pi_sdk_bedrock.converse._frames import MAX_FRAME_BYTES, FrameReader, parse_headers
from test_bedrock_frames import encode_frame

from pi_sdk.provider import ProviderError


def header(name: str, kind: int, value: bytes = b"") -> bytes:
    return bytes([len(name)]) + name.encode() + bytes([kind]) + value


def string(name: str, value: str) -> bytes:
    data = value.encode()
    return header(name, 7, struct.pack(">H", len(data)) + data)


@pytest.mark.parametrize(
    ("kind", "raw", "value"),
    [
        (0, b"", True),
        (1, b"", False),
        (2, b"\xff", -1),
        (2, b"\x7f", 127),
        (3, b"\xff\xfe", -2),
        (3, b"\x01\x00", 256),
        (4, struct.pack(">i", -70_000), -70_000),
        (5, struct.pack(">q", -(2**40)), -(2**40)),
        (6, b"\x00\x03a\x00b", b"a\x00b"),
        (7, b"\x00\x02\xc3\xa9", "é"),
        (8, struct.pack(">q", 1_700_000_000_123), 1_700_000_000_123),
        (9, bytes(range(16)), bytes(range(16))),
    ],
)
def test_every_header_value_type_and_the_header_after_it(kind: int, raw: bytes, value: Any):
    # A second header follows: each value must take exactly its own width.
    headers = parse_headers(header("v", kind, raw) + string("next", "ok"))
    assert headers == {"v": value, "next": "ok"}
    assert type(headers["v"]) is type(value)


@pytest.mark.parametrize(
    "raw",
    [
        header("v", 4, b"\x00\x00"),  # an int32 cut short
        header("v", 9, bytes(15)),  # a UUID cut short
        header("v", 7, b"\x00\x05ab"),  # a string shorter than its length
        header("v", 6, b"\x00"),  # a length cut short (struct.error once leaked)
        header("v", 7, b""),  # no length at all
        b"\x05ab",  # a name cut short, no value type
        b"\x01\xff" + bytes([0]),  # a name that is not UTF-8
    ],
)
def test_headers_that_run_past_their_block_name_the_frame(raw: bytes):
    with pytest.raises(ProviderError, match=r"frame #3: headers run past their block"):
        parse_headers(raw, 3)


def test_an_unknown_value_type_names_the_header_and_the_frame():
    with pytest.raises(ProviderError) as caught:
        parse_headers(header("x-y", 10), 5)
    assert str(caught.value).endswith(
        "malformed event-stream frame #5: header 'x-y' has unknown value type 10"
    )


@pytest.mark.parametrize(
    ("headers", "kind", "name"),
    [
        (
            string(":message-type", "event") + string(":event-type", "messageStop"),
            "event",
            "messageStop",
        ),
        (string(":event-type", "messageStart"), "event", "messageStart"),  # no type: an event
        (
            string(":message-type", "exception") + string(":exception-type", "throttlingException"),
            "exception",
            "throttlingException",
        ),
        (string(":message-type", "error") + string(":error-code", "Boom"), "error", "Boom"),
        # any other message type is read as an error, named by its code
        (string(":message-type", "other") + string(":error-code", "X"), "other", "X"),
        # a type that is not a string reads as an event; a name that is not a string as ""
        (header(":message-type", 0) + string(":event-type", "e"), "event", "e"),
        (string(":message-type", "event") + header(":event-type", 4, bytes(4)), "event", ""),
        (string(":message-type", "exception") + string(":event-type", "e"), "exception", ""),
    ],
)
def test_a_frames_kind_and_name_come_from_its_headers(headers: bytes, kind: str, name: str):
    ((got_kind, got_name, payload, _),) = FrameReader().feed(encode_frame(headers, b'{"a":1}'))
    assert (got_kind, got_name, payload) == (kind, name, b'{"a":1}')


def test_length_edges():
    # the smallest frame (no headers, no payload) and headers filling the whole frame are fine
    assert FrameReader().feed(encode_frame(b"", b"")) == [("event", "", b"", {})]
    only_headers = string(":event-type", "e")
    assert FrameReader().feed(encode_frame(only_headers, b""))[0][:3] == ("event", "e", b"")
    # one past the frame's room for headers, or a total under 16 or over the cap: impossible
    for total, header_size in [(15, 0), (16, 1), (MAX_FRAME_BYTES + 1, 0)]:
        prelude = struct.pack(">II", total, header_size)
        body = encode_frame(b"", b"") + prelude + struct.pack(">I", zlib.crc32(prelude))
        with pytest.raises(ProviderError) as caught:
            FrameReader().feed(body)
        expected = f"frame #2: impossible lengths (total {total}, headers {header_size})"
        assert str(caught.value).endswith(expected)


def test_a_frame_at_the_cap_waits_for_its_bytes():
    prelude = struct.pack(">II", MAX_FRAME_BYTES, 0)
    reader = FrameReader()
    assert reader.feed(prelude + struct.pack(">I", zlib.crc32(prelude))) == []
    assert reader.pending


def test_frames_are_counted_and_cached_headers_keep_their_own_payloads():
    headers = string(":message-type", "event") + string(":event-type", "contentBlockDelta")
    reader = FrameReader()
    frames = reader.feed(
        encode_frame(headers, b"1") + encode_frame(headers, b"2") + encode_frame(headers, b"3")
    )
    assert [f[2] for f in frames] == [b"1", b"2", b"3"] and reader.frames == 3
    assert reader.feed(encode_frame(headers, b"4"))[0][2] == b"4" and reader.frames == 4
    assert not reader.pending


def test_many_distinct_headers_blocks_all_decode():
    # more distinct blocks than the cache holds: each still decodes to its own name
    names = [f"event{i}" for i in range(80)]
    body = b"".join(encode_frame(string(":event-type", n)) for n in names)
    body += encode_frame(string(":event-type", "event3"))
    assert [f[1] for f in FrameReader().feed(body)] == [*names, "event3"]


def test_bad_headers_in_a_later_frame_name_that_frame():
    good = encode_frame(string(":event-type", "a"))
    with pytest.raises(ProviderError, match=r"frame #3: headers run past"):
        FrameReader().feed(good + good + encode_frame(header("v", 4, b"\x00")))


@pytest.mark.parametrize(
    ("total", "refused"), [(24 * 1024 * 1024, False), (24 * 1024 * 1024 + 1, True)]
)
def test_the_frame_cap_is_24_mib(total: int, refused: bool) -> None:
    # AWS caps a message's payload at 16 MiB: 24 MiB leaves room for headers, and no more
    prelude = struct.pack(">II", total, 0)
    chunk = prelude + struct.pack(">I", zlib.crc32(prelude))
    if refused:
        with pytest.raises(ProviderError, match=r"frame #1: impossible lengths \(total 25165825,"):
            FrameReader().feed(chunk)
    else:
        assert FrameReader().feed(chunk) == []
