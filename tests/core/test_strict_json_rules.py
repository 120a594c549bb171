"""Strict JSON, rule by rule (issue 34): every refusal both ways, at its exact boundary.

:mod:`pi_sdk._wire.strict_json` reads session files and proxy request bodies written by someone
else. Each rule of its module doc is a row here: what is refused (and as which error, with which
words), what is accepted right at the limit, and the exact text written.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from pi_sdk._wire.strict_json import (
    MAX_NESTING,
    NestingError,
    StrictJsonError,
    dumps_strict,
    loads_strict,
    nesting_exceeds,
)


def _nested(depth: int, kind: str = "list") -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


# --- reading ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("NaN", "NaN is not JSON"),
        ("[Infinity]", "Infinity is not JSON"),
        ('{"a": -Infinity}', "-Infinity is not JSON"),
        ("1e400", "number 1e400 is out of float range"),
        ("[-1e400]", "number -1e400 is out of float range"),
        ("1" * 5000, "an integer of 5000 digits"),
        ("-" + "1" * 5000, "an integer of 5000 digits"),
    ],
)
def test_loads_refuses_what_json_has_not_naming_it(text: str, words: str) -> None:
    with pytest.raises(StrictJsonError) as caught:
        loads_strict(text)
    assert not isinstance(caught.value, NestingError)
    assert words in str(caught.value)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1.5", 1.5),
        ("1e308", 1e308),
        ("-0.0", -0.0),
        ("12", 12),
        ("-7", -7),
        ("1" * 4300, int("1" * 4300)),
        ('{"a":[true,null,"x"]}', {"a": [True, None, "x"]}),
    ],
)
def test_loads_accepts_finite_numbers_and_plain_json(text: str, value: Any) -> None:
    read = loads_strict(text)
    assert read == value
    assert type(read) is type(value)


def test_an_integer_too_long_names_the_interpreters_limit() -> None:
    limit = sys.get_int_max_str_digits()
    with pytest.raises(StrictJsonError, match=rf"get_int_max_str_digits\(\): {limit}\)"):
        loads_strict("9" * (limit + 1))


def test_invalid_json_text_is_a_json_decode_error_not_a_strict_refusal() -> None:
    with pytest.raises(json.JSONDecodeError):
        loads_strict("{'a': 1}")
    with pytest.raises(json.JSONDecodeError):
        loads_strict("[1,]")


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_nesting_is_read_up_to_the_limit_and_refused_one_past_it(kind: str) -> None:
    at_limit = json.dumps(_nested(MAX_NESTING, kind))
    assert loads_strict(at_limit) == _nested(MAX_NESTING, kind)
    with pytest.raises(NestingError, match=f"nested deeper than {MAX_NESTING} levels"):
        loads_strict(json.dumps(_nested(MAX_NESTING + 1, kind)))


def test_nesting_far_past_the_stack_is_a_nesting_error_not_a_recursion_error() -> None:
    with pytest.raises(NestingError):
        loads_strict("[" * 100_000 + "]" * 100_000)


def test_many_brackets_side_by_side_are_not_nesting() -> None:
    # More brackets than the limit, but never deeper than 2 levels.
    wide = [[i] for i in range(MAX_NESTING * 2)]
    assert loads_strict(json.dumps(wide)) == wide
    assert dumps_strict(wide) == json.dumps(wide, separators=(",", ":"))


# --- writing ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"a": [1, 2.5, None, True]}, '{"a":[1,2.5,null,true]}'),
        ("é中", '"é中"'),  # UTF-8, not \\u escapes
        ("line\nbreak", '"line\\nbreak"'),  # one line: a newline inside text is escaped
        ("\ud800", '"\\ud800"'),  # a lone surrogate kept exactly, as JSON.stringify writes it
        (["é", "\udfff"], '["\\u00e9","\\udfff"]'),
        ([], "[]"),
    ],
)
def test_dumps_writes_one_compact_line(value: Any, text: str) -> None:
    written = dumps_strict(value)
    assert written == text
    assert "\n" not in written
    assert loads_strict(written) == value


@pytest.mark.parametrize("number", [float("nan"), float("inf"), float("-inf")])
def test_dumps_refuses_non_finite_numbers(number: float) -> None:
    with pytest.raises(StrictJsonError, match="NaN or Infinity is not JSON") as caught:
        dumps_strict({"x": [number]})
    assert not isinstance(caught.value, NestingError)


def test_dumps_refuses_an_integer_too_long_naming_its_digits() -> None:
    digits = 5001
    with pytest.raises(StrictJsonError, match=f"an integer of {digits} digits") as caught:
        dumps_strict({"a": [1, True, (2, 10 ** (digits - 1))], "b": -3})
    assert "get_int_max_str_digits" in str(caught.value)


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_nesting_is_written_up_to_the_limit_and_refused_one_past_it(kind: str) -> None:
    assert loads_strict(dumps_strict(_nested(MAX_NESTING, kind))) == _nested(MAX_NESTING, kind)
    with pytest.raises(NestingError):
        dumps_strict(_nested(MAX_NESTING + 1, kind))


def test_writing_past_the_stack_is_a_nesting_error() -> None:
    with pytest.raises(NestingError):
        dumps_strict(_nested(100_000))


@pytest.mark.parametrize("value", [{1, 2}, object(), b"bytes"])
def test_dumps_refuses_what_is_not_json_data_with_type_error(value: Any) -> None:
    with pytest.raises(TypeError):
        dumps_strict({"v": value})


# --- measuring ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "limit", "exceeds"),
    [
        (0, 0, False),  # scalars have no levels
        ("text", 0, False),
        ([], 1, False),
        ([], 0, True),
        ({}, 0, True),
        ([[0]], 2, False),
        ([[0]], 1, True),
        ({"a": {"b": []}}, 3, False),
        ({"a": {"b": []}}, 2, True),
        ([0, [0, [0]], 0], 3, False),  # the deepest branch counts, wherever it is
        ([0, [0, [0]], 0], 2, True),
        ([[], [], [[[]]]], 3, True),
    ],
)
def test_nesting_exceeds_counts_levels_of_the_deepest_branch(
    value: Any, limit: int, exceeds: bool
) -> None:
    assert nesting_exceeds(value, limit) is exceeds


def test_nesting_exceeds_defaults_to_the_module_limit() -> None:
    assert nesting_exceeds(_nested(MAX_NESTING)) is False
    assert nesting_exceeds(_nested(MAX_NESTING + 1)) is True
    assert MAX_NESTING == 500
