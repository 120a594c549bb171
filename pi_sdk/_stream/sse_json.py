r"""parse_event: the JSON of one server-sent event, parsed straight from its bytes.

pydantic-core's ``from_json`` (jiter, in Rust; pi-sdk depends on it through pydantic) parses an
event's UTF-8 bytes about 3x faster than ``json.loads`` parses the decoded text
(``benchmarks/run.py``), with no ``str`` copy of the event. Where it accepts a document it
returns what ``json.loads`` returns (same values, same key order, the last duplicate key wins,
``NaN``/``Infinity`` accepted, big integers exact, floats correctly rounded). What it refuses
(invalid UTF-8, a lone surrogate escape such as ``"\ud800"``, nesting deeper than 200, any
malformed document) is parsed again by ``json.loads`` on the text decoded with replacement
characters, so what is accepted, and the error raised, are exactly ``json.loads``'s.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import from_json

__all__ = ["parse_event"]


def parse_event(data: bytes) -> Any:
    """Return the JSON value of one event's ``data`` (UTF-8 bytes).

    Raises:
        ValueError: ``data`` is not JSON (``json.JSONDecodeError``, ``json.loads``'s message).
    """
    try:
        return from_json(data, cache_strings="keys")
    except ValueError:
        return json.loads(data.decode("utf-8", errors="replace"))
