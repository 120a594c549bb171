"""AWS event-stream framing (``application/vnd.amazon.eventstream``): bytes -> frames.

Wire format (AWS "Event stream encoding", used by ConverseStream and botocore's
``EventStreamBuffer``), all integers big-endian:

* prelude: total length (uint32), headers length (uint32), prelude CRC32 (uint32, of the 8
  bytes before it);
* headers: repeated ``name length (uint8), name (UTF-8), value type (uint8), value``; value
  types 0/1 boolean true/false (no bytes), 2 byte, 3 int16, 4 int32, 5 int64, 6 bytes and 7
  string (uint16 length + data), 8 timestamp (int64 ms), 9 UUID (16 bytes);
* payload (``total - headers - 16`` bytes; ConverseStream: one JSON object);
* message CRC32 (uint32, of every byte of the frame before it).

:class:`FrameReader` takes the body's chunks as they come and returns the complete frames; a
frame split over chunks waits for its end. Headers blocks repeat byte for byte between frames
of one event type, so their parse is cached: a text delta costs two CRC32s, one slice and a
dict lookup here.
"""

from __future__ import annotations

from struct import Struct
from struct import error as StructError
from typing import Any
from zlib import crc32

from pi_sdk.provider import ProviderError

__all__ = ["MAX_FRAME_BYTES", "Frame", "FrameReader", "parse_headers"]

MAX_FRAME_BYTES = 24 * 1024 * 1024
"""Largest frame accepted (AWS caps event-stream messages at 16 MiB of payload)."""

_PRELUDE = Struct(">III")
_UINT32 = Struct(">I")
_UINT16 = Struct(">H")
_FIXED = {2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
"""Header value type -> size in bytes, for the fixed-size types."""

Frame = tuple[str, str, bytes, dict[str, Any]]
"""``(message type, event/exception type or error code, payload, headers)``."""


def _malformed(number: int, why: str) -> ProviderError:
    return ProviderError(f"malformed event-stream frame #{number}: {why}")


def parse_headers(raw: bytes, number: int = 0) -> dict[str, Any]:
    """Decode an event-stream headers block into ``{name: value}``.

    Strings are ``str``, bytes and UUIDs ``bytes``, the integer types and timestamps ``int``,
    booleans ``bool``.

    Raises:
        ProviderError: a header runs past the block, or has an unknown value type.
    """
    headers: dict[str, Any] = {}
    pos, end = 0, len(raw)
    try:
        while pos < end:
            size = raw[pos]
            name = raw[pos + 1 : pos + 1 + size].decode("utf-8")
            pos += 1 + size
            kind = raw[pos]
            pos += 1
            value: Any
            if kind in (0, 1):
                value = kind == 0
            elif kind in (6, 7):
                length = _UINT16.unpack_from(raw, pos)[0]
                data = raw[pos + 2 : pos + 2 + length]
                pos += 2 + length
                value = data.decode("utf-8") if kind == 7 else data
            elif kind in _FIXED:
                width = _FIXED[kind]
                data = raw[pos : pos + width]
                pos += width
                value = data if kind == 9 else int.from_bytes(data, "big", signed=True)
            else:
                raise _malformed(number, f"header {name!r} has unknown value type {kind}")
            if pos > end:
                raise IndexError
            headers[name] = value
    except (IndexError, StructError, ValueError) as exc:
        if isinstance(exc, ProviderError):
            raise
        raise _malformed(number, "headers run past their block") from None
    return headers


class FrameReader:
    """Incremental event-stream decoder: :meth:`feed` chunks, get complete frames.

    ``frames`` counts the frames returned; :attr:`pending` tells whether bytes of an
    unfinished frame are held (a body that ends then was cut inside a frame).

    Raises (from :meth:`feed`):
        ProviderError: a prelude or message CRC32 mismatch, impossible lengths, bad headers.
    """

    __slots__ = ("_headers", "_rest", "frames")

    def __init__(self) -> None:
        self._rest = b""
        self._headers: dict[bytes, Frame] = {}
        self.frames = 0

    @property
    def pending(self) -> bool:
        """True when the bytes fed so far end inside a frame."""
        return bool(self._rest)

    def feed(self, chunk: bytes) -> list[Frame]:
        """Add ``chunk`` of the body; return the frames it completes, in order."""
        data = self._rest + chunk if self._rest else chunk
        size = len(data)
        pos = 0
        out: list[Frame] = []
        while size - pos >= 12:
            total, header_size, prelude_crc = _PRELUDE.unpack_from(data, pos)
            prelude = crc32(data[pos : pos + 8])
            if prelude != prelude_crc:
                number = self.frames + 1
                raise _malformed(number, "prelude checksum mismatch (corrupted or not a frame)")
            if total < 16 or total > MAX_FRAME_BYTES or header_size > total - 16:
                why = f"impossible lengths (total {total}, headers {header_size})"
                raise _malformed(self.frames + 1, why)
            if size - pos < total:
                break  # the rest of this frame is in a later chunk
            end = pos + total - 4
            start = pos + 12
            # The message CRC covers the prelude too: continue from the prelude's CRC.
            if crc32(data[pos + 8 : end], prelude) != _UINT32.unpack_from(data, end)[0]:
                raise _malformed(self.frames + 1, "message checksum mismatch (corrupted frame)")
            raw = data[start : start + header_size]
            head = self._headers.get(raw)
            if head is None:
                head = self._describe(raw, self.frames + 1)
            out.append((head[0], head[1], data[start + header_size : end], head[3]))
            self.frames += 1
            pos = end + 4
        self._rest = data[pos:] if pos < size else b""
        return out

    def _describe(self, raw: bytes, number: int) -> Frame:
        """Parse a headers block and cache it as a frame template (payload empty)."""
        headers = parse_headers(raw, number)
        kind = headers.get(":message-type")
        kind = kind if isinstance(kind, str) else "event"
        name_key = {"event": ":event-type", "exception": ":exception-type"}.get(kind, ":error-code")
        name = headers.get(name_key)
        head: Frame = (kind, name if isinstance(name, str) else "", b"", headers)
        if len(self._headers) < 64:  # a stream has a handful of distinct headers blocks
            self._headers[raw] = head
        return head
