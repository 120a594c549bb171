"""``openai-responses`` stream: Responses API events (parsed JSON) → pi events (pi-spec §4.4).

Shared by every Responses flavour (OpenAI, OpenRouter, Azure; pi-mono
``openai-responses-shared.ts``). The signatures it stores are described in
:mod:`pi_sdk_openai.responses`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from pi_sdk.provider import (
    AssistantMessage,
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    Model,
    ProviderError,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingContent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    calculate_cost,
)

from .._shared_json import as_dict, as_list
from ._request import text_signature

__all__ = ["SERVICE_TIER_PRICE", "Decoder"]

SERVICE_TIER_PRICE = {"flex": 0.5, "priority": 2.0}
"""Cost multiplier per service tier (pi-mono ``applyServiceTierPricing``)."""


class _Item:
    """One output item of the response and the block it became (``block`` None: ignored)."""

    __slots__ = ("block", "content_index", "done", "kind", "parser", "refusal", "summary_parts")

    def __init__(self, kind: str, block: Any, content_index: int) -> None:
        self.kind = kind
        self.block = block
        self.content_index = content_index
        self.parser: Any = None
        self.summary_parts = 0
        self.refusal = ""
        self.done = False


class Decoder:
    r"""Turns Responses API stream events (parsed JSON) into pi events for one message.

    Each output item becomes one block, tracked by ``output_index`` (or item id), so items whose
    events interleave (OpenRouter streams a message while its reasoning item is still open) stay
    apart:

    * ``reasoning`` → thinking: summary text deltas, with ``"\n\n"`` between summary parts;
      without a summary, the raw ``reasoning_text`` deltas (gpt-oss on OpenRouter). At
      ``output_item.done`` the text becomes the item's summary parts joined with ``"\n\n"``
      (else its reasoning text), and the item JSON becomes the signature if it has
      ``encrypted_content``.
    * ``message`` → text (``output_text`` deltas; the done item's text is authoritative);
      ``refusal`` deltas are collected apart and end the reply as an error with the refusal as
      its message. The text signature is the item id (TextSignatureV1).
    * ``function_call`` → tool call ``"<call_id>|<item id>"``, arguments streamed into an
      incremental parser; ``arguments.done`` / the done item win if they differ.
    * Other items (web search, file search, ...) are server-side tools: not content.
    * ``response.completed`` / ``incomplete`` set usage (``input`` = input tokens minus cached,
      ``cache_read`` = cached, ``output`` = output tokens), cost (with the service tier's price
      multiplier) and the stop reason: ``completed`` → stop (toolUse with tool calls),
      ``incomplete`` → length (error for a content filter). ``response.failed`` and ``error``
      events raise :class:`pi_sdk.ProviderError`; so does a stream that ends before a terminal
      event.
    """

    def __init__(
        self, model: Model, output: AssistantMessage, *, service_tier: str | None = None
    ) -> None:
        """Decode into ``output``; ``service_tier`` is the requested tier (for pricing)."""
        from pi_sdk.provider import IncrementalJsonParser

        self._parser_cls = IncrementalJsonParser
        self.model = model
        self.output = output
        self.requested_tier = service_tier
        self.response_model: str | None = None
        """The model id the server reported."""
        self.usage_reported = False
        self.status: str | None = None
        self.incomplete_reason: str | None = None
        self._content = output.content
        self._items: dict[Any, _Item] = {}
        self._by_id: dict[str, _Item] = {}
        self._has_calls = False
        self._terminal = False
        self._handlers: dict[str, Callable[[dict[str, Any], list[AssistantMessageEvent]], None]] = {
            "response.output_text.delta": self._text_delta,
            "response.function_call_arguments.delta": self._arguments_delta,
            "response.reasoning_summary_text.delta": self._summary_delta,
            "response.reasoning_text.delta": self._reasoning_text_delta,
            "response.refusal.delta": self._refusal_delta,
            "response.reasoning_summary_part.added": self._summary_part,
            "response.function_call_arguments.done": self._arguments_done,
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

    def _find(self, data: dict[str, Any]) -> _Item | None:
        item = self._items.get(data.get("output_index"))
        if item is None:
            item = self._by_id.get(data.get("item_id") or "")
        return item

    def _item_added(self, data: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        vendor = as_dict(data.get("item"))
        kind = str(vendor.get("type") or "")
        item_id = str(vendor.get("id") or "")
        index = len(self._content)
        out = self.output
        if kind == "reasoning":
            slot = _Item(kind, ThinkingContent(thinking=""), index)
            events.append(ThinkingStartEvent(content_index=index, partial=out))
        elif kind == "message":
            slot = _Item(kind, TextContent(text=""), index)
            events.append(TextStartEvent(content_index=index, partial=out))
        elif kind == "function_call":
            parser = self._parser_cls()
            call_id = str(vendor.get("call_id") or "")
            call = ToolCall(
                id=f"{call_id}|{item_id}" if item_id else call_id,
                name=str(vendor.get("name") or ""),
            )
            call.arguments = parser.value  # the live dict (validation would copy it)
            slot = _Item(kind, call, index)
            slot.parser = parser
            self._has_calls = True
            events.append(ToolCallStartEvent(content_index=index, partial=out))
            arguments = vendor.get("arguments")
            if isinstance(arguments, str) and arguments:
                parser.feed(arguments)
                events.append(ToolCallDeltaEvent(content_index=index, delta=arguments, partial=out))
        else:
            slot = _Item(kind, None, -1)
        if slot.block is not None:
            self._content.append(slot.block)
        key = data.get("output_index")
        self._items[key if isinstance(key, int) else item_id] = slot
        if item_id:
            self._by_id[item_id] = slot

    def _text_delta(self, data: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        slot = self._find(data)
        piece = data.get("delta")
        if slot is not None and slot.kind == "message" and isinstance(piece, str) and piece:
            slot.block.append(piece)
            events.append(
                TextDeltaEvent(content_index=slot.content_index, delta=piece, partial=self.output)
            )

    def _refusal_delta(self, data: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        slot = self._find(data)
        piece = data.get("delta")
        if slot is not None and isinstance(piece, str):
            slot.refusal += piece

    def _thinking_delta(self, slot: _Item, piece: str, events: list[AssistantMessageEvent]) -> None:
        slot.block.append(piece)
        events.append(
            ThinkingDeltaEvent(content_index=slot.content_index, delta=piece, partial=self.output)
        )

    def _summary_part(self, data: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        slot = self._find(data)
        if slot is None or slot.kind != "reasoning":
            return
        if slot.summary_parts:
            self._thinking_delta(slot, "\n\n", events)
        slot.summary_parts += 1

    def _summary_delta(self, data: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        slot = self._find(data)
        piece = data.get("delta")
        if slot is None or slot.kind != "reasoning" or not isinstance(piece, str) or not piece:
            return
        slot.summary_parts = slot.summary_parts or 1
        self._thinking_delta(slot, piece, events)

    def _reasoning_text_delta(
        self, data: dict[str, Any], events: list[AssistantMessageEvent]
    ) -> None:
        slot = self._find(data)
        piece = data.get("delta")
        if slot is None or slot.kind != "reasoning" or not isinstance(piece, str) or not piece:
            return
        if not slot.summary_parts:
            self._thinking_delta(slot, piece, events)

    def _arguments_delta(self, data: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        slot = self._find(data)
        piece = data.get("delta")
        if slot is None or slot.kind != "function_call" or not isinstance(piece, str) or not piece:
            return
        slot.parser.feed(piece)
        events.append(
            ToolCallDeltaEvent(content_index=slot.content_index, delta=piece, partial=self.output)
        )

    def _settle_arguments(
        self, slot: _Item, final: Any, events: list[AssistantMessageEvent]
    ) -> None:
        """Make the call's arguments equal the server's final ``arguments`` string."""
        if not isinstance(final, str) or final == slot.parser.raw:
            return
        if final.startswith(slot.parser.raw):
            rest = final[len(slot.parser.raw) :]
            slot.parser.feed(rest)
            events.append(
                ToolCallDeltaEvent(
                    content_index=slot.content_index, delta=rest, partial=self.output
                )
            )
            return
        parser = self._parser_cls()
        parser.feed(final)
        slot.parser = parser
        slot.block.arguments = parser.value

    def _arguments_done(self, data: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        slot = self._find(data)
        if slot is not None and slot.kind == "function_call":
            self._settle_arguments(slot, data.get("arguments"), events)

    def _settle_text(self, slot: _Item, final: str, events: list[AssistantMessageEvent]) -> None:
        """Make the block's text equal ``final``, emitting the missing tail as a delta."""
        block = slot.block
        current: str = block.thinking if slot.kind == "reasoning" else block.text
        if final == current:
            return
        if final.startswith(current) and slot.kind == "reasoning":
            self._thinking_delta(slot, final[len(current) :], events)
            return
        if final.startswith(current):
            rest = final[len(current) :]
            block.text = final
            events.append(
                TextDeltaEvent(content_index=slot.content_index, delta=rest, partial=self.output)
            )
            return
        if slot.kind == "reasoning":
            block.thinking = final
        else:
            block.text = final

    def _item_done(self, data: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        vendor = as_dict(data.get("item"))
        slot = self._find({"output_index": data.get("output_index"), "item_id": vendor.get("id")})
        if slot is None:
            self._item_added(data, events)
            slot = self._find(
                {"output_index": data.get("output_index"), "item_id": vendor.get("id")}
            )
        if slot is None or slot.done or slot.block is None:
            return
        self._close(slot, vendor, events)

    def _close(
        self, slot: _Item, vendor: dict[str, Any], events: list[AssistantMessageEvent]
    ) -> None:
        slot.done = True
        index = slot.content_index
        out = self.output
        if slot.kind == "reasoning":
            summary = [as_dict(p).get("text") for p in as_list(vendor.get("summary"))]
            texts = [t for t in summary if isinstance(t, str)]
            raw = [as_dict(p).get("text") for p in as_list(vendor.get("content"))]
            if texts:
                self._settle_text(slot, "\n\n".join(texts), events)
            elif any(isinstance(t, str) and t for t in raw):
                self._settle_text(slot, "".join(t for t in raw if isinstance(t, str)), events)
            if vendor.get("encrypted_content"):
                slot.block.thinking_signature = json.dumps(vendor, ensure_ascii=False)
            events.append(
                ThinkingEndEvent(content_index=index, content=slot.block.thinking, partial=out)
            )
        elif slot.kind == "message":
            parts = [as_dict(p) for p in as_list(vendor.get("content"))]
            if parts:
                text = "".join(
                    str(p.get("text") or "") for p in parts if p.get("type") == "output_text"
                )
                self._settle_text(slot, text, events)
                refusal = "".join(
                    str(p.get("refusal") or "") for p in parts if p.get("type") == "refusal"
                )
                slot.refusal = refusal or slot.refusal
            item_id = vendor.get("id")
            if isinstance(item_id, str) and item_id:
                phase = vendor.get("phase")
                slot.block.text_signature = text_signature(
                    item_id, phase if isinstance(phase, str) else None
                )
            events.append(TextEndEvent(content_index=index, content=slot.block.text, partial=out))
        else:
            if "arguments" in vendor:
                self._settle_arguments(slot, vendor.get("arguments"), events)
            slot.parser.finish()  # value becomes the full parse, or keeps the best partial
            events.append(ToolCallEndEvent(content_index=index, tool_call=slot.block, partial=out))

    # -- response -------------------------------------------------------------------------------

    def _meta(self, data: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        response = as_dict(data.get("response"))
        if self.response_model is None and response.get("model"):
            self.response_model = str(response["model"])

    def _usage(self, response: dict[str, Any]) -> None:
        usage = as_dict(response.get("usage"))
        if not usage:
            return
        cached = int(as_dict(usage.get("input_tokens_details")).get("cached_tokens") or 0)
        target = self.output.usage
        target.input = max(int(usage.get("input_tokens") or 0) - cached, 0)
        target.output = int(usage.get("output_tokens") or 0)
        target.cache_read = cached
        target.cache_write = 0
        target.update_total()
        calculate_cost(self.model, target)
        tier = response.get("service_tier") or self.requested_tier
        factor = SERVICE_TIER_PRICE.get(tier) if isinstance(tier, str) else None
        if factor is not None:
            cost = target.cost
            cost.input *= factor
            cost.output *= factor
            cost.cache_read *= factor
            cost.cache_write *= factor
            cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
        self.usage_reported = True

    def _completed(self, data: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        response = as_dict(data.get("response"))
        self._meta(data, events)
        self._usage(response)
        status = response.get("status")
        self.status = status if isinstance(status, str) else None
        reason = as_dict(response.get("incomplete_details")).get("reason")
        self.incomplete_reason = reason if isinstance(reason, str) else None
        self._terminal = True
        if self.status in ("failed", "cancelled"):
            self._failed(data, events)
        # Items the stream opened but never finished: the response's own copy finishes them.
        for index, vendor in enumerate(as_list(response.get("output"))):
            slot = self._items.get(index)
            item = as_dict(vendor)
            if slot is not None and not slot.done and slot.block is not None:
                if item.get("type") == slot.kind:
                    self._close(slot, item, events)

    def _failed(self, data: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        response = as_dict(data.get("response"))
        self._usage(response)
        error = as_dict(response.get("error"))
        if error:
            code = error.get("code") or "unknown"
            raise ProviderError(f"{code}: {error.get('message') or 'no message'}")
        reason = as_dict(response.get("incomplete_details")).get("reason")
        if reason:
            raise ProviderError(f"incomplete: {reason}")
        raise ProviderError(f"response {response.get('status') or 'failed'} (no error details)")

    def _error(self, data: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        error = as_dict(data.get("error")) or data
        code = error.get("code") or error.get("type") or "error"
        raise ProviderError(f"{code}: {error.get('message') or json.dumps(data)}")

    # -- WireDecoder ----------------------------------------------------------------------------

    @property
    def terminal(self) -> bool:
        """True once ``response.completed`` or ``response.incomplete`` was fed.

        The reply is then complete and the stream is not read further (``response.failed`` and
        ``error`` raise instead).
        """
        return self._terminal

    def feed(self, data: Any) -> list[AssistantMessageEvent]:
        """Consume one stream event; return its events."""
        event = as_dict(data)
        if event is not data:
            raise ProviderError(f"malformed stream event: {data!r:.200}")
        events: list[AssistantMessageEvent] = []
        handler = self._handlers.get(event.get("type") or "")
        if handler is not None:
            handler(event, events)
        return events

    def feed_body(self, body: Any) -> list[AssistantMessageEvent]:
        """Consume a non-streamed ``response`` object: each output item added and done."""
        response = as_dict(body)
        if response is not body:
            raise ProviderError(f"malformed response body: {body!r:.200}")
        if response.get("error") and response.get("status") in (None, "failed"):
            self._failed({"response": response}, [])
        if not isinstance(response.get("output"), list):
            raise ProviderError(
                "the JSON response is not a Responses API response (no output): "
                f"{json.dumps(response, ensure_ascii=False)[:200]}"
            )
        events: list[AssistantMessageEvent] = []
        for index, item in enumerate(as_list(response.get("output"))):
            self._item_added({"output_index": index, "item": item}, events)
            self._item_done({"output_index": index, "item": item}, events)
        self._completed({"response": response}, events)
        return events

    def finish(self, *, saw_done: bool) -> list[AssistantMessageEvent]:
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
        events: list[AssistantMessageEvent] = []
        for slot in self._items.values():
            if not slot.done and slot.block is not None:
                self._close(slot, {}, events)
        out = self.output
        refusal = "".join(slot.refusal for slot in self._items.values())
        stop: Literal["stop", "length", "toolUse", "error"] = "stop"
        if self.status == "incomplete":
            stop = "length"
            if self.incomplete_reason == "content_filter":
                stop = "error"
                out.error_message = "The reply was blocked by the content filter (incomplete)"
        elif self._has_calls:
            stop = "toolUse"
        if refusal:
            stop = "error"
            out.error_message = refusal
        out.stop_reason = stop
        if stop == "error":
            events.append(ErrorEvent(reason="error", error=out))
        else:
            events.append(DoneEvent(reason=stop, message=out))
        return events
