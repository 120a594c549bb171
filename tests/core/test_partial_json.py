"""pi_sdk._stream.partial_json: fragmentation invariance, live partial values, linear cost."""

from __future__ import annotations

import copy
import json
import math
import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from _support.partial_json import shown_prefix

from pi_sdk._stream import partial_json
from pi_sdk._stream.partial_json import IncrementalJsonParser, parse_partial_json

DOCS = [
    r"{}",
    r'{"a": 1}',
    r' { "a" : [ 1 , 2 , { "b" : null } ] , "c" : "x" }  ',
    '{\n\t"a":\r\n[true,false,null],"b":{}\n}\n',
    r'{"path": "src/app.py", "content": "def f():\n    return \"hi\" \\ done\t\/\b\f\r"}',
    r'{"u": "caf\u00e9 \u4e2d\u6587 \ud83d\ude00 \uD83D\uDE00 end", "lone": "\ud83dA\udc00"}',
    r'{"n": [-1.5e+10, 0, -0, 1E-5, 3.25, 12345678901234567890, 1e400, -0.0, 2e-3, 10]}',
    r'{"t": true, "f": false, "z": null, "e": "", "k": {"": ""}}',
    r'{"nested": [[[]], [{}], [{"a": [{"b": [{"c": {}}]}]}]], "after": [1]}',
    r'{"dup": 1, "other": 2, "dup": {"x": 2}}',
    r'{"s": "\"quoted\" and \\\" tricky \\", "t": "\\\\"}',
    '{"raw unicode": "h\u00e9llo \u4e16\u754c \U0001f600", "\u00e9": 1}',
]


def stream(text: str, sizes: list[int]) -> IncrementalJsonParser:
    """Feed ``text`` in consecutive fragments of the given sizes (the rest in one last piece)."""
    parser = IncrementalJsonParser()
    pos = 0
    for size in sizes:
        parser.feed(text[pos : pos + size])
        pos += size
    parser.feed(text[pos:])
    return parser


def random_sizes(rng: random.Random, total: int, largest: int) -> list[int]:
    sizes: list[int] = []
    while sum(sizes) < total:
        sizes.append(rng.randint(1, largest))
    return sizes


def expected_finish(text: str) -> dict[str, Any] | None:
    """The documented finish() result, computed independently."""
    if not text.strip():
        return {}
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    if parsed is None:
        return {}
    return parsed if isinstance(parsed, dict) else None


def random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(9 if depth < 4 else 5)
    if kind == 0:
        return rng.choice([True, False, None])
    if kind == 1:
        return rng.randint(-(10**12), 10**12)
    if kind == 2:
        return rng.choice([0.5, -1.25e-7, 3.0e21, -0.0, 1e-300])
    if kind in (3, 4):
        alphabet = 'abc XYZ "\\/\b\f\n\r\t\u00e9\u4e2d\U0001f600\u2028\x01'
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
    if kind in (5, 6):
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {f"k{rng.randrange(50)}": random_value(rng, depth + 1) for _ in range(rng.randrange(4))}


def generated_docs() -> list[str]:
    rng = random.Random(20260315)
    docs: list[str] = []
    for i in range(12):
        obj = {f"f{j}": random_value(rng, 0) for j in range(rng.randrange(1, 6))}
        docs.append(json.dumps(obj, ensure_ascii=bool(i % 2), indent=None if i % 3 else 2))
    return docs


ALL_DOCS = DOCS + generated_docs()


# --- complete documents: every fragmentation gives json.loads' result ---------------------------


@pytest.mark.parametrize("doc", ALL_DOCS)
def test_every_two_way_split_matches_json_loads(doc: str) -> None:
    expected = json.loads(doc)
    for cut in range(len(doc) + 1):
        parser = stream(doc, [cut])
        # The incremental value itself is complete before finish() re-parses the text.
        assert parser.value == expected, (cut, doc)
        assert parser.error is None
        assert parser.finish() == expected
        assert parser.value == expected


def test_every_three_way_split_of_escapes_and_numbers() -> None:
    doc = r'{"s": "a\"b\\c\u00e9\ud83d\ude00\n", "n": -1.5e+10, "l": [true, null, 0.25]}'
    expected = json.loads(doc)
    for first in range(len(doc) + 1):
        for second in range(len(doc) - first + 1):
            parser = stream(doc, [first, second])
            assert parser.value == expected, (first, second)
            assert parser.finish() == expected


@pytest.mark.parametrize("largest", [1, 3, 16, 64])
def test_random_fragmentations_match_json_loads(largest: int) -> None:
    rng = random.Random(7 + largest)
    for doc in ALL_DOCS:
        expected = json.loads(doc)
        for _ in range(15):
            parser = stream(doc, random_sizes(rng, len(doc), largest))
            assert parser.value == expected, doc
            assert parser.finish() == expected


def test_empty_fragments_are_ignored() -> None:
    parser = IncrementalJsonParser()
    for piece in ["", '{"a"', "", ": ", "", '"x"', "", "}", ""]:
        parser.feed(piece)
    assert parser.raw == '{"a": "x"}'
    assert parser.finish() == {"a": "x"}


# --- the live value at intermediate points ------------------------------------------------------


def test_value_is_an_empty_dict_before_anything_arrives() -> None:
    parser = IncrementalJsonParser()
    assert parser.value == {}
    parser.feed("  ")
    assert parser.value == {}
    parser.feed("{")
    assert parser.value == {}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": "hel', {"a": "hel"}),
        ('{"a": 1, "b', {"a": 1}),
        ('{"a": 1, "b"', {"a": 1}),
        ('{"a": 1, "b":', {"a": 1}),
        ('{"a": 1, "b": ', {"a": 1}),
        ('{"a": "', {"a": ""}),
        ('{"a": {', {"a": {}}),
        ('{"a": {"b', {"a": {}}),
        ('{"a": [', {"a": []}),
        ('{"a": [{"x": 1}, {', {"a": [{"x": 1}, {}]}),
        ('{"a": ["x", "y', {"a": ["x", "y"]}),
        ('{"a": [[[', {"a": [[[]]]}),
        ('{"n": 12', {}),
        ('{"n": 12 ', {"n": 12}),
        ('{"n": 12,', {"n": 12}),
        ('{"n": [1, 2', {"n": [1]}),
        ('{"t": tru', {}),
        ('{"t": true', {}),
        ('{"t": true}', {"t": True}),
        ('{"s": "x\\', {"s": "x"}),
        ('{"s": "x\\u00', {"s": "x"}),
        ('{"s": "x\\u00e9', {"s": "x\u00e9"}),
        ('{"s": "x\\ud83d', {"s": "x"}),
        ('{"s": "x\\ud83d\\ude0', {"s": "x"}),
        ('{"s": "x\\ud83d\\ude00', {"s": "x\U0001f600"}),
        ('{"s": "x\\ud83dA', {"s": "x\ud83dA"}),
    ],
)
def test_value_of_a_prefix(text: str, expected: dict[str, Any]) -> None:
    # Both in one fragment and one character at a time.
    assert stream(text, []).value == expected
    assert stream(text, [1] * len(text)).value == expected


def test_value_is_the_same_dict_mutated_in_place() -> None:
    parser = IncrementalJsonParser()
    live = parser.value
    for char in '{"a": [1, {"b": "c"}], "d": "e"}':
        parser.feed(char)
        assert parser.value is live
    assert parser.finish() is live
    assert live == {"a": [1, {"b": "c"}], "d": "e"}


def test_numbers_split_across_fragments() -> None:
    doc = '{"x": -1.5e+10, "y": [0, -0.0, 1E-5, 12345678901234567890]}'
    expected = json.loads(doc)
    number_end = doc.index(",")
    for cut in range(len(doc) + 1):
        parser = IncrementalJsonParser()
        parser.feed(doc[:cut])
        # A number is shown only once a delimiter has arrived after it.
        assert ("x" in parser.value) == (cut > number_end)
        if cut > number_end:
            assert parser.value["x"] == -1.5e10
            assert isinstance(parser.value["x"], float)
        parser.feed(doc[cut:])
        assert parser.value == expected
        assert isinstance(parser.value["y"][3], int)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"x": -1.5e+1', {"x": -15.0}),
        ('{"x": -1.5e+', {"x": -1.5}),
        ('{"x": -1.5e', {"x": -1.5}),
        ('{"x": 7.', {"x": 7}),
        ('{"x": -', {}),
        ('{"x": 01', {}),
        ('{"x": [1, 2', {"x": [1, 2]}),
        ('{"x": tru', {}),
        ('{"x": false', {"x": False}),
        ('{"x": "ab', {"x": "ab"}),
        ('{"x": "ab\\u00', {"x": "ab"}),
        ('{"x": "ab\\ud83d', {"x": "ab"}),
        ('{"x": {"y": 1, "z', {"x": {"y": 1}}),
    ],
)
def test_finish_of_incomplete_text_keeps_the_best_partial(
    text: str, expected: dict[str, Any]
) -> None:
    parser = stream(text, [2] * len(text))
    assert parser.finish() is None
    assert parser.value == expected
    assert parse_partial_json(text) == expected


def test_unicode_escapes_split_at_every_offset() -> None:
    doc = r'{"e": "\u00e9\u4E2D\ud83d\ude00\uD83D\uDE00x\u0041\u005c\u0022"}'
    expected = {"e": '\u00e9\u4e2d\U0001f600\U0001f600xA\\"'}
    assert json.loads(doc) == expected
    for cut in range(len(doc) + 1):
        assert stream(doc, [cut]).value == expected
    for size in range(1, 8):
        assert stream(doc, [size] * len(doc)).value == expected


def test_short_string_is_exact_after_every_character() -> None:
    content = r"a\"b\\c\/d\be\ff\ng\rh\ti\u00e9j\ud83d\ude00k\ud83dZ\u4e2d"
    doc = '{"s": "' + content + '"}'
    start = doc.index(content)
    parser = IncrementalJsonParser()
    for pos, char in enumerate(doc):
        parser.feed(char)
        received = doc[start : pos + 1]
        if start <= pos < start + len(content):
            shown = parser.value["s"]
            assert shown == shown_prefix(received), received
            assert not re.search("[\ud800-\udbff]$", shown)
    assert parser.value == json.loads(doc)


def test_surrogate_pairs() -> None:
    doc = r'{"a": "\ud83d\ude00", "b": ["\ud83d"], "c": "\ud83d\u0041", "d": "\udc00\ud83d"}'
    expected = json.loads(doc)
    assert expected["a"] == "\U0001f600"
    for cut in range(len(doc) + 1):
        parser = stream(doc, [cut])
        assert parser.value == expected
        assert parser.finish() == expected


def test_long_string_lag_stays_within_the_documented_bound() -> None:
    body = "".join(chr(ord("a") + i % 26) for i in range(20_000))
    doc = '{"path": "x", "content": "' + body + '"}'
    start = doc.index(body)
    parser = IncrementalJsonParser()
    pos = 0
    lagged = False
    while pos < len(doc):
        parser.feed(doc[pos : pos + 7])
        pos += 7
        received = min(max(pos - start, 0), len(body))
        if "content" in parser.value and received < len(body):
            shown = parser.value["content"]
            assert body.startswith(shown)
            if len(shown) < 256:
                assert len(shown) == received
            else:
                assert received - len(shown) < max(256, len(shown) // 8)
            lagged = lagged or received > len(shown)
    assert lagged  # the refresh really is throttled for big strings
    assert parser.value["content"] == body
    unterminated = stream(doc[:-5], [16] * len(doc))
    assert unterminated.finish() is None
    assert unterminated.value["content"] == body[:-3]


def test_deeply_nested_arrays_of_objects() -> None:
    depth = 200
    doc = '{"root": ' + '[{"a": ' * depth + '"leaf"' + "}]" * depth + "}"
    expected = json.loads(doc)
    rng = random.Random(3)
    for _ in range(5):
        parser = stream(doc, random_sizes(rng, len(doc), 9))
        assert parser.value == expected
        assert parser.finish() == expected
    half = stream(doc[: len(doc) // 2], [5] * len(doc))
    node: Any = half.value["root"]
    levels = 0
    while node and isinstance(node[0], dict) and "a" in node[0]:
        node = node[0]["a"]
        levels += 1
    assert levels > depth // 2 - 5


def test_nesting_deeper_than_json_loads_allows() -> None:
    depth = 50_000
    doc = '{"root": ' + '[{"a": ' * depth + "1" + "}]" * depth + "}"
    with pytest.raises(RecursionError):
        json.loads(doc)
    parser = stream(doc, [16] * (len(doc) // 16))
    result = parser.finish()
    assert result is parser.value
    node: Any = result["root"]
    for _ in range(depth):
        node = node[0]["a"]
    assert node == 1
    assert "root" in parse_partial_json(doc)


def test_nan_and_infinity_literals() -> None:
    doc = '{"n": NaN, "i": [Infinity, -Infinity], "m": -1}'
    for cut in range(len(doc) + 1):
        parser = stream(doc, [cut])
        assert math.isnan(parser.value["n"])
        assert parser.value["i"] == [math.inf, -math.inf]
        assert parser.value["m"] == -1
        assert parser.finish() is parser.value


# --- finish(), raw and errors -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", {}),
        (" \n\t ", {}),
        ("null", {}),
        (" null ", {}),
        ("[1, 2]", None),
        ('"text"', None),
        ("12", None),
        ("true", None),
        ('{"a": 1', None),
        ('{"a": 1}', {"a": 1}),
        ('{"a": 1}}', None),
        ('{"a": "x\ny"}', None),  # raw control character: strict JSON says no
        ('\ufeff{"a": 1}', None),
    ],
)
def test_finish_results(text: str, expected: dict[str, Any] | None) -> None:
    assert expected_finish(text) == expected
    parser = stream(text, [3] * len(text))
    assert parser.finish() == expected
    assert parser.finish() == expected  # idempotent
    assert isinstance(parser.value, dict)


def test_non_object_root_is_not_an_error_but_gives_no_value() -> None:
    for text in ["[1, 2]", '"abc"', "123", "null", "[{"]:
        parser = stream(text, [1] * len(text))
        assert parser.value == {}
        assert parser.error is None


def test_raw_control_characters_are_kept_in_the_live_value() -> None:
    parser = stream('{"a": "x\ny\tz"}', [4] * 5)
    assert parser.value == {"a": "x\ny\tz"}
    assert parser.finish() is None


def test_raw_is_the_exact_concatenation() -> None:
    rng = random.Random(11)
    doc = ALL_DOCS[5] + " trailing garbage"
    parser = stream(doc, random_sizes(rng, len(doc), 10))
    assert parser.raw == doc
    assert parser.raw is parser.raw
    parser.feed("!")
    assert parser.raw == doc + "!"


def test_feed_after_finish_is_a_programming_error() -> None:
    parser = stream('{"a": 1}', [])
    parser.finish()
    with pytest.raises(RuntimeError):
        parser.feed(" ")


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ('{"a": 1} x', {"a": 1}),
        ('{"a": 1}{', {"a": 1}),
        ('{"a": 1, "b": tx}', {"a": 1}),
        ('{"a": 1, "b": 1x}', {"a": 1}),
        ('{"a": 1, "b": 01}', {"a": 1}),
        ('{"a": 1, "b": -}', {"a": 1}),
        ('{"a": 1, "b": 1.}', {"a": 1}),
        ('{"a": "ok", "b": "bad \\x escape"}', {"a": "ok", "b": "bad "}),
        ('{"a": "ok", "b": "\\u12G4"}', {"a": "ok", "b": ""}),
        ('{"a" 1}', {}),
        ('{"a": 1,}', {"a": 1}),
        ('{"a": [1,]}', {"a": [1]}),
        ('{"a": [1 2]}', {"a": [1]}),
        ('{"a": ]', {}),
        ('{"a": }', {}),
        ("{,}", {}),
        ("{1: 2}", {}),
        ('{"a": [}', {"a": []}),
        ('{"a": {]', {"a": {}}),
        ("x", {}),
        ('\ufeff{"a": 1}', {}),
        ('{"a": 1, "b": ' + "1" * 5000 + "}", {"a": 1}),
    ],
)
def test_syntax_errors_stop_the_parser_without_raising(text: str, kept: dict[str, Any]) -> None:
    for size in (1, 4, len(text)):
        parser = stream(text, [size] * len(text))
        assert parser.error is not None, text
        assert parser.value == kept
        snapshot = copy.deepcopy(parser.value)
        parser.feed(', "c": 3, "d": [4]}')
        assert parser.value == snapshot
        assert parser.finish() is None
        assert parser.value == snapshot


def test_prefixes_of_valid_documents_never_set_an_error() -> None:
    for doc in ALL_DOCS:
        parser = IncrementalJsonParser()
        for char in doc:
            parser.feed(char)
            assert parser.error is None, doc


def test_garbage_never_raises() -> None:
    rng = random.Random(99)
    alphabet = '{}[]:,"\\ \n abefilnrstu01-+.eEx\u00e9'
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(40)))
        if rng.random() < 0.5:
            text = "{" + text
        parser = stream(text, random_sizes(rng, len(text), 6))
        assert isinstance(parser.value, dict)
        assert parser.finish() == expected_finish(text), text
        assert isinstance(parse_partial_json(text), dict)


def test_mutated_documents_never_raise_and_finish_agrees_with_json_loads() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        doc = rng.choice(ALL_DOCS)
        chars = list(doc)
        for _ in range(rng.randint(1, 3)):
            where = rng.randrange(len(chars) + 1)
            action = rng.randrange(3)
            if action == 0 and where < len(chars):
                del chars[where]
            elif action == 1:
                chars.insert(where, rng.choice('{}[]:,"\\0e-tn '))
            elif where < len(chars):
                chars[where] = rng.choice('{}[]:,"\\0e-tn ')
        text = "".join(chars)
        parser = stream(text, random_sizes(rng, len(text), 12))
        assert parser.finish() == expected_finish(text), text


# --- parse_partial_json -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, {}),
        ("", {}),
        ("   ", {}),
        ("null", {}),
        ("[1, 2]", {}),
        ('"s"', {}),
        ("garbage", {}),
        ('{"a": 1}', {"a": 1}),
        ('{"a": "hel', {"a": "hel"}),
        ('{"a": 1, "b', {"a": 1}),
        ('{"a": [1, 2', {"a": [1, 2]}),
        ('{"a": {"b": "c', {"a": {"b": "c"}}),
        ('{"a": 1} trailing', {"a": 1}),
    ],
)
def test_parse_partial_json(text: str | None, expected: dict[str, Any]) -> None:
    assert parse_partial_json(text) == expected


def test_parse_partial_json_equals_any_streamed_and_finished_parse() -> None:
    rng = random.Random(17)
    for doc in ALL_DOCS[:8] + ALL_DOCS[-4:]:
        for end in range(len(doc) + 1):
            prefix = doc[:end]
            parser = stream(prefix, random_sizes(rng, len(prefix), 5))
            parser.finish()
            assert parser.value == parse_partial_json(prefix), prefix


# --- linear cost (counted work, not timing) -----------------------------------------------------


def huge_string_doc(size: int) -> str:
    line = 'print(\\"hello\\tworld\\") \\\\ caf\u00e9 \\u00e9 \\ud83d\\ude00\\n'
    body = (line * (size // len(line) + 1))[:size]
    body = body[: body.rfind("\\n") + 2]
    return '{"path": "src/main.py", "content": "' + body + '"}'


def many_fields_doc(size: int) -> str:
    fields: dict[str, Any] = {}
    length = 0
    while length < size:
        i = len(fields)
        field = {"id": i, "tags": ["a", "b"], "ok": i % 2 == 0, "w": i / 7}
        fields[f"field_{i}"] = field
        length += len(json.dumps(f"field_{i}")) + len(json.dumps(field)) + 4
    return json.dumps(fields)


def scanned_per_char(doc: str, delta: int) -> float:
    parser = IncrementalJsonParser()
    for pos in range(0, len(doc), delta):
        parser.feed(doc[pos : pos + delta])
    assert parser.value == json.loads(doc)
    return parser._scanned / len(doc)  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize("make_doc", [huge_string_doc, many_fields_doc])
@pytest.mark.parametrize("delta", [1, 16])
def test_work_per_character_does_not_grow_with_the_stream(
    make_doc: Callable[[int], str], delta: int
) -> None:
    small = scanned_per_char(make_doc(20_000), delta)
    large = scanned_per_char(make_doc(200_000), delta)
    # Re-materialising the string on every delta would make the large stream cost ~10x more
    # per character. With the amortised refresh each character is scanned once and copied about
    # nine more times in total (the shown string grows by at least 1/8 at each refresh).
    assert large < small * 1.25
    assert large < 16


def test_the_work_counter_catches_a_quadratic_refresh(monkeypatch: pytest.MonkeyPatch) -> None:
    # Sanity check of the instrument: refreshing the string on every delta is counted.
    doc = huge_string_doc(50_000)
    amortised = scanned_per_char(doc, 16)
    monkeypatch.setattr(partial_json, "_REFRESH_MIN", 1)
    monkeypatch.setattr(partial_json, "_REFRESH_DIVISOR", 10**9)
    assert scanned_per_char(doc, 16) > 50 * amortised


@pytest.mark.parametrize(
    ("text", "bad"),
    [('{"a": "xy\\q"}', "\\q"), ('{"a": "x", "b": "\\u12G4"}', "\\u12G4")],
)
def test_an_invalid_escape_names_its_offset(text: str, bad: str) -> None:
    parser = IncrementalJsonParser()
    parser.feed(text)
    assert parser.error == f"invalid escape sequence at offset {text.index(bad)}"


def test_a_held_surrogate_counts_as_six_unshown_characters() -> None:
    """A long string's live value refreshes once 256 raw characters wait unshown (class notes).

    A high-surrogate escape held back for its low half is six of them (``\\ud83d``).
    """
    parser = IncrementalJsonParser()
    parser.feed('{"a": "' + "x" * 300)  # under 256 shown: refreshed at once
    parser.feed("y" * 250 + "\\ud83d")  # 256 waiting: refreshed, the surrogate held
    shown = "x" * 300 + "y" * 250
    assert parser.value == {"a": shown}
    parser.feed("z" * 249)  # 6 + 249 = 255 waiting: not yet
    assert parser.value == {"a": shown}
    parser.feed("z")  # 256
    assert parser.value == {"a": shown + "\ud83d" + "z" * 250}


@pytest.mark.parametrize(
    ("shown", "step"),
    [
        (255, 1),  # under 256 shown: every feed shows what came
        (256, 256),  # at 256 shown: the next refresh waits for 256 more
        (2048, 256),  # 2048 // 8 = 256: the floor still rules
        (2056, 257),  # 2056 // 8 = 257
        (2063, 257),  # 2063 // 8 = 257: rounded down
        (4096, 512),  # 4096 // 8 = 512
    ],
)
def test_a_long_strings_refresh_comes_exactly_at_its_documented_step(shown: int, step: int) -> None:
    """Once ``m`` characters are shown, the value refreshes when ``max(256, m // 8)`` raw
    characters wait unshown (class notes): one fewer shows nothing new, exactly that many
    shows them all."""
    parser = IncrementalJsonParser()
    parser.feed('{"a": "' + "x" * shown)  # shown at once (nothing was shown before)
    assert parser.value == {"a": "x" * shown}
    if step > 1:
        parser.feed("y" * (step - 1))
        assert parser.value == {"a": "x" * shown}
    parser.feed("y")
    assert parser.value == {"a": "x" * shown + "y" * step}


# --- bounded reads: a syntax error stops the scan ----------------------------------------------
# "Each a bounded number of times" (the module's promise) holds for bad input too: a syntax
# error ends the scan of the fragment at the offending character, the error names it and the
# scan stops. A scan that went on reading the same character without advancing would never
# return; the fragment here is a ``str`` that counts its reads and fails past a generous
# budget, so such a scan fails at once instead of hanging. One row per scanner state that can
# meet an unexpected character. (Named ``test_a_...`` so that they come first in this module.)

READS_PER_CHARACTER = 4
"""A fragment's characters may each be read this often (the scan reads each once or twice)."""


class CountedText(str):
    """A fragment that counts reads by index and fails once they pass its budget."""

    __slots__ = ("budget", "reads")

    budget: int
    reads: int

    def __new__(cls, text: str) -> CountedText:
        counted = super().__new__(cls, text)
        counted.budget = READS_PER_CHARACTER * len(text) + 4
        counted.reads = 0
        return counted

    def __getitem__(self, key):  # noqa: ANN001, ANN204 - str's own signature
        self.reads += 1
        if self.reads > self.budget:
            raise AssertionError(f"read {self.reads} times by index: the scan does not advance")
        return str.__getitem__(self, key)


@pytest.mark.parametrize(
    ("text", "error", "value"),
    [
        ("x", "unexpected 'x' at offset 0", {}),  # the root value
        ("  }", "unexpected '}' at offset 2", {}),
        ('{"a": 1 x}', "unexpected 'x' at offset 8", {"a": 1}),  # after a value
        ('{"a": [1 :]}', "unexpected ':' at offset 9", {"a": [1]}),
        ('{"a": }', "unexpected '}' at offset 6", {}),  # a value
        ('{"a": [1, ]}', "unexpected ']' at offset 10", {"a": [1]}),
        ("{1}", "unexpected '1' at offset 1", {}),  # a key
        ('{"a": 1, }', "unexpected '}' at offset 9", {"a": 1}),
        ('{"a" 1}', "unexpected '1' at offset 5", {}),  # the colon
        ('{"a": 1} x', "unexpected 'x' at offset 9", {"a": 1}),  # after the root closed
    ],
)
def test_a_syntax_error_stops_the_scan_at_the_offending_character(
    text: str, error: str, value: dict
) -> None:
    parser = IncrementalJsonParser()
    fragment = CountedText(text)
    parser.feed(fragment)
    assert (parser.error, parser.value) == (error, value)
    assert fragment.reads <= fragment.budget
    assert parser.finish() is None


@pytest.mark.parametrize(
    "text", ['{"a": [1, 2.5, true, null], "b": {"c": "d"}}', ' { "k" : "v" , "n" : -1 } ']
)
def test_a_valid_document_is_read_within_the_bounded_reads_budget(text: str) -> None:
    parser = IncrementalJsonParser()
    fragment = CountedText(text)
    parser.feed(fragment)
    assert parser.error is None
    assert fragment.reads <= fragment.budget
    assert parser.finish() == json.loads(text)
