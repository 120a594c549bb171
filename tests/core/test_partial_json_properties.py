"""IncrementalJsonParser under random documents and random cuts (hypothesis).

* After every fragment, the live value is what an independent, naive completion of the text
  received so far gives (``_support.partial_json.reference_partial``: pi-mono's
  ``parseStreamingJson`` semantics with the parser's documented differences), and the final
  value is `json.loads`' result.
* ``error`` is the same however a malformed text is cut into fragments (it names the offset of
  the offending character in the whole text), and so is the value it froze.
* Long strings (the throttled refresh and its fast path) stay within the documented lag.

Budget and seed: ``_support.fuzz`` (``PI_SDK_FUZZ_EXAMPLES``, ``PI_SDK_FUZZ_SEED``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.fuzz import fuzz
from _support.partial_json import reference_partial
from hypothesis import given
from hypothesis import strategies as st

from pi_sdk._stream.partial_json import IncrementalJsonParser

# Characters that exercise every escape: quotes, backslashes, controls, non-ASCII, an astral
# character (a surrogate pair when escaped), a lone high surrogate, U+2028.
_TRICKY = list('ab "\\/\b\f\n\r\t\x01\x7f\u00e9\u4e2d\U0001f600\ud83d\u2028')
_TEXT = st.text(st.sampled_from(_TRICKY) | st.characters(exclude_categories=["Cs"]), max_size=24)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=24,
)
_OBJECTS = st.dictionaries(_TEXT, _VALUES, max_size=6)


def same(a: Any, b: Any) -> bool:
    """Equal, with the same types, key order and float signs (``1 == 1.0 == True`` is not)."""
    return repr(a) == repr(b)


@st.composite
def documents(draw: Any) -> str:
    """A JSON object text, in one of the layouts vendors stream."""
    return json.dumps(
        draw(_OBJECTS),
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, 0, 2])),
        separators=draw(st.sampled_from([None, (",", ":"), (" , ", " : ")])),
    )


def cuts(data: Any, text: str) -> list[int]:
    """Sorted cut positions in ``text``, ending with ``len(text)``."""
    drawn = data.draw(st.lists(st.integers(0, len(text)), max_size=40))
    return sorted({*drawn, len(text)})


def test_the_oracle_reads_prefixes_as_documented() -> None:
    # The oracle itself must agree with the documented examples, or the property proves nothing.
    assert reference_partial("") == {}
    assert reference_partial("{") == {}
    assert reference_partial('{"a": "hel') == {"a": "hel"}
    assert reference_partial('{"a": 1, "b') == {"a": 1}
    assert reference_partial('{"a": 1, "b":') == {"a": 1}
    assert reference_partial('{"a": [{"x": 1}, {') == {"a": [{"x": 1}, {}]}
    assert reference_partial('{"n": 12') == {}
    assert reference_partial('{"n": 12 ') == {"n": 12}
    assert reference_partial('{"n": [1, 2') == {"n": [1]}
    assert reference_partial('{"s": "x\\u00') == {"s": "x"}
    assert reference_partial('{"s": "x\\ud83d') == {"s": "x"}
    assert reference_partial('{"s": "x\\ud83dA') == {"s": "x\ud83dA"}
    assert reference_partial('{"s": "a\\\\') == {"s": "a\\"}
    assert reference_partial('{"s": "a\\') == {"s": "a"}


@pytest.mark.timeout(300)
def test_the_value_after_every_fragment_is_the_partial_parse_of_the_text_so_far() -> None:
    @fuzz(scale=5)
    @given(documents(), st.data())
    def check(text: str, data: Any) -> None:
        parser = IncrementalJsonParser()
        done = 0
        for cut in cuts(data, text):
            parser.feed(text[done:cut])
            done = cut
            assert same(parser.value, reference_partial(text[:cut])), text[:cut]
            assert parser.error is None
        assert same(parser.value, json.loads(text))
        assert same(parser.finish(), json.loads(text))
        assert parser.raw == text

    check()


# What breaks a JSON text: a stray or missing character, escapes invalid or cut short.
_DAMAGE = ["\\", "\\u12", "\\uG", "\\q", "\\ud83d", '"', "}", "]", ",", ":", "x", "1", "-", "{"]


@pytest.mark.timeout(300)
def test_the_error_and_the_frozen_value_do_not_depend_on_the_cuts() -> None:
    @fuzz(scale=5)
    @given(documents(), st.data())
    def check(text: str, data: Any) -> None:
        at = data.draw(st.integers(0, len(text)))
        damaged = text[:at] + data.draw(st.sampled_from(_DAMAGE)) + text[at:]
        whole = IncrementalJsonParser()
        whole.feed(damaged)
        parser = IncrementalJsonParser()
        done = 0
        for cut in cuts(data, damaged):
            parser.feed(damaged[done:cut])
            done = cut
        assert parser.error == whole.error
        if whole.error is not None:
            assert same(parser.value, whole.value)

    check()


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"a": "x\\u12G4"}', "invalid escape sequence at offset 8"),
        ('{"a": "x\\q"}', "invalid escape sequence at offset 8"),
        ('{"a": "x\\', None),
        ('{"a": tru}', "invalid literal 'tru' at offset 9"),
        ('{"a": 1 2}', "unexpected '2' at offset 8"),
    ],
)
def test_an_error_names_the_same_offset_for_every_cut(text: str, error: str | None) -> None:
    for first in range(len(text) + 1):
        for second in range(first, len(text) + 1):
            parser = IncrementalJsonParser()
            for piece in (text[:first], text[first:second], text[second:]):
                parser.feed(piece)
            assert parser.error == error, (first, second)


def long_string_doc(data: Any) -> tuple[str, bool]:
    """A document whose ``content`` runs to thousands of characters, escapes throughout.

    Returns the text and whether it was written with ``ensure_ascii``.
    """
    unit = data.draw(st.text(st.sampled_from(_TRICKY), min_size=1, max_size=12))
    body = unit * data.draw(st.integers(300, 1500))
    ascii_only = data.draw(st.booleans())
    return json.dumps({"path": "a.py", "content": body}, ensure_ascii=ascii_only), ascii_only


@pytest.mark.timeout(300)
def test_a_long_string_stays_within_the_documented_lag_for_any_cuts() -> None:
    @fuzz(scale=2)
    @given(st.data())
    def check(data: Any) -> None:
        text, ascii_only = long_string_doc(data)
        body = json.loads(text)["content"]
        start = text.index('"content": "') + len('"content": "')
        # raw_length[i]: the raw (escaped) length of body[:i]; json.dumps escapes each
        # character on its own.
        raw_length = [0]
        for char in body:
            raw_length.append(raw_length[-1] + len(json.dumps(char, ensure_ascii=ascii_only)) - 2)
        size = data.draw(st.sampled_from([1, 3, 7, 16, 64]))
        read_raw = data.draw(st.booleans())
        parser = IncrementalJsonParser()
        for at in range(0, len(text), size):
            parser.feed(text[at : at + size])
            if read_raw:  # reading the cached text must not disturb the parse
                assert parser.raw == text[: at + size]
            shown = parser.value.get("content")
            if shown is None or shown == body:
                continue
            assert body.startswith(shown)
            unshown = at + size - start - raw_length[len(shown)]  # raw characters
            if len(shown) < 256:
                assert unshown <= 11
            else:
                assert unshown < max(256, len(shown) // 8) + 5
        assert same(parser.finish(), json.loads(text))

    check()
