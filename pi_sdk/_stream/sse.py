"""Server-sent events from raw bytes, for providers that read the stream themselves.

The vendor SDKs build a typed object per chunk that we would throw away; reading the bytes and
``json.loads``-ing each ``data:`` field is several times cheaper. Follows the WHATWG SSE parsing
rules: lines end in LF, CRLF or CR; ``event:`` and ``data:`` (joined with LF) fields; comments
start with ``:``; an event is dispatched on a blank line. At the end of the stream an event
without its blank line is dispatched only when its data is a whole JSON document or the
``[DONE]`` sentinel of OpenAI-style servers (servers and
proxies do end a body ``data: {...}`` with no blank line; the anthropic SDK's own tests expect that
last event to count); anything else unfinished is discarded, so a cut stream never yields half an
event.

:class:`SseFramer` does the work a network chunk at a time, with no Python loop per line: the
chunk is split into events on the blank line (``bytes.split``), and an event of the two usual
shapes (``data: ...`` alone, or ``event: name`` then ``data: ...``) is taken apart with slicing;
only other shapes (several ``data:`` lines, comments, fields without a space) go line by line.
Line endings are normalized to LF first, except in the usual CRLF stream (Gemini's): a chunk
whose every CR and LF sits in a CRLF CRLF blank line is split on that as it came, which gives
the same events without a normalized copy of the chunk.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass

__all__ = ["ServerSentEvent", "SseFramer", "iter_sse", "iter_sse_bytes"]

_BOM = b"\xef\xbb\xbf"
_LF = 0x0A
_CR = 0x0D
# Membership tests on bytes use the byte's value (``_LF in block``) or ``find``, never a bytes
# needle (``b"\n" in block``): CPython 3.11 first tries the needle as an integer, raising and
# clearing a TypeError, which costs more than the search itself; this runs once per event.


@dataclass(slots=True)
class ServerSentEvent:
    """One dispatched event: ``event`` name (``"message"`` when absent) and ``data`` text."""

    event: str
    data: str


async def iter_sse(chunks: AsyncIterable[bytes]) -> AsyncIterator[ServerSentEvent]:
    """Yield the events of an SSE byte stream, chunked however the transport delivers it."""
    async for event, data in iter_sse_bytes(chunks):
        yield ServerSentEvent(event, data.decode("utf-8", errors="replace"))


async def iter_sse_bytes(chunks: AsyncIterable[bytes]) -> AsyncIterator[tuple[str, bytes]]:
    """:func:`iter_sse` without decoding the data: ``(event name, data as UTF-8 bytes)``.

    For a reader that parses the JSON from bytes (no ``str`` copy per event). Invalid UTF-8
    is left as it came; :func:`iter_sse` decodes it with replacement characters.
    """
    framer = SseFramer()
    async for chunk in chunks:
        for event in framer.feed(chunk):
            yield event
    for event in framer.end():
        yield event


class SseFramer:
    """Cuts an SSE byte stream into ``(event name, data bytes)`` events, chunk by chunk.

    :meth:`feed` each chunk as it arrives (it returns the events the chunk completed), then
    :meth:`end` once the body ended (the last event, when it lacks its blank line but its data
    is whole). The events are those of :func:`iter_sse_bytes`, however the bytes are chunked.
    """

    __slots__ = ("_at_start", "_held_cr", "_names", "_parts", "_plain")

    def __init__(self) -> None:
        self._parts: list[bytes] = []  # the unfinished event (normalized to LF)
        self._held_cr = False  # the chunk ended in CR: maybe the first half of CRLF
        self._at_start = True  # a UTF-8 byte-order mark before the first byte is ignored
        self._names: dict[bytes, str] = {}  # event names seen, decoded once
        self._plain = False  # ``_parts`` holds only bytes without CR or LF (``_crlf_events``)

    def feed(self, chunk: bytes) -> list[tuple[str, bytes]]:
        """The events ``chunk`` completes, in order (often none, often several)."""
        if not chunk:
            return []
        if self._at_start:
            pending = b"".join(self._parts) + chunk
            if len(pending) < len(_BOM) and _BOM.startswith(pending):
                self._parts = [pending]  # maybe a split BOM: decide with more bytes
                return []
            self._at_start = False
            self._parts = []
            chunk = pending[len(_BOM) :] if pending.startswith(_BOM) else pending
        if self._held_cr:
            chunk = b"\r" + chunk
            self._held_cr = False
        plain = self._plain or not self._parts
        if _CR in chunk:
            if plain:
                events = self._crlf_events(chunk)
                if events is not None:
                    return events
            if chunk.endswith(b"\r"):  # keep it: the next chunk may start with its LF
                self._held_cr = True
                chunk = chunk[:-1]
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            plain = False
        self._plain = plain and _LF not in chunk
        parts = self._parts
        if parts:
            if chunk.find(b"\n\n") < 0 and not (chunk[:1] == b"\n" and parts[-1][-1:] == b"\n"):
                parts.append(chunk)  # still inside one event: no copy until it ends
                return []
            parts.append(chunk)
            chunk = b"".join(parts)
            parts.clear()
        blocks = chunk.split(b"\n\n")
        last = blocks.pop()
        if last:
            parts.append(last)
        return self._events(blocks)

    def _crlf_events(self, chunk: bytes) -> list[tuple[str, bytes]] | None:
        """The events of a CRLF chunk whose every CR and LF is in a CRLF CRLF blank line.

        Gemini's shape: one-line ``data:`` events ended by CRLF CRLF. Such a chunk (after an
        unfinished event without CR or LF, if any), normalized to LF, splits on the blank line
        into the same blocks, so it is split as it came: one pass, no normalized copy. ``None``
        (nothing changed) for any other chunk: a CR or LF inside an event, or an unfinished
        blank line at the end; the general path of :meth:`feed` handles it.
        """
        parts = self._parts
        if parts:
            chunk = b"".join(parts) + chunk
        blocks = chunk.split(b"\r\n\r\n")
        for block in blocks:
            if _CR in block or _LF in block:
                return None
        parts.clear()
        last = blocks.pop()
        if last:
            parts.append(last)
        self._plain = True
        return self._events(blocks)

    def end(self) -> list[tuple[str, bytes]]:
        """The body ended: its last event when unterminated but whole (JSON or ``[DONE]``)."""
        rest = b"".join(self._parts)
        self._parts = []
        self._plain = False
        if self._at_start and _BOM.startswith(rest):
            rest = b""
        if self._held_cr:  # a CR at the very end ends its line
            rest += b"\n"
            self._held_cr = False
        blocks = rest.split(b"\n\n")
        last = blocks.pop()
        events = self._events(blocks)
        if last.endswith(b"\n"):
            last = last[:-1]  # the last line is whole even without its newline
        event = _block_data(last, self._names) if last else None
        if event is not None and _is_whole_json(event[1]):
            events.append(event)
        return events

    def _events(self, blocks: list[bytes]) -> list[tuple[str, bytes]]:
        """The events of complete blocks (each the lines of one event, without the blank line)."""
        events: list[tuple[str, bytes]] = []
        names = self._names
        for block in blocks:
            if block[:6] == b"data: ":
                if _LF not in block:  # the usual unnamed event: one data line
                    events.append(("message", block[6:]))
                    continue
            elif block[:7] == b"event: ":
                cut = block.find(b"\n")
                line = block[cut + 1 : cut + 7]
                if cut > 0 and line == b"data: " and block.find(b"\n", cut + 1) < 0:
                    raw = block[7:cut]  # the usual named event: its name, then one data line
                    name = names.get(raw)
                    if name is None:
                        name = names[raw] = raw.decode("utf-8", errors="replace")
                    events.append((name or "message", block[cut + 7 :]))
                    continue
            event = _block_data(block, names)
            if event is not None:
                events.append(event)
        return events


def _block_data(block: bytes, names: dict[bytes, str]) -> tuple[str, bytes] | None:
    """One event's lines read line by line (the WHATWG rules); ``None`` when it has no data."""
    event = ""
    data: list[bytes] = []
    for line in block.split(b"\n"):
        if not line:  # a blank line before the event's first field (after a run of them)
            data = []
            event = ""
            continue
        if line.startswith(b"data:"):
            data.append(line[6:] if line[5:6] == b" " else line[5:])
            continue
        if line[0] == 58:  # b":" comment
            continue
        name, sep, value = line.partition(b":")
        if sep and value[:1] == b" ":
            value = value[1:]
        if name == b"data":  # a field name alone on its line: empty data
            data.append(value)
        elif name == b"event":
            event = names.get(value) or value.decode("utf-8", errors="replace")
    if not data:
        return None
    return (event or "message", data[0] if len(data) == 1 else b"\n".join(data))


def _is_whole_json(data: bytes) -> bool:
    text = data.decode("utf-8", errors="replace")
    if text == "[DONE]":
        return True
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
