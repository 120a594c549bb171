"""AWS event-stream frames (Bedrock ConverseStream's body), encoded for the benchmarks.

A frame is a prelude (total and header lengths, CRC32), string headers (``:event-type``,
``:content-type``, ``:message-type``), the JSON payload and a CRC32 of the whole message
(AWS "Event stream encoding").
"""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any


def _header(name: str, value: str) -> bytes:
    raw, data = name.encode(), value.encode()
    return bytes([len(raw)]) + raw + b"\x07" + struct.pack(">H", len(data)) + data


def frame(event: str, payload: dict[str, Any]) -> bytes:
    """One ``event`` message carrying ``payload`` as compact JSON."""
    headers = (
        _header(":event-type", event)
        + _header(":content-type", "application/json")
        + _header(":message-type", "event")
    )
    body = json.dumps(payload, separators=(",", ":")).encode()
    prelude = struct.pack(">II", 16 + len(headers) + len(body), len(headers))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + body
    return message + struct.pack(">I", zlib.crc32(message))
