"""Where the texts a model is shown are cut, character by character (issue 34).

The raw arguments of a malformed tool call (:data:`MAX_RECEIVED_CHARS`, then how many more), a
cited passage (200 characters, the last one the mark) and the shortest tool-call id length a
caller may ask for (12: room for the hash suffix).
"""

from __future__ import annotations

import pytest

from pi_sdk._wire.citations import _line  # pyright: ignore[reportPrivateUsage]
from pi_sdk._wire.ids import sanitize_tool_call_id
from pi_sdk._wire.invalid_arguments import MAX_RECEIVED_CHARS, _bounded  # pyright: ignore[reportPrivateUsage]
from pi_sdk.types import Citation


@pytest.mark.parametrize(
    ("length", "expected"),
    [
        (2000, "x" * 2000),
        (2001, "x" * 2000 + "... (1 more characters)"),
        (2003, "x" * 2000 + "... (3 more characters)"),
    ],
)
def test_received_arguments_are_shown_up_to_2000_characters(length: int, expected: str) -> None:
    assert MAX_RECEIVED_CHARS == 2000
    assert _bounded("x" * length) == expected


@pytest.mark.parametrize(
    ("length", "shown"),
    [(200, "p" * 200), (201, "p" * 199 + "…"), (250, "p" * 199 + "…")],
)
def test_a_cited_passage_is_shown_up_to_200_characters(length: int, shown: str) -> None:
    line = f'- Doc: "{shown}"'
    assert _line(Citation(type="c", title="Doc", cited_text="p" * length)) == (line, line)


def test_the_shortest_tool_call_id_length_is_12() -> None:
    assert len(sanitize_tool_call_id("call|" + "a" * 40, max_len=12)) == 12
    with pytest.raises(ValueError) as refused:
        sanitize_tool_call_id("call", max_len=11)
    assert str(refused.value) == "max_len must be at least 12, got 11"
