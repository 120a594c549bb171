"""ConverseStream events and Converse responses -> :class:`~pi_sdk.provider.MessageBuilder` calls.

Wire facts: the Bedrock Runtime API reference, ``ConverseStream`` (event stream members
``messageStart``, ``contentBlockStart``, ``contentBlockDelta``, ``contentBlockStop``,
``messageStop``, ``metadata``, and the exception members ``internalServerException``,
``modelStreamErrorException``, ``validationException``, ``throttlingException``,
``serviceUnavailableException``) and ``Converse`` (``output.message.content``, ``stopReason``,
``usage``). A text or reasoning block has no ``contentBlockStart``: its first delta opens it.
Mapping: pi-mono ``providers/amazon-bedrock.ts``, with the differences in
``docs/providers/bedrock.md`` (redacted reasoning kept, exception frames named, unknown and
filter stop reasons are errors that say why).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, cast

from pi_sdk import AssistantMessageEvent, Citation, TextContent
from pi_sdk.provider import (
    Events,
    MessageBuilder,
    ProviderError,
    malformed_event_error,
    parse_event,
)
from pi_sdk.provider import body_excerpt as excerpt

from ._citations import citation
from ._exceptions import exception_error
from ._frames import FrameReader
from ._response_events import response_as_events
from ._server_tools import server_block
from ._stop_reasons import map_stop_reason, stop_error_text
from ._usage import apply_usage

__all__ = [
    "REDACTED_THINKING_TEXT",
    "Decoder",
    "map_stop_reason",
    "response_as_events",
]  # (the last two from ._stop_reasons and ._response_events, where they live)

REDACTED_THINKING_TEXT = "[Reasoning redacted]"
"""The ``thinking`` text of a redacted reasoning block (as pi-sdk shows Anthropic's)."""

_NO_INDEX = object()
"""No text block is open (a ``contentBlockIndex`` never equals it)."""


def _dict(value: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


class Decoder:
    """ConverseStream frames -> builder calls, for one reply.

    A :class:`~pi_sdk.provider.ByteDecoder`: it owns its framing, the core's read loop hands it
    the body's raw chunks (:meth:`feed_bytes`), cut into frames by :class:`._frames.FrameReader`.

    * ``text`` deltas -> a text block opened by its first non-empty delta;
    * ``reasoningContent`` deltas -> a thinking block (``text``), whose ``thinking_signature``
      collects the ``signature`` pieces; ``redactedContent`` -> a thinking block reading
      ``[Reasoning redacted]`` with ``redacted=True`` and the opaque data as signature;
    * ``citation`` deltas -> citations on the block's text (:mod:`._citations`);
    * ``contentBlockStart.toolUse`` -> tool call, its ``delta.toolUse.input`` fragments stream
      the arguments; a ``toolUse`` of ``"type": "server_tool_use"`` (Nova's code interpreter)
      and a ``toolResult`` in the reply are a whole ``ServerToolCall`` / ``ServerToolResult``
      at their ``contentBlockStop`` (:mod:`._server_tools`); every other started block
      (``image``, ...) stays out of ``content`` with its deltas;
    * ``metadata.usage`` -> usage (``inputTokens`` already excludes cache reads and writes);
      it is the last event: :attr:`terminal`;
    * exception frames, ``guardrail_intervened``/``content_filtered``/unknown stop reasons,
      deltas for a block that is not open, and a stream that ends before ``metadata`` raise
      :class:`pi_sdk.provider.ProviderError`.
    """

    __slots__ = (
        "_builder",
        "_frames",
        "_number",
        "_pending",
        "_server",
        "_stop",
        "_text_index",
        "terminal",
    )

    def __init__(self, builder: MessageBuilder) -> None:
        self._builder = builder
        self._frames = FrameReader()
        self._stop: str | None = None
        self._number = 0
        self._server: dict[Any, list[Any]] = {}
        """Server tool blocks being read: their start, then their input fragments."""
        self._pending: list[Citation] = []
        """Citations that came before any text block (none is open to take them)."""
        self._text_index: Any = _NO_INDEX
        """The ``contentBlockIndex`` of the open text block (``_NO_INDEX``: none)."""
        self.terminal = False
        """True once ``metadata`` (the last event of a ConverseStream reply) was fed."""

    def feed_bytes(self, chunk: bytes) -> Events:
        """Consume a chunk of an event-stream body: the events of the frames it completes.

        Frames after the terminal ``metadata`` event are not read. The events of
        :meth:`iter_bytes`, all at once (the core reads that one).
        """
        return list(self.iter_bytes(chunk))

    def iter_bytes(self, chunk: bytes) -> Iterator[AssistantMessageEvent]:
        """:meth:`feed_bytes`, lazily: a frame is decoded once the events before it were taken.

        The core reads this, so a long first chunk does not hold ``start`` back.
        """
        for kind, name, payload, headers in self._frames.feed(chunk):
            yield from self.feed_frame(kind, name, payload, headers)
            if self.terminal:
                return

    def feed_frame(self, kind: str, name: str, payload: bytes, headers: dict[str, Any]) -> Events:
        """Consume one event-stream frame (:data:`._frames.Frame`); return its events.

        Hot path: a ``contentBlockDelta`` with ``text`` for the open text block goes straight
        to the builder.
        """
        self._number += 1
        if kind != "event":
            if kind == "exception":
                raise exception_error(name, payload)
            message = headers.get(":error-message") or payload.decode("utf-8", errors="replace")
            raise ProviderError(f"event-stream error {name or kind}: {message}")
        try:  # pydantic-core from the bytes; what it refuses, json.loads decides and words
            data: Any = parse_event(payload)
        except ValueError as exc:
            text = payload.decode("utf-8", errors="replace")
            raise malformed_event_error(text, event=name, number=self._number, error=exc) from None
        if data.__class__ is not dict:
            raise ProviderError(f"malformed stream event {name!r}: payload is not an object")
        if name == "contentBlockDelta":
            delta: Any = data.get("delta")
            if delta.__class__ is dict:
                piece: Any = delta.get("text")
                if piece.__class__ is str and data.get("contentBlockIndex") == self._text_index:
                    return self._builder.append_text(self._text_index, piece) if piece else []
        return self.feed(name, data)

    def feed(self, kind: str, data: dict[str, Any]) -> Events:
        """Consume one ConverseStream event (its type and JSON payload)."""
        b = self._builder
        if kind == "contentBlockDelta":
            index = data.get("contentBlockIndex")
            delta = data.get("delta")
            if not isinstance(delta, dict):
                raise ProviderError("malformed contentBlockDelta event: 'delta' is not an object")
            delta = cast("dict[str, Any]", delta)
            text = delta.get("text")
            if text is not None:
                if not text:
                    return []
                events = b.text(index, text)
                if b.kind(index) == "text":
                    self._text_index = index
                return events
            tool = delta.get("toolUse")
            if tool is not None:
                if index in self._server:  # a server tool's input, gathered whole
                    self._server[index].append(str(_dict(tool).get("input") or ""))
                    return []
                if b.is_skipped(index):
                    return []
                self._require_open(index, kind)
                return b.append_arguments(index, _dict(tool).get("input") or "")
            reasoning = delta.get("reasoningContent")
            if reasoning is not None:
                return self._reasoning(index, _dict(reasoning))
            pieces = delta.get("toolResult")
            if index in self._server and isinstance(pieces, list):
                self._server[index].extend(cast("list[Any]", pieces))  # a server result's content
                return []
            cited = delta.get("citation")
            if isinstance(cited, dict):
                self._cite(index, citation(cast("dict[str, Any]", cited)))
                return []
            if not b.is_open(index) and not b.is_skipped(index):
                b.skip(index)  # citations, images, ...: not pi content
            return []
        if kind == "contentBlockStart":
            return self._start(data.get("contentBlockIndex"), _dict(data.get("start")))
        if kind == "contentBlockStop":
            index = data.get("contentBlockIndex")
            if index == self._text_index:
                self._text_index = _NO_INDEX
            if index in self._server:
                return b.server_block(server_block(self._server.pop(index)))
            return b.close(index)
        if kind == "messageStop":
            reason = data.get("stopReason")
            self._stop = reason if isinstance(reason, str) else None
            b.set_raw_stop_reason(reason)  # pi-ai 1.6 rawStopReason
        elif kind == "metadata":
            usage = _dict(data.get("usage"))
            apply_usage(b, usage)
            self.terminal = True
        return []  # messageStart and event types added later carry no content

    def _cite(self, index: Any, cited: Citation) -> None:
        """Put ``cited`` on the open text block of ``index``.

        Without one (a citation before the text), keep it for the reply's last text block
        (:meth:`finish`).
        """
        block = self._builder.block(index)
        if isinstance(block, TextContent):
            block.citations = [*(block.citations or ()), cited]
        else:
            self._pending.append(cited)

    def _require_open(self, index: Any, kind: str) -> None:
        if not self._builder.is_open(index):
            raise ProviderError(
                f"malformed stream: {kind} for block {index!r}, which is not open (no"
                " contentBlockStart before it, or already stopped)"
            )

    def _reasoning(self, index: Any, reasoning: dict[str, Any]) -> Events:
        b = self._builder
        redacted = reasoning.get("redactedContent")
        if redacted is not None:
            if b.is_open(index):
                b.append_signature(index, str(redacted))
                return []
            return b.open_thinking(
                index, REDACTED_THINKING_TEXT, signature=str(redacted), redacted=True
            )
        events = b.thinking(index, reasoning.get("text") or "")
        signature = reasoning.get("signature")
        if signature:
            b.append_signature(index, str(signature))
        return events

    def _start(self, index: Any, start: dict[str, Any]) -> Events:
        b = self._builder
        if b.is_open(index):
            raise ProviderError(
                f"malformed stream: contentBlockStart for block {index!r}, which is already open"
            )
        tool = start.get("toolUse")
        if isinstance(tool, dict) and _dict(tool).get("type") != "server_tool_use":
            tool = _dict(tool)
            name = tool.get("name")
            return b.open_tool_call(
                index, id=str(tool.get("toolUseId") or ""), name=str(name or "")
            )
        if isinstance(tool, dict) or isinstance(start.get("toolResult"), dict):
            self._server[index] = [start]  # Nova's server tool call or result (at its stop)
        b.skip(index)  # server-side tool use, toolResult, image, ...: not pi content
        return []

    def feed_document(self, document: Any) -> Events:
        """Consume a whole Converse response, its JSON decoded (:func:`response_as_events`).

        Raises:
            ProviderError: not a Converse response (no ``output.message``); the error shows an
                excerpt.
        """
        response = _dict(document)
        if not isinstance(_dict(response.get("output")).get("message"), dict):
            text = json.dumps(document, ensure_ascii=False)
            raise ProviderError(f"not a Converse response: {excerpt(text)!r}")
        events: Events = []
        for kind, data in response_as_events(response):
            events += self.feed(kind, data)
        return events

    def finish(self, *, saw_done: bool = False) -> Events:
        """End the reply: ``done`` with the mapped stop reason, or raise.

        ``saw_done`` (an SSE ``[DONE]`` marker) never applies to an event stream.
        """
        del saw_done
        if self._pending:  # citations no open text block took: the last text block's
            texts = [c for c in self._builder.message.content if isinstance(c, TextContent)]
            if texts:
                texts[-1].citations = [*(texts[-1].citations or ()), *self._pending]
        if not self.terminal and self._frames.pending:
            raise ProviderError(
                "the response stream was cut in the middle of event-stream frame"
                f" #{self._frames.frames + 1}: the reply is incomplete (connection closed early?)",
                incomplete=True,
            )
        if not self.terminal:
            raise ProviderError(
                "the response stream ended before its metadata event: the reply is incomplete"
                " (connection closed early?)",
                incomplete=True,
            )
        if self._stop is None:
            return self._builder.done("stop")
        mapped = map_stop_reason(self._stop)
        if mapped is None:
            raise ProviderError(stop_error_text(self._stop))
        return self._builder.done(mapped)
