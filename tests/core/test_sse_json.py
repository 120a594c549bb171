"""parse_event (an SSE event's JSON, from bytes) is json.loads; iter_sse_bytes is iter_sse."""

import json
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_sdk._stream.sse import iter_sse, iter_sse_bytes
from pi_sdk._stream.sse_json import parse_event

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_JSON, st.booleans())
def test_parse_event_is_json_loads(value, ascii_only):
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert parse_event(text.encode()) == json.loads(text)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a":"\\ud800"}',  # a lone surrogate escape: from_json refuses it, json.loads keeps it
        b'{"a":"\xff\xfe"}',  # invalid UTF-8: replaced, as iter_sse decodes it
        b'{"a":NaN,"b":Infinity}',
        b'{"a":1,"a":2}',
        b"[" * 300 + b"]" * 300,  # deeper than from_json's limit
        b' {"a":123456789012345678901234567890} ',
    ],
)
def test_what_from_json_refuses_or_differs_on_is_json_loads(raw):
    want = json.loads(raw.decode("utf-8", errors="replace"))
    got = parse_event(raw)
    if isinstance(want, dict) and isinstance(want.get("a"), float) and math.isnan(want["a"]):
        assert math.isnan(got["a"]) and got["b"] == want["b"]
    else:
        assert got == want
        assert list(json.dumps(got)) == list(json.dumps(want))


@pytest.mark.parametrize("raw", [b"", b"  ", b'{"a":1}x', b'{"a":"x\ny"}', b"{", b"[DONE"])
def test_malformed_raises_json_loads_error(raw):
    with pytest.raises(ValueError) as got:
        parse_event(raw)
    with pytest.raises(ValueError) as want:
        json.loads(raw.decode("utf-8", errors="replace"))
    assert str(got.value) == str(want.value)


async def _both(chunks):
    async def gen():
        for chunk in chunks:
            yield chunk

    text = [(e.event, e.data) async for e in iter_sse(gen())]
    raw = [(name, data) async for name, data in iter_sse_bytes(gen())]
    return text, raw


@pytest.mark.parametrize("seed", range(20))
async def test_iter_sse_bytes_decodes_to_iter_sse(seed):
    rng = random.Random(seed)
    lines = [
        b"event: e\xc3\xa9\n",
        b'data: {"t":"h\xc3\xa9llo"}\n',
        b"data:x\r\n",
        b": comment\n",
        b"data\n",
        b"id: 7\n",
        b"\n",
        b"\r\n",
        b"data: \xff\xe2\x82\n",
        b"retry: 10\r",
    ]
    body = b"".join(rng.choice(lines) for _ in range(60)) + b'\n\ndata: {"end":1}'
    cuts = sorted(rng.sample(range(1, len(body)), 8))
    chunks = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    text, raw = await _both(chunks)
    assert [(name, data.decode("utf-8", errors="replace")) for name, data in raw] == text
    assert text[-1] == ("message", '{"end":1}')
