"""Every documented error text of the event-stream reader and decoder, asserted whole (issue 34).

A frame's fault is named with the frame's number, counted from 1 over the whole body, however
the body was cut into chunks: here the fault is always in the third frame, fed whole and byte
by byte. The decoder's own texts (a payload that is not JSON, an error frame, an exception
frame) are asserted where :class:`Decoder` produces them.
"""

from __future__ import annotations

import json
import struct
import zlib

import pytest
from pi_sdk_bedrock.converse._decode import Decoder
from pi_sdk_bedrock.converse._frames import FrameReader, parse_headers
from test_bedrock_frames import encode_frame, encode_headers, frame

from pi_sdk import Model
from pi_sdk.provider import MessageBuilder, ProviderError

GOOD = frame("messageStart", {"role": "assistant"}) + frame(
    "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "hi"}}
)


def _third_frame_faults() -> dict[str, tuple[bytes, str]]:
    bad_prelude = bytearray(frame("metadata", {}))
    bad_prelude[1] ^= 0x01
    bad_message = bytearray(frame("metadata", {}))
    bad_message[-6] ^= 0x01
    tiny = struct.pack(">II", 8, 0)
    unknown = encode_headers({":message-type": "event"}) + b"\x01x" + bytes([42])
    past = encode_headers({":message-type": "event"}) + b"\x01y" + bytes([7]) + b"\x00\x09ab"
    return {
        "prelude": (bytes(bad_prelude), "prelude checksum mismatch (corrupted or not a frame)"),
        "lengths": (
            tiny + struct.pack(">I", zlib.crc32(tiny)) + b"\0" * 8,
            "impossible lengths (total 8, headers 0)",
        ),
        "message": (bytes(bad_message), "message checksum mismatch (corrupted frame)"),
        "header type": (encode_frame(unknown), "header 'x' has unknown value type 42"),
        "header run": (encode_frame(past), "headers run past their block"),
    }


FAULTS = _third_frame_faults()


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("cut", ["whole", "bytes"])
def test_a_bad_frame_is_named_by_its_number(fault: str, cut: str) -> None:
    bad, why = FAULTS[fault]
    body = GOOD + bad
    reader = FrameReader()
    with pytest.raises(ProviderError) as caught:
        if cut == "whole":
            reader.feed(body)
        else:
            for at in range(len(body)):
                reader.feed(body[at : at + 1])
    assert str(caught.value) == f"malformed event-stream frame #3: {why}"
    assert reader.frames == 2


def test_parse_headers_names_the_frame_it_was_given() -> None:
    with pytest.raises(ProviderError, match=r"^malformed event-stream frame #7: header 'x'"):
        parse_headers(b"\x01x" + bytes([42]), 7)
    with pytest.raises(ProviderError, match=r"^malformed event-stream frame #0: headers run"):
        parse_headers(b"\x01y\x07\x00\x09ab")


def _decoder() -> Decoder:
    return Decoder(MessageBuilder(Model(id="m", api="bedrock-converse-stream", provider="b")))


@pytest.mark.parametrize("cut", ["whole", "bytes"])
def test_a_payload_that_is_not_json_is_named_by_its_event_number(cut: str) -> None:
    body = GOOD + frame("contentBlockDelta", b"{not json")
    decoder = _decoder()
    with pytest.raises(ProviderError) as caught:
        chunks = [body] if cut == "whole" else [body[i : i + 1] for i in range(len(body))]
        for chunk in chunks:
            decoder.feed_bytes(chunk)
    text = str(caught.value)
    assert text.startswith("malformed stream event #3 ('contentBlockDelta'): Expecting property")
    assert text.endswith("; data: '{not json'")


def test_error_and_exception_frames_say_what_aws_said() -> None:
    error = frame(
        "", b"", message_type="error", **{":error-code": "InternalFailure", ":error-message": "é!"}
    )
    with pytest.raises(ProviderError) as caught:
        _decoder().feed_bytes(GOOD + error)
    assert str(caught.value) == "event-stream error InternalFailure: é!"

    payload = json.dumps({"message": "slow down", "originalStatusCode": 429}).encode()
    exception = frame("throttlingException", payload, message_type="exception")
    with pytest.raises(ProviderError) as caught:
        _decoder().feed_bytes(GOOD + exception)
    assert str(caught.value) == "throttlingException: slow down (originalStatusCode=429)"
    assert caught.value.retryable is True


@pytest.mark.parametrize(
    ("name", "payload", "text"),
    [
        ("serviceUnavailableException", b"<html>busy \xc3\xa9</html>", "<html>busy é</html>"),
        ("validationException", b"x" * 400, "x" * 300),  # a payload that is not JSON, cut
        ("", b'{"Message": "capitalized"}', "capitalized"),
        ("internalServerException", b"{}", "(no message)"),
        ("internalServerException", b"[1]", "(no message)"),
    ],
)
def test_an_exception_frame_in_any_shape_is_worded(name: str, payload: bytes, text: str) -> None:
    with pytest.raises(ProviderError) as caught:
        _decoder().feed_bytes(GOOD + frame(name, payload, message_type="exception"))
    assert str(caught.value) == f"{name or 'exception'}: {text}"
