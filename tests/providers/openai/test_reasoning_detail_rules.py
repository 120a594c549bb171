"""Every rule of OpenRouter ``reasoning_details`` checking and merging, one case each (issue 34).

``is_reasoning_detail`` is pi-ai 1.6's ``isOpenAIReasoningDetail``: an entry is kept (and sent
back next turn) only when each optional field has its type and the entry's own field for its
``type`` is a string. A sample of issue 34 (seed 20261205) showed that loosening one of these
rules went unnoticed: here each rule is broken once, alone, on an otherwise valid entry.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pi_sdk_openai.completions._reasoning_details import (
    append_reasoning_detail,
    is_reasoning_detail,
    legacy_encrypted_detail,
    parse_reasoning_details,
)

VALID: list[dict[str, Any]] = [
    {"type": "reasoning.text", "text": "Let me see", "signature": "sig", "id": "r1"},
    {"type": "reasoning.text", "text": "no signature", "format": "anthropic-claude-v1"},
    {"type": "reasoning.summary", "summary": "short", "index": 0},
    {"type": "reasoning.encrypted", "data": "opaque", "index": 1.0, "id": None},
]


@pytest.mark.parametrize("entry", VALID)
def test_well_formed_entries(entry: dict[str, Any]) -> None:
    assert is_reasoning_detail(entry) is True


BROKEN: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "id not a string": (VALID[0], {"id": 7}),
    "format not a string": (VALID[1], {"format": None}),
    "index a bool": (VALID[2], {"index": True}),
    "index a string": (VALID[2], {"index": "0"}),
    "summary not a string": (VALID[2], {"summary": ["a"]}),
    "data not a string": (VALID[3], {"data": None}),
    "text not a string": (VALID[0], {"text": 1}),
    "signature not a string": (VALID[0], {"signature": 5}),
    "unknown type": (VALID[0], {"type": "reasoning.other"}),
    # An unknown type that sorts before the known ones, carrying their fields.
    "unknown type sorting first": (VALID[3], {"type": "reasoning.compressed"}),
    "unknown type with a summary": (VALID[2], {"type": "reasoning.abridged"}),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_each_rule_alone_refuses_an_entry(case: str) -> None:
    entry, change = BROKEN[case]
    assert is_reasoning_detail({**entry, **change}) is False
    assert parse_reasoning_details(json.dumps([VALID[2], {**entry, **change}])) is None


def test_only_dicts_are_entries() -> None:
    assert not is_reasoning_detail(["reasoning.text"])
    assert not is_reasoning_detail(None)


def test_a_signature_is_read_as_entries_only_when_it_is_a_list_of_them() -> None:
    assert parse_reasoning_details(json.dumps(VALID)) == VALID
    assert parse_reasoning_details("[]") is None
    assert parse_reasoning_details("[not json") is None
    assert parse_reasoning_details(json.dumps(VALID[0])) is None  # an object, not a list
    assert parse_reasoning_details("sig-abc") is None
    assert parse_reasoning_details(None) is None


def test_the_older_single_encrypted_entry() -> None:
    entry = {"type": "reasoning.encrypted", "id": "tc1", "data": "opaque"}
    assert legacy_encrypted_detail(json.dumps(entry)) == entry
    # Another well-formed entry (a text or a summary carrying data too) is not the older form.
    for change in (
        {"id": ""},
        {"id": None},
        {"data": ""},
        {"type": "reasoning.summary"},
        {"type": "reasoning.summary", "summary": "s"},
        {"type": "reasoning.text", "text": "t"},
    ):
        assert legacy_encrypted_detail(json.dumps({**entry, **change})) is None
    assert legacy_encrypted_detail(json.dumps([entry])) is None


def test_streamed_pieces_merge_by_type_and_keep_the_first_ids() -> None:
    details: list[dict[str, Any]] = []
    append_reasoning_detail(details, {"type": "reasoning.text", "text": "a", "index": 0})
    append_reasoning_detail(
        details,
        {"type": "reasoning.text", "text": "b", "signature": "s", "id": "r", "format": "f"},
    )
    append_reasoning_detail(details, {"type": "reasoning.text", "text": "c", "signature": "t"})
    append_reasoning_detail(details, {"type": "reasoning.summary", "summary": "x"})
    append_reasoning_detail(details, {"type": "reasoning.summary", "summary": "y", "index": 3})
    append_reasoning_detail(details, {"type": "reasoning.encrypted", "data": "d1"})
    append_reasoning_detail(details, {"type": "reasoning.encrypted", "data": "d2"})
    assert details == [
        {
            "type": "reasoning.text",
            "text": "abc",
            "index": 0,
            "signature": "s",
            "id": "r",
            "format": "f",
        },
        {"type": "reasoning.summary", "summary": "xy", "index": 3},
        {"type": "reasoning.encrypted", "data": "d1"},  # never merged: each is whole
        {"type": "reasoning.encrypted", "data": "d2"},
    ]


def test_pieces_of_another_type_are_never_merged_whichever_comes_first() -> None:
    details: list[dict[str, Any]] = []
    append_reasoning_detail(details, {"type": "reasoning.summary", "summary": "x"})
    append_reasoning_detail(details, {"type": "reasoning.text", "text": "a"})
    append_reasoning_detail(details, {"type": "reasoning.encrypted", "data": "d"})
    append_reasoning_detail(details, {"type": "reasoning.text", "text": "b"})
    append_reasoning_detail(details, {"type": "reasoning.summary", "summary": "y"})
    assert details == [
        {"type": "reasoning.summary", "summary": "x"},
        {"type": "reasoning.text", "text": "a"},
        {"type": "reasoning.encrypted", "data": "d"},
        {"type": "reasoning.text", "text": "b"},
        {"type": "reasoning.summary", "summary": "y"},
    ]
