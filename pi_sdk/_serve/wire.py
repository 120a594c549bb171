"""pi-agent-core's proxy event protocol: encode our events for the wire, decode them back.

A proxy server streams ``ProxyAssistantMessageEvent`` objects (pi-agent-core 0.73.1
``proxy.d.ts``) as server-sent events, one ``data: <json>`` line each: the normal assistant
events without ``partial`` (the client rebuilds it), so a delta costs a few bytes instead of the
whole message so far. The shapes, with pi's camelCase keys:

* ``{"type": "start"}``
* ``{"type": "text_start" | "thinking_start", "contentIndex": i}``
* ``{"type": "text_delta" | "thinking_delta" | "toolcall_delta", "contentIndex": i, "delta": s}``
* ``{"type": "text_end" | "thinking_end", "contentIndex": i, "contentSignature"?: s}``
* ``{"type": "toolcall_start", "contentIndex": i, "id": s, "toolName": s}``
* ``{"type": "toolcall_end", "contentIndex": i}``
* ``{"type": "servertool_call", "contentIndex": i, "serverToolCall": {...}}`` and
  ``{"type": "servertool_result", "contentIndex": i, "serverToolResult": {...}}``: pi-sdk's
  server-tool blocks, whole (pi's proxy client skips event types it does not know)
* ``{"type": "done", "reason": "stop" | "length" | "toolUse", "usage": Usage}``
* ``{"type": "error", "reason": "aborted" | "error", "errorMessage"?: s, "usage": Usage}``

What the protocol does not carry is lost on the way, in pi-mono too: a tool call's
``thoughtSignature``, ``redacted`` thinking, the response id and model, diagnostics.
"""

from __future__ import annotations

from typing import Any, Literal

import pi_sdk.events as ev
from pi_sdk._stream.builder import Events, MessageBuilder
from pi_sdk._stream.provider_errors import ProviderError
from pi_sdk.types import (
    ServerToolCall,
    ServerToolResult,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)

__all__ = ["ProxyDecoder", "proxy_event_to_dict"]

_INDEXED = {
    "text_start",
    "text_delta",
    "text_end",
    "thinking_start",
    "thinking_delta",
    "thinking_end",
    "toolcall_start",
    "toolcall_delta",
    "toolcall_end",
}


def proxy_event_to_dict(event: ev.AssistantMessageEvent) -> dict[str, Any]:
    """Return ``event`` as pi's ``ProxyAssistantMessageEvent`` (JSON-ready, no ``partial``).

    Signatures (``contentSignature``) and a tool call's id and name (``toolcall_start``) are
    read from the block in ``event.partial``; ``done`` and ``error`` carry only the usage (and
    the error text), as pi-agent-core's proxy client expects.
    """
    match event:
        case ev.StartEvent():
            return {"type": "start"}
        case ev.TextDeltaEvent() | ev.ThinkingDeltaEvent() | ev.ToolCallDeltaEvent():
            return {"type": event.type, "contentIndex": event.content_index, "delta": event.delta}
        case ev.TextEndEvent() | ev.ThinkingEndEvent():
            out: dict[str, Any] = {"type": event.type, "contentIndex": event.content_index}
            signature = _signature(event.partial.content[event.content_index])
            if signature is not None:
                out["contentSignature"] = signature
            return out
        case ev.ToolCallStartEvent():
            call = event.partial.content[event.content_index]
            assert isinstance(call, ToolCall)
            index = event.content_index
            return {"type": event.type, "contentIndex": index, "id": call.id, "toolName": call.name}
        case ev.TextStartEvent() | ev.ThinkingStartEvent() | ev.ToolCallEndEvent():
            return {"type": event.type, "contentIndex": event.content_index}
        case ev.ServerToolCallEvent():
            call = event.server_tool_call.model_dump(mode="json")
            return {"type": event.type, "contentIndex": event.content_index, "serverToolCall": call}
        case ev.ServerToolResultEvent():
            result = event.server_tool_result.model_dump(mode="json")
            index = event.content_index
            return {"type": event.type, "contentIndex": index, "serverToolResult": result}
        case ev.DoneEvent():
            return {"type": "done", "reason": event.reason, "usage": _usage(event.message.usage)}
        case ev.ErrorEvent():
            failed: dict[str, Any] = {"type": "error", "reason": event.reason}
            if event.error.error_message is not None:
                failed["errorMessage"] = event.error.error_message
            failed["usage"] = _usage(event.error.usage)
            return failed


def _signature(block: object) -> str | None:
    if isinstance(block, TextContent):
        return block.text_signature
    return block.thinking_signature if isinstance(block, ThinkingContent) else None


def _usage(usage: Usage) -> dict[str, Any]:
    return usage.model_dump(mode="json", by_alias=True, exclude_none=True)


class ProxyDecoder:
    """Rebuilds the assistant message from proxy events (pi-agent-core ``processProxyEvent``).

    A :class:`~pi_sdk.provider.WireDecoder` for the core's read loop: each
    event goes to the :class:`~pi_sdk.provider.MessageBuilder`, keyed by its ``contentIndex``;
    ``done`` and ``error`` take the server's usage as sent (already priced there). An unknown
    event type is skipped (pi warns and skips it).

    Raises (from :meth:`feed`):
        ProviderError: an event for a block that is not open or of another kind (pi:
            "Received text_delta for non-text content"), a field of the wrong type, or a
            stream that ends before ``done`` or ``error`` (:meth:`finish`).
    """

    __slots__ = ("_builder", "terminal")

    def __init__(self, builder: MessageBuilder) -> None:
        self._builder = builder
        self.terminal = False

    def feed(self, data: dict[str, Any]) -> Events:
        """Apply one proxy event; return the events it causes."""
        kind = data.get("type")
        b = self._builder
        if kind in _INDEXED:
            index = _field(data, "contentIndex", int)
            if kind == "text_start":
                return b.open_text(index)
            if kind == "thinking_start":
                return b.open_thinking(index)
            if kind == "toolcall_start":
                call_id = _field(data, "id", str)
                return b.open_tool_call(index, id=call_id, name=_field(data, "toolName", str))
            if kind == "text_delta":
                return b.append_text(index, _field(data, "delta", str))
            if kind == "thinking_delta":
                return b.append_thinking(index, _field(data, "delta", str))
            if kind == "toolcall_delta":
                return b.append_arguments(index, _field(data, "delta", str))
            if kind == "toolcall_end":
                return b.end_tool_call(index) if b.kind(index) == "toolcall" else []
            raw = data.get("contentSignature")
            signature = raw if isinstance(raw, str) else None
            if kind == "text_end":
                return b.end_text(index, signature=signature)
            return b.end_thinking(index, signature=signature)
        if kind == "done" or kind == "error":
            return self._finish(kind, data)
        if kind == "servertool_call" or kind == "servertool_result":
            return self._server_block(kind, data)
        return []  # "start" (the runner sent ours when the body began) or an unknown type

    def _server_block(self, kind: str, data: dict[str, Any]) -> Events:
        try:
            if kind == "servertool_call":
                block: Any = ServerToolCall.model_validate(data.get("serverToolCall"))
            else:
                block = ServerToolResult.model_validate(data.get("serverToolResult"))
        except ValueError as exc:
            raise ProviderError(f"malformed proxy event: bad {kind}: {exc}") from None
        return self._builder.server_block(block)

    def _finish(self, kind: Literal["done", "error"], data: dict[str, Any]) -> Events:
        b = self._builder
        usage = data.get("usage")
        if isinstance(usage, dict):
            try:
                b.message.usage = Usage.model_validate(usage)
            except ValueError as exc:
                raise ProviderError(f"malformed proxy event: bad usage: {exc}") from None
        reason = data.get("reason")
        self.terminal = True
        if kind == "done":
            if reason not in ("stop", "length", "toolUse"):
                raise ProviderError(f"malformed proxy event: done with reason {reason!r}")
            return b.done(reason, exact=True)
        message = data.get("errorMessage")
        text = message if isinstance(message, str) else "the proxy reported an error"
        return b.error(text, reason="aborted" if reason == "aborted" else "error")

    def feed_document(self, document: Any) -> Events:
        """Refuse a whole JSON answer: a proxy streams events."""
        raise ProviderError("the proxy answered with a JSON document instead of an event stream")

    def finish(self, *, saw_done: bool) -> Events:
        """Nothing to add after ``done``/``error``; without one the reply is incomplete."""
        if not self.terminal:
            raise ProviderError(
                "the proxy stream ended before its done or error event", incomplete=True
            )
        return []


def _field(data: dict[str, Any], name: str, kind: type[Any]) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ProviderError(
            f"malformed proxy event: {data.get('type')!r} needs {name!r} of type {kind.__name__}"
        )
    return value
