"""MessageBuilder: the one place a provider turns "vendor block K got this" into pi events.

A wire decoder reads the vendor's stream and tells the builder what happened, naming each block
by the VENDOR's key for it: Anthropic's content-block ``index``, a Responses ``output_index``, a
Chat Completions tool-call ``index`` (or a fixed key such as ``"text"`` for the one text
block), a Gemini part position. The builder owns the partial :class:`~pi_sdk.AssistantMessage`
every event carries, appends blocks to ``content`` and assigns their ``content_index``, keeps
the per-key state (open text, thinking and tool-call blocks; keys whose block is not content),
feeds streamed tool arguments to an
:class:`~pi_sdk._stream.partial_json.IncrementalJsonParser` (linear cost; the block's ``arguments``
is the parser's live dict), sets signatures, usage and cost
(:func:`~pi_sdk._wire.cost.calculate_cost`), the stop reason, and produces the terminal event.

Every method that can cause events returns them as a list, in order (possibly empty); the
decoder returns those lists to the core's read loop (:mod:`pi_sdk._stream.read_loop`). No
provider constructs an event class itself. The event protocol is pi-mono's (pi-spec §2):
``start``, per block ``*_start``/``*_delta``.../``*_end``, one ``done`` or ``error``.

Errors: a delta or end for a key that is neither open nor skipped, a delta of the wrong kind
for its block, and a start for a key that is still open raise
:class:`~pi_sdk.provider.ProviderError`
("malformed stream: ..."): the reply would otherwise silently lose or misplace content.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import pi_sdk.events as ev
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk._stream.provider_errors import ProviderError
from pi_sdk._wire.cost import calculate_cost
from pi_sdk.types import (
    AssistantMessage,
    ImageContent,
    Model,
    ServerToolCall,
    ServerToolResult,
    TextContent,
    ThinkingContent,
    ToolCall,
)

if TYPE_CHECKING:
    from pi_sdk._stream.partial_json import IncrementalJsonParser

__all__ = ["BlockKey", "Events", "MessageBuilder"]

BlockKey: TypeAlias = Hashable
"""The vendor's name for a block: any hashable value (an int index, an item id, a tuple)."""

Events: TypeAlias = list[ev.AssistantMessageEvent]
"""What a builder method returns: the events it caused, in order."""

_Kind: TypeAlias = Literal["text", "thinking", "toolcall"]


class _Open:
    """One open block: its kind, the block, where it is in ``content``, its argument parser."""

    __slots__ = ("block", "fallback", "index", "kind", "parser")

    def __init__(self, kind: _Kind, block: Any, index: int) -> None:
        self.kind: _Kind = kind
        self.block: Any = block
        self.index = index
        self.parser: IncrementalJsonParser | None = None
        self.fallback: dict[str, Any] | None = None


class MessageBuilder:
    """Builds one assistant message from a vendor stream and returns the pi events for it.

    Args:
        model: The model called: stamps the message (``api``, ``provider``, ``model``) and
            prices the usage (``model.cost``, USD per million tokens).
        base_url: The URL actually called, when it is not ``model.base_url`` (a caller's
            client): it binds the reply's signatures (:func:`pi_sdk.provider.signature_origin`).

    Attributes:
        message: The partial message every event carries (the same object throughout).
        finished: True once :meth:`done` or :meth:`error` produced the terminal event.
    """

    __slots__ = (
        "_blank_call",
        "_ignored",
        "_open",
        "_priced",
        "_tool_calls",
        "finished",
        "message",
        "model",
    )

    def __init__(self, model: Model, *, base_url: str | None = None) -> None:
        self.model = model
        self.message: AssistantMessage = new_assistant_message(model, base_url=base_url)
        self.finished = False
        self._open: dict[BlockKey, _Open] = {}
        self._ignored: set[BlockKey] = set()
        self._priced = True
        self._tool_calls = 0
        self._blank_call: ToolCall | None = None

    # -- state ------------------------------------------------------------------------------

    def start(self) -> ev.StartEvent:
        """Return the ``start`` event (yield it once the response body has begun)."""
        return ev.StartEvent(partial=self.message)

    def is_open(self, key: BlockKey) -> bool:
        """True while a block is open under ``key``."""
        return key in self._open

    def kind(self, key: BlockKey) -> _Kind | None:
        """``"text"``, ``"thinking"`` or ``"toolcall"`` for the block open under ``key``."""
        slot = self._open.get(key)
        return slot.kind if slot is not None else None

    def block(self, key: BlockKey) -> TextContent | ThinkingContent | ToolCall | None:
        """The block open under ``key`` (e.g. to fill a tool call's id that came late)."""
        slot = self._open.get(key)
        return slot.block if slot is not None else None

    @property
    def open_keys(self) -> list[BlockKey]:
        """The keys of the open blocks, in the order they were opened."""
        return list(self._open)

    @property
    def has_tool_calls(self) -> bool:
        """True once any tool call was opened in this message."""
        return self._tool_calls > 0

    def skip(self, key: BlockKey) -> None:
        """Mark ``key`` as a block that is not content (server tools, unknown block types).

        Deltas and ends for it are then ignored (they return no events) instead of raising.
        """
        self._ignored.add(key)

    def is_skipped(self, key: BlockKey) -> bool:
        """True when ``key`` was passed to :meth:`skip`."""
        return key in self._ignored

    # -- text and thinking ------------------------------------------------------------------

    def open_text(self, key: BlockKey, text: str = "", *, signature: str | None = None) -> Events:
        """Open a text block under ``key``: ``text_start``, then a delta for ``text`` if any."""
        block = TextContent(text_signature=signature)
        events: Events = [
            ev.TextStartEvent(content_index=self._add(key, "text", block), partial=self.message)
        ]
        if text:
            events += self.append_text(key, text)
        return events

    def append_text(self, key: BlockKey, piece: str) -> Events:
        """Append ``piece`` to the text block under ``key``: one ``text_delta`` (none if empty).

        Raises:
            ProviderError: no block is open under ``key`` (and it is not skipped), or it is not
                a text block.
        """
        slot = self._open.get(key)  # the hot path: one lookup, no call
        if slot is None or slot.kind != "text" or not piece:
            return self._no_delta(key, "text", slot)
        slot.block.append(piece)
        return [ev.TextDeltaEvent(content_index=slot.index, delta=piece, partial=self.message)]

    def text(self, key: BlockKey, piece: str) -> Events:
        """Append ``piece`` to the text block under ``key``, opening it first if needed."""
        slot = self._open.get(key)  # the hot path of most decoders: append_text, inline
        if slot is None:
            return self.open_text(key, piece)
        if slot.kind != "text" or not piece:
            return self._no_delta(key, "text", slot)
        slot.block.append(piece)
        return [ev.TextDeltaEvent(content_index=slot.index, delta=piece, partial=self.message)]

    def end_text(
        self, key: BlockKey, *, text: str | None = None, signature: str | None = None
    ) -> Events:
        """Close the text block under ``key``: ``text_end``.

        Args:
            key: The block's key.
            text: The vendor's final text, if it sends one: when it extends what was streamed
                the missing tail comes first as a delta; a text that does not extend it
                replaces it (no delta).
            signature: Sets ``text_signature``.
        """
        return self._end_prose(key, "text", text, signature)

    def open_thinking(
        self,
        key: BlockKey,
        text: str = "",
        *,
        signature: str | None = None,
        redacted: bool | None = None,
    ) -> Events:
        """Open a thinking block: ``thinking_start``, then a delta for ``text`` if any.

        Args:
            key: The vendor's key for the block.
            text: Thinking the block starts with (a redacted block's placeholder text).
            signature: ``thinking_signature`` to start with.
            redacted: ``True`` for redacted reasoning (Anthropic ``redacted_thinking``).
        """
        block = ThinkingContent(thinking_signature=signature, redacted=redacted)
        index = self._add(key, "thinking", block)
        events: Events = [ev.ThinkingStartEvent(content_index=index, partial=self.message)]
        if text:
            events += self.append_thinking(key, text)
        return events

    def append_thinking(self, key: BlockKey, piece: str) -> Events:
        """Append ``piece`` to the thinking block: one ``thinking_delta`` (none if empty).

        Raises:
            ProviderError: as :meth:`append_text`.
        """
        slot = self._open.get(key)  # the hot path: one lookup, no call
        if slot is None or slot.kind != "thinking" or not piece:
            return self._no_delta(key, "thinking", slot)
        slot.block.append(piece)
        return [ev.ThinkingDeltaEvent(content_index=slot.index, delta=piece, partial=self.message)]

    def thinking(self, key: BlockKey, piece: str, *, signature: str | None = None) -> Events:
        """Append ``piece`` to the thinking block under ``key``, opening it first if needed.

        ``signature`` (when opening) starts the block's ``thinking_signature``.
        """
        slot = self._open.get(key)  # append_thinking, inline
        if slot is None:
            return self.open_thinking(key, piece, signature=signature)
        if slot.kind != "thinking" or not piece:
            return self._no_delta(key, "thinking", slot)
        slot.block.append(piece)
        return [ev.ThinkingDeltaEvent(content_index=slot.index, delta=piece, partial=self.message)]

    def end_thinking(
        self, key: BlockKey, *, text: str | None = None, signature: str | None = None
    ) -> Events:
        """Close the thinking block under ``key``: ``thinking_end``.

        ``text`` and ``signature`` as for :meth:`end_text` (``signature`` sets
        ``thinking_signature``).
        """
        return self._end_prose(key, "thinking", text, signature)

    def settle_text(self, key: BlockKey, final: str) -> Events:
        """Make the open text or thinking block's text equal ``final`` (the vendor's own copy).

        A ``final`` that extends the streamed text yields the tail as one delta; any other
        different text replaces it without a delta (the vendor's copy is authoritative).
        """
        slot = self._open.get(key)
        if slot is None or slot.kind == "toolcall":
            self._miss(key, "text", slot)
            return []
        field = "text" if slot.kind == "text" else "thinking"
        current: str = getattr(slot.block, field)
        if final == current:
            return []
        if final.startswith(current):
            if slot.kind == "text":
                return self.append_text(key, final[len(current) :])
            return self.append_thinking(key, final[len(current) :])
        setattr(slot.block, field, final)
        return []

    def set_signature(self, key: BlockKey, signature: str | None) -> None:
        """Set the open block's signature (the latest one wins; Gemini ``thoughtSignature``).

        That is ``text_signature``, ``thinking_signature`` or a tool call's ``thought_signature``.
        """
        slot = self._open.get(key)
        if slot is None:
            self._miss(key, "signature", None)
            return
        setattr(slot.block, _SIGNATURE_FIELD[slot.kind], signature)

    def append_signature(self, key: BlockKey, piece: str) -> None:
        """Append ``piece`` to the open block's signature (Anthropic ``signature_delta``)."""
        slot = self._open.get(key)
        if slot is None:
            self._miss(key, "signature", None)
            return
        field = _SIGNATURE_FIELD[slot.kind]
        setattr(slot.block, field, (getattr(slot.block, field) or "") + piece)

    # -- tool calls -------------------------------------------------------------------------

    def open_tool_call(
        self,
        key: BlockKey,
        *,
        id: str,  # noqa: A002 - the wire field's name
        name: str,
        arguments: str = "",
        initial: dict[str, Any] | None = None,
        signature: str | None = None,
    ) -> Events:
        """Open a tool call whose JSON arguments stream in: ``toolcall_start`` (+ a delta).

        Args:
            key: The vendor's key for the call.
            id: The call id (may be filled in later through :meth:`block`).
            name: The tool name (likewise).
            arguments: A first fragment of the JSON arguments, if the start carries one.
            initial: Arguments to keep when no fragment ever arrives (Anthropic's block-start
                ``input``); otherwise the streamed JSON wins.
            signature: ``thought_signature``.
        """
        from pi_sdk._stream.partial_json import IncrementalJsonParser

        parser = IncrementalJsonParser()
        call = ToolCall(id=id, name=name, thought_signature=signature)
        call.arguments = parser.value  # the parser's live dict (validation would copy it)
        index = self._add(key, "toolcall", call)
        slot = self._open[key]
        slot.parser = parser
        slot.fallback = initial or None
        self._tool_calls += 1
        events: Events = [ev.ToolCallStartEvent(content_index=index, partial=self.message)]
        if arguments:
            events += self.append_arguments(key, arguments)
        return events

    def append_arguments(self, key: BlockKey, fragment: str) -> Events:
        """Feed a raw JSON fragment of the call's arguments: one ``toolcall_delta``.

        The block's ``arguments`` (the parser's live dict) shows the best partial parse; each
        fragment costs time proportional to its length. An empty fragment causes no event.

        Raises:
            ProviderError: as :meth:`append_text`.
        """
        slot = self._open.get(key)  # the hot path: one lookup, no call
        if slot is None or slot.kind != "toolcall" or not fragment:
            return self._no_delta(key, "toolcall", slot)
        slot.parser.feed(fragment)  # pyright: ignore[reportOptionalMemberAccess]
        return [
            ev.ToolCallDeltaEvent(content_index=slot.index, delta=fragment, partial=self.message)
        ]

    def settle_arguments(self, key: BlockKey, final: str) -> Events:
        """Make the call's arguments equal the vendor's final JSON text ``final``.

        A ``final`` that extends what streamed is fed as one more delta; a different one
        replaces the arguments (a fresh parse, no delta).
        """
        slot = self._find(key, "toolcall")
        if slot is None:
            return []
        parser = slot.parser
        assert parser is not None
        raw = parser.raw
        if final == raw:
            return []
        if final.startswith(raw):
            return self.append_arguments(key, final[len(raw) :])
        from pi_sdk._stream.partial_json import IncrementalJsonParser

        fresh = IncrementalJsonParser()
        fresh.feed(final)
        slot.parser = fresh
        slot.block.arguments = fresh.value
        return []

    def end_tool_call(self, key: BlockKey, *, arguments: str | None = None) -> Events:
        """Close the tool call under ``key``: ``toolcall_end`` with its final arguments.

        The arguments become the full parse of the streamed JSON (``{}`` for an empty text, or
        the ``initial`` arguments given at open). A text that is not one whole JSON object
        keeps the best partial parse in ``arguments`` and its raw text in the call's
        ``invalid_arguments`` (the agent never runs such a call). ``arguments``: the vendor's
        final JSON text, settled first (:meth:`settle_arguments`).
        """
        slot = self._find(key, "toolcall")
        if slot is None:
            return []
        events = self.settle_arguments(key, arguments) if arguments is not None else []
        self._finish_arguments(slot)
        del self._open[key]
        events.append(
            ev.ToolCallEndEvent(
                content_index=slot.index, tool_call=slot.block, partial=self.message
            )
        )
        return events

    def tool_call(
        self,
        *,
        id: str,  # noqa: A002 - the wire field's name
        name: str,
        arguments: dict[str, Any],
        signature: str | None = None,
        invalid_arguments: str | None = None,
    ) -> Events:
        """Add a tool call that arrived whole (Gemini ``functionCall``): start, delta, end.

        The one delta is the arguments' JSON (``ensure_ascii=False``); ``arguments`` is kept as
        given. ``invalid_arguments``: the vendor's argument value as text when it was not an
        object (the call's ``invalid_arguments``; ``arguments`` should then be ``{}``). No key:
        the call is never open afterwards.
        """
        call = ToolCall(
            id=id,
            name=name,
            arguments=arguments,
            thought_signature=signature,
            invalid_arguments=invalid_arguments,
        )
        content = self.message.content
        index = len(content)
        content.append(call)
        self._tool_calls += 1
        out = self.message
        return [
            ev.ToolCallStartEvent(content_index=index, partial=out),
            ev.ToolCallDeltaEvent(
                content_index=index, delta=json.dumps(arguments, ensure_ascii=False), partial=out
            ),
            ev.ToolCallEndEvent(content_index=index, tool_call=call, partial=out),
        ]

    # -- server-side tools -------------------------------------------------------------------

    def server_block(self, block: ServerToolCall | ServerToolResult | ImageContent) -> Events:
        """Append a whole block: a server tool's call or result, or an image the model made.

        Returns one ``servertool_call``, ``servertool_result`` or ``image`` event. Decoders
        gather a streamed block (skipping its key) and hand it over complete.
        """
        content, partial = self.message.content, self.message
        index = len(content)
        content.append(block)
        if isinstance(block, ServerToolCall):
            return [
                ev.ServerToolCallEvent(content_index=index, server_tool_call=block, partial=partial)
            ]
        if isinstance(block, ImageContent):
            return [ev.ImageEvent(content_index=index, image=block, partial=partial)]
        return [
            ev.ServerToolResultEvent(content_index=index, server_tool_result=block, partial=partial)
        ]

    # -- closing ----------------------------------------------------------------------------

    def close(self, key: BlockKey) -> Events:
        """Close whatever block is open under ``key`` (no events when none is)."""
        slot = self._open.get(key)
        if slot is None:
            return []
        if slot.kind == "text":
            return self.end_text(key)
        if slot.kind == "thinking":
            return self.end_thinking(key)
        return self.end_tool_call(key)

    def close_all(self) -> Events:
        """Close every open block, in ``content_index`` order."""
        events: Events = []
        for key in sorted(self._open, key=lambda k: self._open[k].index):
            events += self.close(key)
        return events

    # -- usage ------------------------------------------------------------------------------

    def set_usage(
        self,
        *,
        input: int | None = None,  # noqa: A002 - the usage field's name
        output: int | None = None,
        cache_read: int | None = None,
        cache_write: int | None = None,
        reasoning: int | None = None,
        cache_write_1h: int | None = None,
        price: bool = True,
    ) -> None:
        """Set the token counts given (``None`` keeps a field), the total, and the cost.

        ``reasoning`` (the reasoning tokens inside ``output``) and ``cache_write_1h`` (the
        one-hour writes inside ``cache_write``, priced at their own rate) are pi-ai 1.6's
        breakdowns, set only where the vendor reports them.

        Fields are written only when they change (a pydantic field write costs about a
        microsecond). ``price=False`` defers the cost to :meth:`price_usage`, which
        :meth:`done` and :meth:`error` call (for vendors whose usage is cumulative and
        repeated on every chunk, e.g. Gemini).
        """
        usage = self.message.usage
        if input is not None and usage.input != input:
            usage.input = input
        if output is not None and usage.output != output:
            usage.output = output
        if cache_read is not None and usage.cache_read != cache_read:
            usage.cache_read = cache_read
        if cache_write is not None and usage.cache_write != cache_write:
            usage.cache_write = cache_write
        if reasoning is not None and usage.reasoning != reasoning:
            usage.reasoning = reasoning
        if cache_write_1h is not None and usage.cache_write_1h != cache_write_1h:
            usage.cache_write_1h = cache_write_1h
        total = usage.input + usage.output + usage.cache_read + usage.cache_write
        if usage.total_tokens != total:
            usage.total_tokens = total
        self._priced = False
        if price:
            self.price_usage()

    def price_usage(self, factor: float = 1.0) -> None:
        """Set ``usage.cost`` from the token counts and ``model.cost`` (once per change).

        ``factor`` multiplies every part of the cost (a service tier's price, e.g. OpenAI
        ``flex`` 0.5); pass it on every call that should apply it.
        """
        if self._priced and factor == 1.0:
            return
        self._priced = True
        usage = self.message.usage
        calculate_cost(self.model, usage)
        if factor != 1.0:
            cost = usage.cost
            cost.input *= factor
            cost.output *= factor
            cost.cache_read *= factor
            cost.cache_write *= factor
            cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write

    def set_response(self, *, id: object = None, model: object = None) -> None:  # noqa: A002
        """Record the vendor's id of the reply and the model id it reported.

        ``message.response_id`` / ``message.response_model`` (pi-ai 0.73 ``responseId`` /
        ``responseModel``): the first non-empty string of each is kept, later ones and
        non-strings are ignored (pi-ai: ``output.responseId ||= chunk.id``).
        """
        message = self.message
        if message.response_id is None and isinstance(id, str) and id:
            message.response_id = id
        if message.response_model is None and isinstance(model, str) and model:
            message.response_model = model

    def set_raw_stop_reason(self, reason: object) -> None:
        """Record the vendor's own stop reason, unmapped (pi-ai 1.6 ``rawStopReason``).

        A non-empty string is kept (the last one given wins, as pi-ai overwrites it); anything
        else is ignored.
        """
        if isinstance(reason, str) and reason and self.message.raw_stop_reason != reason:
            self.message.raw_stop_reason = reason

    # -- the end ----------------------------------------------------------------------------

    def done(
        self, reason: Literal["stop", "length", "toolUse"] = "stop", *, exact: bool = False
    ) -> Events:
        """End the message normally: close open blocks, then ``done``.

        A ``"stop"`` reply that has a tool call ends as ``"toolUse"`` (pi-sdk conformance rule)
        unless ``exact``. The usage is priced if it was not.
        """
        events = self.close_all()
        if reason == "length":
            self._mark_cut_call()
        self.price_usage()
        if reason == "stop" and not exact and self._tool_calls:
            reason = "toolUse"
        out = self.message
        out.stop_reason = reason
        self.finished = True
        events.append(ev.DoneEvent(reason=reason, message=out))
        return events

    def error(self, message: str, *, reason: Literal["error", "aborted"] = "error") -> Events:
        """End the message as failed with ``message``, content kept: close blocks, ``error``.

        For a failure the vendor reports as a reply (a refusal, a content filter). Failures of
        the call itself are raised as :class:`~pi_sdk.provider.ProviderError` instead; the core
        turns
        them into the terminal event.
        """
        events = self.close_all()
        self.price_usage()
        out = self.message
        out.stop_reason = reason
        out.error_message = message
        self.finished = True
        events.append(ev.ErrorEvent(reason=reason, error=out))
        return events

    # -- internals --------------------------------------------------------------------------

    def _finish_arguments(self, slot: _Open) -> None:
        """Parse a closing call's whole text; mark it ``invalid_arguments`` when it is not valid."""
        parser = slot.parser
        assert parser is not None
        parsed = parser.finish()  # value becomes the full parse, or keeps the best partial
        call: ToolCall = slot.block
        blank = not parser.raw.strip()
        if parsed is None:
            call.invalid_arguments = parser.raw
        elif blank and slot.fallback is not None:
            call.arguments = slot.fallback
        self._blank_call = call if blank and slot.fallback is None else None

    def _mark_cut_call(self) -> None:
        """At the token limit, a last block that is a call with no argument text was cut off.

        Its empty text would otherwise parse as ``{}`` and run the tool with its defaults. (A
        last call whose text is a whole JSON object was complete and stays valid.)
        """
        call = self._blank_call
        content = self.message.content
        if call is not None and content and content[-1] is call:
            call.invalid_arguments = ""

    def _end_prose(
        self, key: BlockKey, kind: _Kind, text: str | None, signature: str | None
    ) -> Events:
        """Close the text or thinking block under ``key`` (end_text, end_thinking)."""
        slot = self._find(key, kind)
        if slot is None:
            return []
        events = self.settle_text(key, text) if text is not None else []
        block = slot.block
        if signature is not None:
            setattr(block, _SIGNATURE_FIELD[kind], signature)
        del self._open[key]
        out = self.message
        if kind == "text":
            events.append(
                ev.TextEndEvent(content_index=slot.index, content=block.text, partial=out)
            )
        else:
            events.append(
                ev.ThinkingEndEvent(content_index=slot.index, content=block.thinking, partial=out)
            )
        return events

    def _add(self, key: BlockKey, kind: _Kind, block: Any) -> int:
        if key in self._open:
            raise ProviderError(f"malformed stream: block {key!r} started again while open")
        content = self.message.content
        index = len(content)
        content.append(block)
        self._open[key] = _Open(kind, block, index)
        return index

    def _no_delta(self, key: BlockKey, kind: _Kind, slot: _Open | None) -> Events:
        """No delta: an empty piece of the right block, a skipped key, or else an error."""
        if slot is None or slot.kind != kind:
            self._miss(key, kind, slot)
        return []

    def _find(self, key: BlockKey, kind: _Kind) -> _Open | None:
        """The open ``kind`` block under ``key``; ``None`` for a skipped key.

        Raises:
            ProviderError: no block is open under ``key`` and it is not skipped, or the open
                block is of another kind.
        """
        slot = self._open.get(key)
        if slot is not None and slot.kind == kind:
            return slot
        self._miss(key, kind, slot)
        return None

    def _miss(self, key: BlockKey, wanted: str, slot: _Open | None) -> None:
        """No ``wanted`` block under ``key``: nothing for a skipped key, else an error."""
        if slot is not None:
            raise ProviderError(
                f"stream protocol error: {wanted} data for block {key!r}, a {slot.kind} block"
            )
        if key in self._ignored:
            return
        raise ProviderError(
            f"malformed stream: {wanted} data for block {key!r}, which is not open"
            " (never started, or already ended)"
        )


_SIGNATURE_FIELD: dict[str, str] = {
    "text": "text_signature",
    "thinking": "thinking_signature",
    "toolcall": "thought_signature",
}
