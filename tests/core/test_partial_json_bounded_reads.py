"""The partial-JSON parser reads each character of a fragment a bounded number of times, bad
input included (``pi_sdk/_stream/partial_json.py``: "each a bounded number of times").

A syntax error ends the scan of the fragment at the offending character: the error names it and
the scan stops. A scan that went on reading the same character without advancing would never
return; here the fragment is a ``str`` that counts its reads and fails past a generous budget, so
such a scan fails the test at once instead of hanging it. One row per scanner state that can
meet an unexpected character.
"""

from __future__ import annotations

import json

import pytest

from pi_sdk._stream.partial_json import IncrementalJsonParser

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
def test_a_valid_document_is_read_within_the_same_budget(text: str) -> None:
    parser = IncrementalJsonParser()
    fragment = CountedText(text)
    parser.feed(fragment)
    assert parser.error is None
    assert fragment.reads <= fragment.budget
    assert parser.finish() == json.loads(text)
