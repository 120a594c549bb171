"""Recorded traffic of the Echo Messages API of docs/plugins/writing-a-provider.md."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["echo_cassette"]


def echo_cassette(
    pieces: list[str], uri: str = "https://api.echo.invalid/v1/replies"
) -> dict[str, Any]:
    """What ``--pi-record`` stores for one streamed Echo call: a text reply made of ``pieces``."""
    events: list[dict[str, Any]] = [{"type": "block_start", "index": 0, "kind": "text"}]
    events += [{"type": "delta", "index": 0, "text": piece} for piece in pieces]
    events += [
        {"type": "block_end", "index": 0, "signature": None},
        {"type": "stop", "reason": "end", "usage": {"input": 1, "output": len(pieces)}},
    ]
    request = {"model": "echo-1", "messages": [{"role": "user", "text": "hi"}], "stream": True}
    return {
        "version": 1,
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": uri,
                    "body": json.dumps(request),
                    "headers": {"content-type": ["application/json"]},
                },
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"content-type": ["text/event-stream"]},
                    "body": {"string": "".join(f"data: {json.dumps(e)}\n\n" for e in events)},
                },
            }
        ],
    }
