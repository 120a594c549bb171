"""The partial-JSON parser's end states: a root that is not an object, a failure, deep nesting.

Each state is reached through a cut stream (the fragments after the one that decided the state
must change nothing) and through :meth:`finish` (issue 34: a loosened state comparison went
unnoticed because no test fed text after the parser stopped building).
"""

from __future__ import annotations

import pytest

from pi_sdk._stream.partial_json import IncrementalJsonParser


@pytest.mark.parametrize("root", ["[1, 2]", '"text"', "42", "true", "null "])
def test_a_root_that_is_not_an_object_is_ignored_to_the_end(root: str) -> None:
    parser = IncrementalJsonParser()
    parser.feed(root[:1])
    parser.feed(root[1:])  # after the decision: nothing is scanned, nothing fails
    parser.feed(" ")
    assert parser.error is None
    assert parser.value == {}
    assert parser.raw == root + " "
    assert parser.finish() == ({} if root.strip() == "null" else None)


def test_after_a_syntax_error_nothing_more_is_built() -> None:
    parser = IncrementalJsonParser()
    parser.feed('{"a": 1} x')
    assert parser.error == "unexpected 'x' at offset 9"
    parser.feed(', "b": 2}')
    assert parser.value == {"a": 1}
    assert parser.error == "unexpected 'x' at offset 9"
    assert parser.finish() is None


def test_text_after_the_closed_root_may_only_be_whitespace() -> None:
    parser = IncrementalJsonParser()
    parser.feed('{"a": [1]}')
    parser.feed(" \n\t")
    assert parser.error is None
    parser.feed("}")
    assert parser.error == "unexpected '}' at offset 13"
    assert parser.value == {"a": [1]}


DEPTH = 5000  # deeper than json.loads can go (RecursionError); the parser has no such limit


def test_nesting_deeper_than_json_loads_is_kept_when_the_root_closed() -> None:
    parser = IncrementalJsonParser()
    parser.feed('{"a": ' + "[" * DEPTH)
    parser.feed("]" * DEPTH + ', "b": 1}')
    result = parser.finish()
    assert result is parser.value
    assert set(result) == {"a", "b"} and result["b"] == 1


def test_nesting_deeper_than_json_loads_is_refused_when_the_root_is_open() -> None:
    parser = IncrementalJsonParser()
    parser.feed('{"a": ' + "[" * DEPTH + "]" * DEPTH)
    assert parser.finish() is None
    assert set(parser.value) == {"a"}  # the best partial object stays readable


@pytest.mark.parametrize(
    ("plain", "escape", "rest", "char"),
    [(253, "\\u00", "41", "A"), (255, "\\u0", "041", "A"), (254, "\\", "n", "\n")],
)
def test_an_escape_cut_at_a_feed_s_end_does_not_count_towards_a_refresh(
    plain: int, escape: str, rest: str, char: str
) -> None:
    # Past 256 shown characters a string value is refreshed once 256 raw characters are
    # unshown (class notes). An escape cut by the feed's end is not counted: fewer than 256
    # plain characters plus a cut escape stay unshown; the escape completed, they are shown.
    parser = IncrementalJsonParser()
    parser.feed('{"a": "' + "x" * 300)
    assert parser.value == {"a": "x" * 300}
    parser.feed("y" * plain + escape)
    assert parser.value == {"a": "x" * 300}
    parser.feed(rest)
    assert parser.value == {"a": "x" * 300 + "y" * plain + char}
