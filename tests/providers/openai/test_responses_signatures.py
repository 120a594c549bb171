"""Stored Responses signatures (``responses._signatures``): pi-mono's TextSignatureV1 and reasoning.

A text block's signature is ``{"v":1,"id":...,"phase"?:...}`` (compact JSON) or, from older
pi versions, the bare item id; a thinking block's is the reasoning item as JSON. Anything
unreadable gives nothing rather than an error.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai.responses._signatures import (
    parse_text_signature,
    reasoning_item,
    text_signature,
)


@pytest.mark.parametrize(
    ("item_id", "phase", "signature"),
    [
        ("msg_1", None, '{"v":1,"id":"msg_1"}'),
        ("msg_1", "", '{"v":1,"id":"msg_1"}'),
        ("msg_1", "final_answer", '{"v":1,"id":"msg_1","phase":"final_answer"}'),
    ],
)
def test_text_signature_round_trip(item_id: str, phase: str | None, signature: str) -> None:
    assert text_signature(item_id, phase) == signature
    assert parse_text_signature(signature) == (item_id, phase or None)


@pytest.mark.parametrize(
    ("signature", "parsed"),
    [
        (None, (None, None)),
        ("", (None, None)),
        ("msg_legacy", ("msg_legacy", None)),
        ('{"v":1,"id":"msg_1","phase":"commentary"}', ("msg_1", "commentary")),
        ('{"v":1,"id":"","phase":""}', (None, None)),
        ('{"v":1,"id":7,"phase":["x"]}', (None, None)),
        ('{"v":1,"phase":"commentary"}', (None, "commentary")),
        ('{"v":1,"id":"msg_1"', (None, None)),
        ("{not json", (None, None)),
        ('["msg_1"]', ('["msg_1"]', None)),
        ("{}", (None, None)),
    ],
)
def test_parse_text_signature(signature: str | None, parsed: tuple[Any, Any]) -> None:
    assert parse_text_signature(signature) == parsed


ITEM = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"}


@pytest.mark.parametrize(
    ("signature", "item"),
    [
        (None, None),
        ("", None),
        ('{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"}', ITEM),
        ('{"type":"message","id":"msg_1"}', None),
        ('{"id":"rs_1"}', None),
        ('{"type":"reasoning"', None),
        ("reasoning", None),
        ('["reasoning"]', None),
    ],
)
def test_reasoning_item(signature: str | None, item: dict[str, Any] | None) -> None:
    assert reasoning_item(signature) == item
