"""Which JSON-schema keywords Anthropic's strict tool use rejects (``strict_rejects``).

Source: Anthropic "Structured outputs", JSON Schema limitations: no numeric bounds, no
``maxItems``/``uniqueItems``, ``minItems`` only 0 or 1, and string ``format`` only from its
list. A keyword it rejects is left out of a strict tool's schema (a 400 otherwise); any other
keyword is kept.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_anthropic.messages._tools import strict_rejects

REJECTED = [
    ("minimum", 0), ("maximum", 10), ("exclusiveMinimum", 0), ("exclusiveMaximum", 1),
    ("multipleOf", 2), ("maxItems", 3), ("uniqueItems", True), ("minContains", 1),
    ("maxContains", 2), ("minProperties", 1), ("maxProperties", 4),
    ("minItems", 2), ("minItems", 10),
    ("format", "regex"), ("format", "int32"), ("format", "DATE-TIME"), ("format", ""),
    ("format", 5), ("format", None), ("format", ["date"]),
]  # fmt: skip
ACCEPTED = [
    ("minItems", 0), ("minItems", 1),
    *[("format", f) for f in
      "date-time time date duration email hostname uri ipv4 ipv6 uuid".split()],
    ("type", "string"), ("pattern", "^a"), ("enum", ["a"]), ("description", "d"),
    ("minLength", 1), ("maxLength", 5), ("items", {}), ("additionalProperties", False),
]  # fmt: skip


@pytest.mark.parametrize(("key", "value"), REJECTED, ids=[f"{k}={v!r}" for k, v in REJECTED])
def test_strict_rejects_what_anthropic_lists(key: str, value: Any) -> None:
    assert strict_rejects(key, value) is True


@pytest.mark.parametrize(("key", "value"), ACCEPTED, ids=[f"{k}={v!r}" for k, v in ACCEPTED])
def test_strict_keeps_everything_else(key: str, value: Any) -> None:
    assert strict_rejects(key, value) is False
