"""pi's serialized event protocols: our events encoded for the wire (proxy and ``pi-messages``).

Both protocols stream pi's assistant events as server-sent events, one ``data: <json>`` line
each, without ``partial`` (the client rebuilds it), so a delta costs a few bytes instead of the
whole message so far. The shapes, with pi's camelCase keys:

* ``{"type": "start"}``
* ``{"type": "text_start" | "thinking_start", "contentIndex": i}``
* ``{"type": "text_delta" | "thinking_delta" | "toolcall_delta", "contentIndex": i, "delta": s}``
* ``{"type": "text_end" | "thinking_end", "contentIndex": i, "contentSignature"?: s}``
* ``{"type": "toolcall_start", "contentIndex": i, "id": s, "toolName": s}``
* ``{"type": "toolcall_end", "contentIndex": i, "toolCall": ToolCall}``
* ``{"type": "servertool_call", "contentIndex": i, "serverToolCall": {...}}`` and
  ``{"type": "servertool_result", "contentIndex": i, "serverToolResult": {...}}``: pi-sdk's
  server-tool blocks, whole (pi's proxy client skips event types it does not know); and
  ``{"type": "image", "contentIndex": i, "image": ImageContent}``: an image the model made
* ``{"type": "done", "reason": "stop" | "length" | "toolUse", "usage": Usage,
  "providerThinkingLevel"?: s}``
* ``{"type": "error", "reason": "aborted" | "error", "errorMessage"?: s, "usage": Usage,
  "providerThinkingLevel"?: s}``

That is pi-agent-core 1.6's ``ProxyAssistantMessageEvent`` (``proxy.d.ts``; 0.73.1's lacked
``toolCall`` and ``providerThinkingLevel``, and its client ignores them, so one encoding serves
both). pi-ai 1.6's ``PiMessagesEvent`` (``api/pi-messages.d.ts``) adds, per event: the block's
whole text as ``content`` on ``text_end`` and ``thinking_end``, ``redacted`` on
``thinking_end``, and ``responseId`` / ``responseModel`` on ``done`` and ``error``.

What neither protocol carries is lost on the way, in pi too: a text or thinking block's
``redacted`` flag over the proxy, the response id and model over the proxy, diagnostics.
"""

from __future__ import annotations

from json.encoder import encode_basestring
from typing import Any, cast

import pi_sdk.events as ev
from pi_sdk.types import AssistantMessage, TextContent, ThinkingContent, ToolCall, Usage

__all__ = ["delta_frame", "pi_messages_event_to_dict", "proxy_event_to_dict"]

_DELTAS: dict[type[ev.AssistantMessageEvent], bytes] = {
    ev.TextDeltaEvent: b'data: {"type":"text_delta","contentIndex":',
    ev.ThinkingDeltaEvent: b'data: {"type":"thinking_delta","contentIndex":',
    ev.ToolCallDeltaEvent: b'data: {"type":"toolcall_delta","contentIndex":',
}


def delta_frame(event: ev.AssistantMessageEvent) -> bytes | None:
    r"""The SSE frame of a delta event, ``None`` for any other event.

    A delta has the same JSON in both protocols (``{"type", "contentIndex", "delta"}``); its
    frame is ``"data: " + json.dumps(proxy_event_to_dict(event), ensure_ascii=False,
    separators=(",", ":")) + "\n\n"`` as UTF-8, the same bytes, written out here because
    deltas are nearly every event of a reply (no dict, no encoder call per delta).
    """
    head = _DELTAS.get(type(event))
    if head is None:
        return None
    delta = cast("ev.TextDeltaEvent", event)  # or a thinking / tool-call delta: same fields
    return b'%s%d,"delta":%s}\n\n' % (
        head,
        delta.content_index,
        encode_basestring(delta.delta).encode(),
    )


def proxy_event_to_dict(event: ev.AssistantMessageEvent) -> dict[str, Any]:
    """Return ``event`` as pi's ``ProxyAssistantMessageEvent`` (JSON-ready, no ``partial``).

    Signatures (``contentSignature``) and a tool call's id and name (``toolcall_start``) are
    read from the block in ``event.partial``; ``toolcall_end`` carries the whole call
    (``toolCall``), ``done`` and ``error`` the usage, the error text and the vendor's
    ``providerThinkingLevel``, as pi-agent-core 1.6's proxy client reads them.
    """
    return _encode(event, full=False)


def pi_messages_event_to_dict(event: ev.AssistantMessageEvent) -> dict[str, Any]:
    """Return ``event`` as pi-ai 1.6's ``PiMessagesEvent`` (JSON-ready, no ``partial``).

    The proxy shape (:func:`proxy_event_to_dict`) plus the block's whole text (``content``) on
    ``text_end`` / ``thinking_end``, ``redacted`` thinking, and ``responseId`` /
    ``responseModel`` on ``done`` / ``error``.
    """
    return _encode(event, full=True)


def _encode(event: ev.AssistantMessageEvent, *, full: bool) -> dict[str, Any]:
    match event:
        case ev.TextDeltaEvent() | ev.ThinkingDeltaEvent() | ev.ToolCallDeltaEvent():
            return {"type": event.type, "contentIndex": event.content_index, "delta": event.delta}
        case ev.TextEndEvent() | ev.ThinkingEndEvent():
            return _block_end(event, event.partial.content[event.content_index], full)
        case ev.ToolCallStartEvent():
            call = event.partial.content[event.content_index]
            assert isinstance(call, ToolCall)
            index = event.content_index
            return {"type": event.type, "contentIndex": index, "id": call.id, "toolName": call.name}
        case ev.ToolCallEndEvent():
            call_json = event.tool_call.model_dump(mode="json", by_alias=True, exclude_none=True)
            return {"type": event.type, "contentIndex": event.content_index, "toolCall": call_json}
        case ev.TextStartEvent() | ev.ThinkingStartEvent():
            return {"type": event.type, "contentIndex": event.content_index}
        case ev.ServerToolCallEvent():
            call = event.server_tool_call.model_dump(mode="json")
            return {"type": event.type, "contentIndex": event.content_index, "serverToolCall": call}
        case ev.ServerToolResultEvent():
            result = event.server_tool_result.model_dump(mode="json")
            index = event.content_index
            return {"type": event.type, "contentIndex": index, "serverToolResult": result}
        case ev.ImageEvent():
            image = event.image.model_dump(mode="json")
            return {"type": event.type, "contentIndex": event.content_index, "image": image}
        case ev.DoneEvent():
            done: dict[str, Any] = {"type": "done", "reason": event.reason}
            return _terminal(done, event.message, full)
        case ev.ErrorEvent():
            failed: dict[str, Any] = {"type": "error", "reason": event.reason}
            if event.error.error_message is not None:
                failed["errorMessage"] = event.error.error_message
            return _terminal(failed, event.error, full)
        case ev.StartEvent():
            return {"type": "start"}


def _block_end(
    event: ev.TextEndEvent | ev.ThinkingEndEvent, block: object, full: bool
) -> dict[str, Any]:
    out: dict[str, Any] = {"type": event.type, "contentIndex": event.content_index}
    if full:
        out["content"] = event.content
    if isinstance(block, TextContent):
        signature = block.text_signature
    elif isinstance(block, ThinkingContent):
        signature = block.thinking_signature
        if full and block.redacted:
            out["redacted"] = True
    else:
        signature = None
    if signature is not None:
        out["contentSignature"] = signature
    return out


def _terminal(out: dict[str, Any], message: AssistantMessage, full: bool) -> dict[str, Any]:
    out["usage"] = usage_to_dict(message.usage)
    if full:
        if message.response_id is not None:
            out["responseId"] = message.response_id
        if message.response_model is not None:
            out["responseModel"] = message.response_model
    if message.provider_thinking_level is not None:
        out["providerThinkingLevel"] = message.provider_thinking_level
    return out


def usage_to_dict(usage: Usage) -> dict[str, Any]:
    """``usage`` as pi's JSON (``None`` fields left out)."""
    return usage.model_dump(mode="json", by_alias=True, exclude_none=True)
