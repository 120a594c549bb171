"""Stored signatures: TextSignatureV1 text ids, reasoning items as JSON (pi-mono's formats)."""

from __future__ import annotations

import json
from typing import Any

from .._shared_json import as_dict

__all__ = ["parse_text_signature", "reasoning_item", "text_signature"]


def text_signature(item_id: str, phase: str | None = None) -> str:
    """Return the TextSignatureV1 JSON for a message item id (pi-mono's compact form)."""
    fields: dict[str, Any] = {"v": 1, "id": item_id}
    if phase:
        fields["phase"] = phase
    return json.dumps(fields, separators=(",", ":"))


def parse_text_signature(signature: str | None) -> tuple[str | None, str | None]:
    """Return ``(item id, phase)`` from a TextSignatureV1 JSON or a legacy bare id."""
    if not signature:
        return None, None
    if not signature.startswith("{"):
        return signature, None
    try:
        fields = as_dict(json.loads(signature))
    except ValueError:
        return None, None
    item_id, phase = fields.get("id"), fields.get("phase")
    return (
        item_id if isinstance(item_id, str) and item_id else None,
        phase if isinstance(phase, str) and phase else None,
    )


def reasoning_item(signature: str | None) -> dict[str, Any] | None:
    if not signature:
        return None
    try:
        item = as_dict(json.loads(signature))
    except ValueError:
        return None
    return item if item.get("type") == "reasoning" else None
