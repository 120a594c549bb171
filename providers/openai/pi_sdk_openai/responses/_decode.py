"""``openai-responses`` stream: Responses API events (parsed JSON) → builder calls (pi-spec §4.4).

Shared by every Responses flavour (OpenAI, OpenRouter, Azure; pi-mono
``openai-responses-shared.ts``). The signatures it stores are described in
:mod:`pi_sdk_openai.responses`; the events come from the :class:`~pi_sdk.provider.MessageBuilder`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pi_sdk import TextContent
from pi_sdk.provider import Events, MessageBuilder, ProviderError

from .._shared_json import as_dict, as_list
from .._shared_request import grammar_input_json
from ._citations import citations_of
from ._server_tools import SERVER_ITEMS, server_blocks
from ._signatures import text_signature
from ._usage import SERVICE_TIER_PRICE, report_usage

__all__ = ["SERVICE_TIER_PRICE", "Decoder"]


_CONTENT_KINDS = frozenset({"reasoning", "message", "function_call", "custom_tool_call"})
"""Output item types that become a block; others (server-side tools) are not content."""


class _Item:
    """One output item of the response: its builder key, and what its block still needs."""

    __slots__ = (
        "done",
        "input",
        "key",
        "kind",
        "part",
        "part_start",
        "prop",
        "refusal",
        "server_done",
        "summary_parts",
    )

    def __init__(self, kind: str, key: Any) -> None:
        self.kind = kind
        self.key = key
        self.summary_parts = 0
        self.refusal = ""
        self.done = kind not in _CONTENT_KINDS
        self.server_done = False
        """A server-tool item whose blocks were added (at its ``output_item.done``)."""
        self.part: Any = None
        """The ``content_index`` / ``summary_index`` of the part being streamed."""
        self.part_start = 0
        """Where that part's text begins in the block's text."""
        self.prop, self.input = "input", ""
        """A custom tool call's argument that carries its free text, and the text so far."""


class Decoder:
    r"""Turns Responses API stream events (parsed JSON) into builder calls for one message.

    Each output item becomes one block, tracked by ``output_index`` (or item id), so items whose
    events interleave (OpenRouter streams a message while its reasoning item is still open) stay
    apart:

    * ``reasoning`` → thinking: summary text deltas, with ``"\n\n"`` between summary parts
      (``reasoning_summary_text.done`` makes its part's text the event's ``text``);
      without a summary, the raw ``reasoning_text`` deltas (gpt-oss on OpenRouter). At
      ``output_item.done`` the text becomes the item's summary parts joined with ``"\n\n"``
      (else its reasoning text), and the item JSON becomes the signature if it has
      ``encrypted_content``.
    * ``message`` → text (``output_text`` deltas; ``output_text.done`` makes its part's text
      the event's ``text``, and the done item's text is authoritative, its ``annotations``
      the block's citations, :mod:`._citations`);
      ``refusal`` deltas are collected apart and end the reply as an error with the refusal as
      its message. The text signature is the item id (TextSignatureV1).
    * ``function_call`` → tool call ``"<call_id>|<item id>"``, arguments streamed into an
      incremental parser; ``arguments.done`` / the done item win if they differ.
    * ``custom_tool_call`` (a grammar tool's free ``input`` text) → tool call whose arguments
      are ``{<the tool's string argument, per grammar; else "input">: input}``, streamed as
      pieces of that JSON (pi-ai 1.6); ``input.done`` / the done item are the authority.
    * A ``*.done`` event's text is the authority for its part, whether the deltas before it
      were complete, different or missing: a text that extends what streamed adds the tail as
      one delta, any other replaces it (no delta), so the block holds each text once (pi-ai
      0.73.1 ``processResponsesStream`` for ``function_call_arguments.done``; it reads the
      text parts from ``output_item.done`` only).
    * Built-in tool items (web search, file search, code interpreter, image generation, MCP:
      :mod:`._server_tools`) become a :class:`pi_sdk.ServerToolCall` (+ result) at their
      ``output_item.done``; other item types are not content.
    * ``response.completed`` / ``incomplete`` set usage (``input`` = input tokens minus cached,
      ``cache_read`` = cached, ``output`` = output tokens), cost (with the service tier's price
      multiplier) and the stop reason: ``completed`` → stop (toolUse with tool calls),
      ``incomplete`` → length (error for a content filter). ``response.failed`` and ``error``
      events raise :class:`pi_sdk.provider.ProviderError`; so does a stream that ends before a
      terminal
      event.
    """

    def __init__(
        self,
        builder: MessageBuilder,
        *,
        service_tier: str | None = None,
        grammar: Mapping[str, str] | None = None,
    ) -> None:
        """Decode into ``builder``.

        ``service_tier`` is the requested tier (for pricing), ``grammar`` the request's grammar
        tools (name -> input property).
        """
        self.builder = builder
        self.grammar = grammar or {}
        self.requested_tier = service_tier
        self.response_model: str | None = None
        """The model id the server reported."""
        self.usage_reported = False
        self.status: str | None = None
        self.incomplete_reason: str | None = None
        self._items: dict[Any, _Item] = {}
        self._by_id: dict[str, _Item] = {}
        self._terminal = False
        self._handlers: dict[str, Callable[[dict[str, Any]], Events]] = {
            "response.output_text.delta": self._text_delta,
            "response.output_text.done": self._text_done,
            "response.function_call_arguments.delta": self._arguments_delta,
            "response.reasoning_summary_text.delta": self._summary_delta,
            "response.reasoning_summary_text.done": self._summary_done,
            "response.reasoning_text.delta": self._reasoning_text_delta,
            "response.refusal.delta": self._refusal_delta,
            "response.reasoning_summary_part.added": self._summary_part,
            "response.function_call_arguments.done": self._arguments_done,
            "response.custom_tool_call_input.delta": self._input_delta,
            "response.custom_tool_call_input.done": self._input_done,
            "response.output_item.added": self._item_added,
            "response.output_item.done": self._item_done,
            "response.created": self._meta,
            "response.in_progress": self._meta,
            "response.completed": self._completed,
            "response.incomplete": self._completed,
            "response.failed": self._failed,
            "error": self._error,
        }

    # -- items ----------------------------------------------------------------------------------

    def _find(self, data: dict[str, Any], kind: str) -> _Item | None:
        """The item of type ``kind`` the event names (``output_index``, else ``item_id``)."""
        item = self._items.get(data.get("output_index"))
        if item is None:
            item = self._by_id.get(data.get("item_id") or "")
        return item if item is not None and item.kind == kind else None

    def _piece(self, data: dict[str, Any], kind: str) -> tuple[_Item, str] | None:
        """The ``kind`` item the event names and its non-empty ``delta`` text, or ``None``."""
        item = self._find(data, kind)
        piece = data.get("delta")
        return (item, piece) if item is not None and isinstance(piece, str) and piece else None

    def _arguments_delta(self, data: dict[str, Any]) -> Events:
        hit = self._piece(data, "function_call")
        return self.builder.append_arguments(hit[0].key, hit[1]) if hit is not None else []

    def _input_delta(self, data: dict[str, Any]) -> Events:
        hit = self._piece(data, "custom_tool_call")
        if hit is None:
            return []
        item, piece = hit
        item.input += piece
        return self.builder.append_arguments(item.key, json.dumps(piece, ensure_ascii=False)[1:-1])

    def _input_done(self, data: dict[str, Any]) -> Events:
        item = self._find(data, "custom_tool_call")
        final = data.get("input")
        if item is None or item.done or not isinstance(final, str):
            return []
        item.input = final
        return self.builder.settle_arguments(item.key, grammar_input_json(item.prop, final))

    def _text_delta(self, data: dict[str, Any]) -> Events:
        hit = self._piece(data, "message")
        if hit is not None and data.get("content_index") != hit[0].part:
            self._enter_part(hit[0], data.get("content_index"))  # the message's next part
        return self.builder.append_text(hit[0].key, hit[1]) if hit is not None else []

    def _block_text(self, item: _Item) -> str:
        """The text of the item's open text or thinking block (``""`` when it is not open)."""
        block = self.builder.block(item.key)
        text = getattr(block, "thinking" if item.kind == "reasoning" else "text", "")
        return text if isinstance(text, str) else ""

    def _enter_part(self, item: _Item, part: Any) -> None:
        """The item's next part (``content_index`` / ``summary_index``) begins here."""
        item.part = part
        item.part_start = len(self._block_text(item))

    def _settle_part(self, item: _Item, text: str) -> Events:
        """Make the current part's text ``text`` (a ``*.done`` event's: the authority)."""
        current = self._block_text(item)
        return self.builder.settle_text(item.key, current[: item.part_start] + text)

    def _done_text(self, data: dict[str, Any], kind: str) -> tuple[_Item, str] | None:
        """The open ``kind`` item a ``*.done`` event names and its ``text``, or ``None``."""
        item = self._find(data, kind)
        text = data.get("text")
        if item is None or item.done or not isinstance(text, str):
            return None
        return item, text

    def _text_done(self, data: dict[str, Any]) -> Events:
        """``output_text.done``: the part's whole text (deltas before it complete or not)."""
        hit = self._done_text(data, "message")
        if hit is None:
            return []
        part = data.get("content_index")
        if part != hit[0].part:
            self._enter_part(hit[0], part)  # a part whose text came in no delta
        return self._settle_part(*hit)

    def _item_added(self, data: dict[str, Any]) -> Events:
        vendor = as_dict(data.get("item"))
        kind = str(vendor.get("type") or "")
        item_id = str(vendor.get("id") or "")
        index = data.get("output_index")
        key = index if isinstance(index, int) else item_id
        item = _Item(kind, key)
        events: Events = []
        builder = self.builder
        if kind == "reasoning":
            events = builder.open_thinking(key)
        elif kind == "message":
            events = builder.open_text(key)
        elif kind in ("function_call", "custom_tool_call"):
            call_id = str(vendor.get("call_id") or "")
            name = str(vendor.get("name") or "")
            arguments = vendor.get("arguments")
            if kind == "custom_tool_call":
                text = vendor.get("input")
                item.prop = self.grammar.get(name, "input")
                item.input = text if isinstance(text, str) else ""
                arguments = grammar_input_json(item.prop, item.input)[:-2]  # still open
            events = builder.open_tool_call(
                key,
                id=f"{call_id}|{item_id}" if item_id else call_id,
                name=name,
                arguments=arguments if isinstance(arguments, str) else "",
            )
        self._items[key] = item
        if item_id:
            self._by_id[item_id] = item
        return events

    def _refusal_delta(self, data: dict[str, Any]) -> Events:
        hit = self._piece(data, "message")
        if hit is not None:
            hit[0].refusal += hit[1]
        return []

    def _summary_part(self, data: dict[str, Any]) -> Events:
        item = self._find(data, "reasoning")
        if item is None:
            return []
        return self._next_summary(item, data.get("summary_index"))

    def _next_summary(self, item: _Item, part: Any) -> Events:
        """Start the reasoning item's next summary part: a blank line after the one before."""
        item.summary_parts += 1
        events: Events = []
        if item.summary_parts > 1:
            events = self.builder.append_thinking(item.key, "\n\n")
            self._enter_part(item, part)
        else:
            item.part, item.part_start = part, 0  # the summary replaces raw reasoning text
        return events

    def _summary_delta(self, data: dict[str, Any]) -> Events:
        hit = self._piece(data, "reasoning")
        if hit is None:
            return []
        item, piece = hit
        if not item.summary_parts:  # no summary_part.added before it
            item.summary_parts = 1
            item.part = data.get("summary_index")
        return self.builder.append_thinking(item.key, piece)

    def _summary_done(self, data: dict[str, Any]) -> Events:
        """``reasoning_summary_text.done``: the summary part's whole text."""
        hit = self._done_text(data, "reasoning")
        if hit is None:
            return []
        item, text = hit
        part = data.get("summary_index")
        events: Events = []
        if not item.summary_parts or part != item.part:
            events = self._next_summary(item, part)  # a part that no event announced
        return events + self._settle_part(item, text)

    def _reasoning_text_delta(self, data: dict[str, Any]) -> Events:
        """Raw reasoning text: the thinking only while the item has no summary."""
        hit = self._piece(data, "reasoning")
        if hit is None or hit[0].summary_parts:
            return []
        return self.builder.append_thinking(hit[0].key, hit[1])

    def _arguments_done(self, data: dict[str, Any]) -> Events:
        item = self._find(data, "function_call")
        final = data.get("arguments")
        if item is None or not isinstance(final, str):
            return []
        return self.builder.settle_arguments(item.key, final)

    def _item_done(self, data: dict[str, Any]) -> Events:
        vendor = as_dict(data.get("item"))
        index, item_id = data.get("output_index"), vendor.get("id")
        item = self._items.get(index) or self._by_id.get(item_id or "")
        events: Events = []
        if item is None:
            events = self._item_added(data)
            item = self._items.get(index) or self._by_id.get(item_id or "")
        if item is not None and item.kind in SERVER_ITEMS and not item.server_done:
            item.server_done = True  # a built-in tool's item: its call (and outcome), whole
            for block in server_blocks(vendor):
                events += self.builder.server_block(block)
            return events
        if item is None or item.done:
            return events
        return events + self._close(item, vendor)

    def _close(self, item: _Item, vendor: dict[str, Any]) -> Events:
        """End the item's block with the vendor's final copy of the item (``{}``: none)."""
        item.done = True
        builder = self.builder
        if item.kind == "reasoning":
            summary = [as_dict(p).get("text") for p in as_list(vendor.get("summary"))]
            texts = [t for t in summary if isinstance(t, str)]
            raw = [as_dict(p).get("text") for p in as_list(vendor.get("content"))]
            final: str | None = None
            if texts:
                final = "\n\n".join(texts)
            elif any(isinstance(t, str) and t for t in raw):
                final = "".join(t for t in raw if isinstance(t, str))
            signature = None
            if vendor.get("encrypted_content"):
                signature = json.dumps(vendor, ensure_ascii=False)
            return builder.end_thinking(item.key, text=final, signature=signature)
        if item.kind == "message":
            parts = [as_dict(p) for p in as_list(vendor.get("content"))]
            text: str | None = None
            if parts:
                text = "".join(
                    str(p.get("text") or "") for p in parts if p.get("type") == "output_text"
                )
                refusal = "".join(
                    str(p.get("refusal") or "") for p in parts if p.get("type") == "refusal"
                )
                item.refusal = refusal or item.refusal
                cited = citations_of(parts)
                block = builder.block(item.key)
                if cited and isinstance(block, TextContent):
                    block.citations = cited
            item_id = vendor.get("id")
            signature = None
            if isinstance(item_id, str) and item_id:
                phase = vendor.get("phase")
                signature = text_signature(item_id, phase if isinstance(phase, str) else None)
            return builder.end_text(item.key, text=text, signature=signature)
        if item.kind == "custom_tool_call":
            text = vendor.get("input")
            final = text if isinstance(text, str) else item.input
            return builder.end_tool_call(item.key, arguments=grammar_input_json(item.prop, final))
        arguments = vendor.get("arguments")
        return builder.end_tool_call(
            item.key, arguments=arguments if isinstance(arguments, str) else None
        )

    # -- response -------------------------------------------------------------------------------

    def _meta(self, data: dict[str, Any]) -> Events:
        response = as_dict(data.get("response"))
        if self.response_model is None and response.get("model"):
            self.response_model = str(response["model"])
        self.builder.set_response(id=response.get("id"), model=self.response_model)
        return []

    def _usage(self, response: dict[str, Any]) -> None:
        if report_usage(self.builder, response, self.requested_tier):
            self.usage_reported = True

    def _completed(self, data: dict[str, Any]) -> Events:
        response = as_dict(data.get("response"))
        self._meta(data)
        self._usage(response)
        status = response.get("status")
        self.status = status if isinstance(status, str) else None
        reason = as_dict(response.get("incomplete_details")).get("reason")
        self.incomplete_reason = reason if isinstance(reason, str) else None
        raw = f"{status}.{reason}" if self.incomplete_reason and status else status
        self.builder.set_raw_stop_reason(raw)  # pi-ai 1.6: "completed", "incomplete.<reason>"
        self._terminal = True
        if self.status in ("failed", "cancelled"):
            self._failed(data)
        # Items the stream opened but never finished: the response's own copy finishes them.
        events: Events = []
        for index, vendor in enumerate(as_list(response.get("output"))):
            item = self._items.get(index)
            fields = as_dict(vendor)
            if item is not None and item.kind in SERVER_ITEMS and fields.get("type") == item.kind:
                events += self._item_done({"output_index": index, "item": fields})
            elif item is not None and not item.done and fields.get("type") == item.kind:
                events += self._close(item, fields)
        return events

    def _failed(self, data: dict[str, Any]) -> Events:
        response = as_dict(data.get("response"))
        self._usage(response)
        self.builder.set_raw_stop_reason(response.get("status"))
        error = as_dict(response.get("error"))
        if error:
            code = error.get("code") or "unknown"
            raise ProviderError(f"{code}: {error.get('message') or 'no message'}")
        reason = as_dict(response.get("incomplete_details")).get("reason")
        if reason:
            raise ProviderError(f"incomplete: {reason}")
        raise ProviderError(f"response {response.get('status') or 'failed'} (no error details)")

    def _error(self, data: dict[str, Any]) -> Events:
        error = as_dict(data.get("error")) or data
        code = error.get("code") or error.get("type") or "error"
        raise ProviderError(f"{code}: {error.get('message') or json.dumps(data)}")

    def content_filter_message(self) -> str:
        """The error text of a response ``incomplete`` for ``content_filter``.

        A vendor's decoder subclass names what was filtered (pi-sdk-azure).
        """
        return "The reply was blocked by the content filter (incomplete)"

    # -- WireDecoder ----------------------------------------------------------------------------

    @property
    def terminal(self) -> bool:
        """True once ``response.completed`` or ``response.incomplete`` was fed.

        The reply is then complete and the stream is not read further (``response.failed`` and
        ``error`` raise instead).
        """
        return self._terminal

    def feed(self, data: dict[str, Any]) -> Events:
        """Consume one stream event; return its events.

        Raises:
            ProviderError: ``response.failed`` or an ``error`` event (``"<code>: <message>"``).
        """
        kind = data.get("type")
        if kind == "response.output_text.delta":  # the hot path: a delta of the current part
            item = self._items.get(data.get("output_index"))
            piece = data.get("delta")
            if (
                item is not None
                and item.kind == "message"
                and piece.__class__ is str
                and piece
                and data.get("content_index") == item.part
            ):
                return self.builder.append_text(item.key, piece)
            return self._text_delta(data)
        if kind == "response.function_call_arguments.delta":
            item = self._items.get(data.get("output_index"))
            piece = data.get("delta")
            if item is not None and item.kind == "function_call" and piece.__class__ is str:
                return self.builder.append_arguments(item.key, piece) if piece else []
            return self._arguments_delta(data)
        handler = self._handlers.get(kind) if isinstance(kind, str) else None
        return handler(data) if handler is not None else []

    def feed_document(self, document: Any) -> Events:
        """Consume a non-streamed ``response`` object: each output item added and done.

        Raises:
            ProviderError: a failed response, or a document that is not a response (no
                ``output``).
        """
        response = as_dict(document)
        if response is not document:
            raise ProviderError(f"malformed response body: {document!r:.200}")
        if response.get("error") and response.get("status") in (None, "failed"):
            self._failed({"response": response})
        if not isinstance(response.get("output"), list):
            raise ProviderError(
                "the JSON response is not a Responses API response (no output): "
                f"{json.dumps(response, ensure_ascii=False)[:200]}"
            )
        events: Events = []
        for index, item in enumerate(as_list(response.get("output"))):
            events += self._item_added({"output_index": index, "item": item})
            events += self._item_done({"output_index": index, "item": item})
        return events + self._completed({"response": response})

    def finish(self, *, saw_done: bool) -> Events:
        """Close open blocks and end the message with ``done`` or ``error``.

        Raises:
            ProviderError: the stream ended before ``response.completed``/``incomplete``, or a
                completed response had no output item at all (nothing to return).
        """
        del saw_done  # the terminal event, not [DONE] (OpenAI sends none), marks the end
        if not self._terminal:
            raise ProviderError(
                "the response stream ended before response.completed: the reply is incomplete"
                " (connection closed early?)"
            )
        if not self._items and self.status != "incomplete":
            raise ProviderError(
                f"the response ({self.status or 'no status'}) has no output items: nothing to"
                " return"
            )
        builder = self.builder
        events: Events = []
        for item in self._items.values():
            if not item.done:
                events += self._close(item, {})
        refusal = "".join(item.refusal for item in self._items.values())
        stop: Literal["stop", "length"] = "stop"
        if self.status == "incomplete":
            if self.incomplete_reason == "content_filter" and not refusal:
                return events + builder.error(self.content_filter_message())
            stop = "length"
        if refusal:
            return events + builder.error(refusal)
        return events + builder.done(stop)
