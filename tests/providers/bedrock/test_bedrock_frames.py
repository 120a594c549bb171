"""The event-stream frame reader on hand-encoded frames and on botocore's own parser's verdicts.

Frames are encoded here from the format (prelude, headers, payload, two CRC32s); every
recorded ConverseStream body of the conformance folder is also parsed by botocore's
``EventStreamBuffer`` and must give the same frames.
"""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

import pytest
from _support.conformance import conformance_dir, load_cases, recorded_reply
from pi_sdk_bedrock.converse._frames import FrameReader, parse_headers

from pi_sdk.provider import ProviderError


def encode_headers(headers: dict[str, Any]) -> bytes:
    out = b""
    for name, value in headers.items():
        raw = name.encode()
        out += bytes([len(raw)]) + raw
        if isinstance(value, bool):
            out += bytes([0 if value else 1])
        elif isinstance(value, int):
            out += bytes([4]) + struct.pack(">i", value)
        elif isinstance(value, bytes):
            out += bytes([6]) + struct.pack(">H", len(value)) + value
        else:
            data = str(value).encode()
            out += bytes([7]) + struct.pack(">H", len(data)) + data
    return out


def frame(name: str, payload: Any = None, *, message_type: str = "event", **extra: Any) -> bytes:
    """One event-stream message: ``:message-type``, the name header, JSON payload."""
    name_header = {"event": ":event-type", "exception": ":exception-type"}.get(
        message_type, ":error-code"
    )
    headers = encode_headers(
        {
            name_header: name,
            ":content-type": "application/json",
            ":message-type": message_type,
            **extra,
        }
    )
    body = payload if isinstance(payload, bytes) else json.dumps(payload or {}).encode()
    return encode_frame(headers, body)


def encode_frame(headers: bytes, payload: bytes = b"{}") -> bytes:
    """One event-stream message of raw ``headers`` and ``payload``, both CRC32s right."""
    total = 12 + len(headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + headers + payload
    return message + struct.pack(">I", zlib.crc32(message))


def test_frames_split_at_every_byte_decode_the_same():
    body = frame("messageStart", {"role": "assistant"}) + frame(
        "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "héllo"}}
    )
    whole = FrameReader().feed(body)
    assert [(k, n) for k, n, _, _ in whole] == [
        ("event", "messageStart"),
        ("event", "contentBlockDelta"),
    ]
    assert json.loads(whole[1][2])["delta"]["text"] == "héllo"
    for cut in range(len(body) + 1):
        reader = FrameReader()
        frames = reader.feed(body[:cut]) + reader.feed(body[cut:])
        assert [(k, n, p) for k, n, p, _ in frames] == [(k, n, p) for k, n, p, _ in whole]
        assert not reader.pending
    one_by_one = FrameReader()
    got = [f for i in range(len(body)) for f in one_by_one.feed(body[i : i + 1])]
    assert len(got) == 2 and one_by_one.frames == 2


def test_pending_tells_a_body_cut_inside_a_frame():
    body = frame("messageStart", {"role": "assistant"})
    reader = FrameReader()
    assert reader.feed(body[:-1]) == []
    assert reader.pending
    assert len(reader.feed(body[-1:])) == 1 and not reader.pending


@pytest.mark.parametrize("where", ["prelude", "payload", "message_crc"])
def test_a_corrupted_frame_is_a_named_error(where: str):
    good = frame("messageStart", {"role": "assistant"})
    bad = bytearray(frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "x"}}))
    position = {"prelude": 2, "payload": len(bad) - 8, "message_crc": len(bad) - 1}[where]
    bad[position] ^= 0x01
    reader = FrameReader()
    with pytest.raises(ProviderError, match=r"frame #2: (prelude|message) checksum mismatch"):
        reader.feed(good + bytes(bad))


def test_impossible_lengths_are_an_error():
    prelude = struct.pack(">II", 8, 0)
    with pytest.raises(ProviderError, match="impossible lengths"):
        FrameReader().feed(prelude + struct.pack(">I", zlib.crc32(prelude)) + b"\0" * 8)


def test_header_value_types():
    raw = encode_headers({"t": True, "f": False, "i": -7, "b": b"\x00\x01", "s": "é"})
    raw += b"\x01u" + bytes([9]) + bytes(range(16))
    raw += b"\x02ts" + bytes([8]) + struct.pack(">q", 1_700_000_000_000)
    headers = parse_headers(raw)
    assert headers == {
        "t": True,
        "f": False,
        "i": -7,
        "b": b"\x00\x01",
        "s": "é",
        "u": bytes(range(16)),
        "ts": 1_700_000_000_000,
    }
    with pytest.raises(ProviderError, match="unknown value type 42"):
        parse_headers(b"\x01x" + bytes([42]))
    with pytest.raises(ProviderError, match="run past"):
        parse_headers(encode_headers({"s": "long value"})[:-3])


def test_exception_and_error_frames_are_told_apart():
    body = frame("throttlingException", {"message": "slow down"}, message_type="exception")
    body += frame("InternalFailure", b"", message_type="error", **{":error-message": "boom"})
    frames = FrameReader().feed(body)
    assert [(k, n) for k, n, _, _ in frames] == [
        ("exception", "throttlingException"),
        ("error", "InternalFailure"),
    ]
    assert frames[1][3][":error-message"] == "boom"


ROOT = conformance_dir()
STREAMS = [
    c
    for c in (load_cases(ROOT, "bedrock-converse-stream") if ROOT else [])
    if c.stream and c.status == 200
]


@pytest.mark.parametrize("case", STREAMS, ids=[c.id for c in STREAMS])
def test_recorded_bodies_match_botocores_parser(case):
    from botocore.eventstream import EventStreamBuffer

    body = recorded_reply(case).body
    theirs = EventStreamBuffer()
    theirs.add_data(body)
    expected = [(m.headers[":message-type"], m.headers[":event-type"], m.payload) for m in theirs]
    reader = FrameReader()
    ours = [f for i in range(0, len(body), 97) for f in reader.feed(body[i : i + 97])]
    assert [(k, n, p) for k, n, p, _ in ours] == expected
    assert not reader.pending
