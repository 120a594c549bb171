"""Anthropic Messages stream events -> :class:`~pi_sdk.provider.MessageBuilder` calls.

Anthropic's streaming guide (events and blocks may be added: tolerated); mapping as pi-mono
``providers/anthropic.ts`` (pi-spec §4.1), see :class:`Decoder`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal, cast

from pi_sdk import Context
from pi_sdk.provider import Events, MessageBuilder, ProviderError

from ._citations import cite
from ._request import REDACTED_THINKING_TEXT
from ._server_tools import is_server_block, server_block
from ._tools import from_claude_code_name
from ._usage import apply_usage

__all__ = ["Decoder", "map_stop_reason", "message_as_events"]

_STOP_REASONS: dict[str, Literal["stop", "length", "toolUse", "error"]] = {
    "end_turn": "stop",
    "pause_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "toolUse",
    "refusal": "error",
    "sensitive": "error",
}
_HOT_DELTAS: dict[Any, str] = {"text_delta": "text", "input_json_delta": "partial_json"}
"""The delta types :meth:`Decoder.feed` hands straight to the builder, and their piece field."""
_WHOLE_FIELDS: dict[Any, tuple[tuple[str, str], ...]] = {  # ``citations`` stay on the start
    "text": (("text", "text_delta"),),
    "thinking": (("thinking", "thinking_delta"), ("signature", "signature_delta")),
}
"""Per block type of a whole message: the fields streamed as deltas, and their delta types."""


def map_stop_reason(reason: str) -> Literal["stop", "length", "toolUse", "error"] | None:
    """Map an Anthropic ``stop_reason`` to ours; ``None`` for a value this module does not know.

    ``end_turn``/``pause_turn``/``stop_sequence`` -> ``stop``, ``max_tokens`` -> ``length``,
    ``tool_use`` -> ``toolUse``, ``refusal``/``sensitive`` -> ``error`` (pi-mono
    ``mapStopReason``; the caller turns ``None`` into an error, as pi-mono does).
    """
    return _STOP_REASONS.get(reason)


def _dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else ``{}`` (absent or ``null`` wire fields)."""
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def _field(data: dict[str, Any], key: str, kind: str) -> Any:
    """``data[key]``; a missing field is a malformed event, named in the error."""
    try:
        return data[key]
    except KeyError:
        raise ProviderError(f"malformed {kind} event: missing {key!r}") from None


def _object(data: dict[str, Any], key: str, kind: str) -> dict[str, Any]:
    value = _field(data, key, kind)
    if not isinstance(value, dict):
        raise ProviderError(f"malformed {kind} event: {key!r} is not an object")
    return cast("dict[str, Any]", value)


def _delta_text(delta: dict[str, Any], key: str) -> str:
    """A string field of a ``content_block_delta``'s ``delta``."""
    value = _field(delta, key, "content_block_delta")
    if not isinstance(value, str):
        raise ProviderError(f"malformed content_block_delta event: delta {key!r} is not a string")
    return value


def error_event_text(data: dict[str, Any]) -> str:
    """The text of an ``{"type": "error", "error": {"type", "message"}}`` event or body."""
    error = _dict(data.get("error"))
    message = error.get("message")
    if not message:
        return f"stream error event: {json.dumps(data, ensure_ascii=False)[:500]}"
    return f"{error.get('type') or 'error'}: {message}"


def _stop_error_text(reason: str, details: Any) -> str:
    """The error text for a stop reason that ends in ``error`` (refusal, unknown, ...)."""
    if reason == "refusal":
        text = "The model refused to respond (stop_reason: refusal)"
    elif reason == "sensitive":
        text = "The response was stopped by Anthropic's safety system (stop_reason: sensitive)"
    else:
        text = f"Unhandled stop reason: {reason}"
    fields = _dict(details)
    extra = "; ".join(str(fields[k]) for k in ("category", "explanation") if fields.get(k))
    return f"{text}: {extra}" if extra else text


def message_as_events(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Return the stream events a whole Messages API ``message`` object would have come as.

    For a server or proxy that ignored ``"stream": true`` and answered with one JSON document:
    the answer then goes through the same mapping as a stream. ``message_start`` (usage), per
    content block ``content_block_start`` / ``_delta`` / ``_stop`` (a ``text`` block's text as
    one ``text_delta``; ``thinking`` as one ``thinking_delta`` and its ``signature`` as one
    ``signature_delta``; ``tool_use`` ``input`` as one ``input_json_delta``; other blocks as
    they are, with no delta), then ``message_delta`` (``stop_reason``, ``stop_details``,
    usage) and ``message_stop``. Shapes: the Messages API reference and the streaming guide.
    """
    yield {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}}
    raw_content = message.get("content")
    blocks = cast("list[Any]", raw_content) if isinstance(raw_content, list) else []
    for index, raw in enumerate(blocks):
        block = _dict(raw)
        kind = block.get("type")
        fields = _WHOLE_FIELDS.get(kind, ())
        deltas = [
            {"type": delta_type, field: block[field]}
            for field, delta_type in fields
            if isinstance(block.get(field), str) and block[field]
        ]
        start = {**block, **{field: "" for field, _ in fields}}
        if kind == "tool_use":
            arguments = block.get("input")
            if isinstance(arguments, dict) and arguments:
                piece = json.dumps(arguments, ensure_ascii=False)
                deltas.append({"type": "input_json_delta", "partial_json": piece})
            start["input"] = {}
        yield {"type": "content_block_start", "index": index, "content_block": start}
        for delta in deltas:
            yield {"type": "content_block_delta", "index": index, "delta": delta}
        yield {"type": "content_block_stop", "index": index}
    delta = {"stop_reason": message.get("stop_reason"), "stop_details": message.get("stop_details")}
    yield {"type": "message_delta", "delta": delta, "usage": _dict(message.get("usage"))}
    yield {"type": "message_stop"}


class Decoder:
    """Messages API events -> builder calls, for one reply (:class:`pi_sdk.provider.WireDecoder`).

    * ``text`` -> text block; ``thinking`` -> thinking block whose ``thinking_signature``
      collects the ``signature_delta`` events (which emit no event);
    * ``redacted_thinking`` -> a thinking block reading ``[Reasoning redacted]`` (also its one
      delta), ``redacted=True``, the opaque ``data`` as ``thinking_signature``;
    * ``tool_use`` -> tool call (OAuth mode: Claude Code tool names mapped back); the
      ``input_json_delta`` fragments stream the arguments; with no fragment at all, the
      block-start ``input`` is kept;
    * server-tool blocks -> a whole ``ServerToolCall`` / ``ServerToolResult`` at their
      ``content_block_stop`` (:mod:`._server_tools`); other unknown blocks, events and deltas
      are ignored; ``citations`` -> ``TextContent.citations`` (:mod:`._citations`);
    * usage from ``message_start`` (missing fields 0), then the integer fields of
      ``message_delta`` (a proxy that omits ``input_tokens`` there keeps the first value);
    * ``refusal``, ``sensitive`` and unknown stop reasons, an ``error`` event, a block event
      for a block that is not open, and a body that ends before ``message_stop`` (and before a
      ``message_delta`` with the stop reason and usage: :attr:`settled`) raise
      :class:`pi_sdk.provider.ProviderError`; a ``stop`` reply with tool calls is ``toolUse``.
    """

    __slots__ = (
        "_builder",
        "_context",
        "_details",
        "_oauth",
        "_server",
        "_stop",
        "settled",
        "terminal",
    )

    def __init__(self, builder: MessageBuilder, context: Context, *, oauth: bool) -> None:
        self._builder = builder
        self._context = context
        self._oauth = oauth
        self._stop: str | None = None
        self._details: Any = None
        self._server: dict[Any, tuple[dict[str, Any], list[str]]] = {}
        """Open server-tool blocks by index: the start block and its input fragments."""
        self.terminal = False
        """True once ``message_stop`` was fed."""
        self.settled = False
        """True once ``message_delta`` brought the stop reason and the usage: the reply is
        complete even if ``message_stop`` never arrives (issue 12)."""

    def feed(self, data: dict[str, Any]) -> Events:
        """Consume one stream event; return its events.

        Hot path: a ``text_delta`` or ``input_json_delta`` with a string piece goes straight
        to the builder; anything the builder refuses is worded by the general rules.
        """
        kind = data.get("type")
        if kind == "content_block_delta":
            delta: Any = data.get("delta")
            if delta.__class__ is dict and "index" in data:
                field = _HOT_DELTAS.get(delta.get("type"))
                if field is not None:
                    piece = delta.get(field)
                    if piece.__class__ is str:
                        b = self._builder
                        if field == "text":
                            append = b.append_text
                        elif self._server and data["index"] in self._server:
                            self._server[data["index"]][1].append(piece)  # a server call's input
                            return []
                        else:
                            append = b.append_arguments
                        try:
                            return append(data["index"], piece)
                        except ProviderError:
                            pass  # the general rules below name the fault
        return self._feed(kind, data)

    def _feed(self, kind: Any, data: dict[str, Any]) -> Events:
        """:meth:`feed`'s general rules."""
        b = self._builder
        if kind == "content_block_delta":
            index = _field(data, "index", kind)
            try:
                delta = _object(data, "delta", kind)
                delta_type = delta.get("type")
                if delta_type == "text_delta":
                    return b.append_text(index, _delta_text(delta, "text"))
                if delta_type == "input_json_delta":
                    return b.append_arguments(index, _delta_text(delta, "partial_json"))
                if delta_type == "thinking_delta":
                    return b.append_thinking(index, _delta_text(delta, "thinking"))
                if delta_type == "signature_delta" and b.kind(index) == "thinking":
                    b.append_signature(index, _delta_text(delta, "signature"))
                if delta_type == "citations_delta":
                    cite(b, index, [delta.get("citation")])
            except ProviderError:
                if not b.is_open(index) and not b.is_skipped(index):
                    return self._orphan(kind, index)  # the block's state is the first fault
                raise
            if not b.is_open(index) and not b.is_skipped(index):
                return self._orphan(kind, index)
            return []  # other delta types carry no pi content
        if kind == "content_block_start":
            index = _field(data, "index", kind)
            if b.is_open(index):
                raise ProviderError(
                    f"malformed stream: content_block_start for block {index!r}, which is"
                    " already open"
                )
            return self._start(index, _object(data, "content_block", kind))
        if kind == "content_block_stop":
            index = _field(data, "index", kind)
            if index in self._server:
                return b.server_block(server_block(*self._server.pop(index)))
            if not b.is_open(index) and not b.is_skipped(index):
                return self._orphan(kind, index)
            return b.close(index)
        if kind == "message_start":
            message = _dict(data.get("message"))
            b.set_response(id=message.get("id"), model=message.get("model"))
            self._usage(_dict(message.get("usage")), default=0)
        elif kind == "message_delta":
            delta = _dict(data.get("delta"))
            if isinstance(delta.get("stop_reason"), str):
                self._stop = delta["stop_reason"]
                self._details = delta.get("stop_details")
                b.set_raw_stop_reason(self._stop)
            if usage := _dict(data.get("usage")):
                self._usage(usage, default=None)
                self.settled = self._stop is not None
        elif kind == "message_stop":
            self.terminal = True
        elif kind == "error":
            raise ProviderError(error_event_text(data))
        return []  # ping and event types added later are ignored (Anthropic's policy)

    def _start(self, index: Any, block: dict[str, Any]) -> Events:
        b = self._builder
        kind = block.get("type")
        if kind == "text":
            events = b.open_text(index, block.get("text") or "")
            cite(b, index, block.get("citations"))
            return events
        if kind == "thinking":
            signature = block.get("signature") or None
            return b.open_thinking(index, block.get("thinking") or "", signature=signature)
        if kind == "redacted_thinking":
            signature = block.get("data") or ""
            return b.open_thinking(
                index, REDACTED_THINKING_TEXT, signature=signature, redacted=True
            )
        if kind == "tool_use":
            name: str = block.get("name") or ""
            if self._oauth:
                name = from_claude_code_name(name, self._context)
            initial = _dict(block.get("input"))
            return b.open_tool_call(index, id=block.get("id") or "", name=name, initial=initial)
        if is_server_block(kind):
            self._server[index] = (block, [])  # a whole block at its content_block_stop
        b.skip(index)  # unknown: not pi content, nor are its deltas
        return []

    def _usage(self, usage: dict[str, Any], *, default: int | None) -> None:
        apply_usage(self._builder, usage, default=default)  # see ._usage

    @staticmethod
    def _orphan(kind: str, index: Any) -> Events:
        raise ProviderError(
            f"malformed stream: {kind} for block {index!r}, which is not open (no"
            " content_block_start before it, or already stopped)"
        )

    def feed_document(self, document: Any) -> Events:
        """Consume a whole JSON answer (:func:`message_as_events`).

        Raises:
            ProviderError: an ``{"type": "error"}`` object, or not a ``message`` object.
        """
        message = _dict(document)
        if message.get("type") == "error":
            raise ProviderError(error_event_text(message))
        if message.get("type") != "message" or not isinstance(message.get("content"), list):
            excerpt = json.dumps(document, ensure_ascii=False)[:200]
            raise ProviderError(f"unexpected JSON response (not a message): {excerpt!r}")
        events: Events = []
        for data in message_as_events(message):
            events += self.feed(data)
        return events

    def finish(self, *, saw_done: bool) -> Events:
        """End the reply: ``done`` with the mapped stop reason, or raise."""
        if not self.terminal and not self.settled:
            raise ProviderError("stream ended before message_stop (connection closed early?)")
        stop = "stop"
        if self._stop is not None:
            self._builder.message.raw_stop_reason = self._stop  # pi-ai 1.6 rawStopReason
            mapped = map_stop_reason(self._stop)
            if mapped is None or mapped == "error":
                raise ProviderError(_stop_error_text(self._stop, self._details))
            stop = mapped
        return self._builder.done(stop)
