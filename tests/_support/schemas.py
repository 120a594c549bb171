"""Tool parameter schemas shared by the constrained-sampling tests, and their strict form.

``STRICT_WEATHER`` is ``WEATHER`` as pi-ai 1.6's ``makeStrictJsonSchema`` makes it (and OpenAI's
strict mode wants it): every property required, the optional ``unit`` made nullable, no
additional properties.
"""

from __future__ import annotations

from typing import Any

SQL: dict[str, Any] = {
    "type": "object",
    "properties": {"query": {"type": "string"}},
    "required": ["query"],
}
"""One required string: what a grammar tool's call text maps to."""
WEATHER: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
    "required": ["city"],
}
"""A required ``city`` and an optional ``unit``."""
STRICT_WEATHER: dict[str, Any] = {
    **WEATHER,
    "properties": {
        "city": {"type": "string"},
        "unit": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    "required": ["city", "unit"],
    "additionalProperties": False,
}
