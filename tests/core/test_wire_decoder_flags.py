"""The two facts the read loop asks of a decoder and a response
(``pi_sdk/_stream/wire_decoder.py``): is the reply settled, is the body one JSON document."""

from __future__ import annotations

from typing import Any

import pytest

from pi_sdk._stream.wire_decoder import is_json_response, is_settled


class _Decoder:
    def __init__(self, **flags: Any) -> None:
        self.__dict__.update(flags)


@pytest.mark.parametrize(
    ("decoder", "settled"),
    [
        (_Decoder(), False),  # a decoder without the flag is never settled
        (_Decoder(settled=False), False),
        (_Decoder(settled=True), True),
        (_Decoder(settled=1), False),  # only True itself
        (_Decoder(settled="yes"), False),
    ],
)
def test_settled_only_when_the_decoder_says_true(decoder: Any, settled: bool) -> None:
    assert is_settled(decoder) is settled


class _Response:
    def __init__(self, content_type: str | None) -> None:
        self.headers = {} if content_type is None else {"content-type": content_type}


@pytest.mark.parametrize(
    ("content_type", "json_body"),
    [
        ("application/json", True),
        ("Application/JSON; charset=utf-8", True),
        ("text/event-stream", False),
        ("application/x-ndjson", False),
        (None, False),
        ("", False),
    ],
)
def test_a_json_body_by_its_content_type(content_type: str | None, json_body: bool) -> None:
    assert is_json_response(_Response(content_type)) is json_body  # type: ignore[arg-type]
