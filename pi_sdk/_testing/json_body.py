"""A recorded request body read as JSON (the cassette's body matcher and the replay share it)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["json_body"]


def json_body(body: Any, *, keep_unparsed: bool) -> Any:
    """Parse ``body`` (``bytes``, ``str`` or ``None``, as vcrpy stores it) as JSON.

    Returns the parsed value, or ``None`` for an absent or empty body. A body that is not JSON
    comes back unchanged when ``keep_unparsed`` (so two such bodies still compare byte for
    byte), else as ``None``. Never raises.
    """
    if body is None or body == b"" or body == "":
        return None
    try:
        return json.loads(body)
    except (TypeError, ValueError):
        return body if keep_unparsed else None
