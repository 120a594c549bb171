"""Expected event-type sequences, written as blocks instead of one string a line."""

from __future__ import annotations


def block_types(kind: str, deltas: int = 1) -> list[str]:
    """One content block's event types: ``<kind>_start``, ``deltas`` x ``<kind>_delta``, end."""
    return [f"{kind}_start", *[f"{kind}_delta"] * deltas, f"{kind}_end"]


def reply_types(*blocks: list[str], start: bool = True, end: str = "done") -> list[str]:
    """A reply's event types: ``start`` (unless ``start=False``), the blocks', then ``end``."""
    return [*(["start"] if start else []), *(t for b in blocks for t in b), end]
