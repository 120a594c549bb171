"""Typed access to parsed JSON: request builders, decoders and error mapping of both APIs."""

from __future__ import annotations

from typing import Any, cast

__all__ = ["as_dict", "as_list"]


def as_dict(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object, else ``{}`` (typed access to parsed JSON)."""
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def as_list(value: object) -> list[Any]:
    """``value`` if it is a JSON array, else ``[]``."""
    return cast("list[Any]", value) if isinstance(value, list) else []
