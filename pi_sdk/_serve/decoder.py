"""The client side of pi's serialized event protocols: rebuild the message from the events.

pi-agent-core's ``streamProxy`` (``processProxyEvent``) and pi-ai 1.6's ``pi-messages`` API
(``createEventConverter``) read the same events (:mod:`pi_sdk._serve.wire`) the same way: each
event keyed by its ``contentIndex``, the partial message rebuilt on this side, ``done`` and
``error`` taking the server's usage as sent (already priced there). :class:`EventDecoder` is
both, a :class:`~pi_sdk.provider.WireDecoder` for the core's read loop. What a 1.6 server adds
is read when present and not needed otherwise (a 0.73 proxy sends none of it):

* ``text_end`` / ``thinking_end`` ``content``: the block's whole text, which wins over the
  streamed one (pi-messages); ``redacted`` thinking;
* ``toolcall_end`` ``toolCall``: the whole call, laid over the streamed one (pi's
  ``Object.assign``): its final ``arguments``, ``thoughtSignature``, ``namespace``,
  ``argumentsError``;
* ``done`` / ``error``: ``providerThinkingLevel``, ``responseId``, ``responseModel``, and a
  gateway's ``rewrite`` summary, kept as a ``pi_messages_rewrite`` diagnostic (pi-ai 1.6).
"""

from __future__ import annotations

from typing import Any, Literal, cast

from pi_sdk._stream.builder import Events, MessageBuilder
from pi_sdk._stream.provider_errors import ProviderError
from pi_sdk.types import (
    Diagnostic,
    ImageContent,
    ServerToolCall,
    ServerToolResult,
    ThinkingContent,
    ToolCall,
    Usage,
)

__all__ = ["EventDecoder"]

_INDEXED = frozenset(
    {
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
)
_DONE_REASONS = ("stop", "length", "toolUse")


class EventDecoder:
    """Serialized pi events -> :class:`~pi_sdk.provider.MessageBuilder` calls.

    Args:
        builder: The call's builder.
        source: Names the server in errors: ``"proxy"`` (``stream_proxy``) or the model's
            provider (a ``pi-messages`` backend).

    An unknown event type is skipped (pi's proxy client warns and skips it).

    Raises (from :meth:`feed`):
        ProviderError: an event for a block that is not open or of another kind (pi: "Received
            text_delta for non-text content"), a field of the wrong type, a ``done`` whose
            reason is not a stop reason, or a stream that ends before ``done`` or ``error``
            (:meth:`finish`; retried only before any content, like any cut reply).
    """

    __slots__ = ("_builder", "_source", "terminal")

    def __init__(self, builder: MessageBuilder, *, source: str = "proxy") -> None:
        self._builder = builder
        self._source = source
        self.terminal = False

    def feed(self, data: dict[str, Any]) -> Events:
        """Apply one event; return the events it causes."""
        kind = data.get("type")
        b = self._builder
        if kind in _INDEXED:
            index = self._field(data, "contentIndex", int)
            if kind == "text_delta":
                return b.append_text(index, self._field(data, "delta", str))
            if kind == "thinking_delta":
                return b.append_thinking(index, self._field(data, "delta", str))
            if kind == "toolcall_delta":
                return b.append_arguments(index, self._field(data, "delta", str))
            if kind == "text_start":
                return b.open_text(index)
            if kind == "thinking_start":
                return b.open_thinking(index)
            if kind == "toolcall_start":
                call_id = self._field(data, "id", str)
                return b.open_tool_call(index, id=call_id, name=self._field(data, "toolName", str))
            if kind == "toolcall_end":
                return self._end_call(index, data.get("toolCall"))
            return self._end_prose(kind, index, data)
        if kind == "done" or kind == "error":
            return self._finish(kind, data)
        if kind == "servertool_call" or kind == "servertool_result" or kind == "image":
            return self._server_block(kind, data)
        return []  # "start" (the runner sent ours when the body began) or an unknown type

    def _server_block(self, kind: str, data: dict[str, Any]) -> Events:
        """pi-sdk's server-tool blocks and output images, sent whole (:mod:`pi_sdk._serve.wire`)."""
        try:
            if kind == "servertool_call":
                block: Any = ServerToolCall.model_validate(data.get("serverToolCall"))
            elif kind == "image":
                block = ImageContent.model_validate(data.get("image"))
            else:
                block = ServerToolResult.model_validate(data.get("serverToolResult"))
        except ValueError as exc:
            raise self._malformed(f"bad {kind}: {exc}") from None
        return self._builder.server_block(block)

    def _end_prose(self, kind: str, index: int, data: dict[str, Any]) -> Events:
        b = self._builder
        raw = data.get("contentSignature")
        signature = raw if isinstance(raw, str) else None
        content = data.get("content")
        text = content if isinstance(content, str) else None
        if kind == "text_end":
            return b.end_text(index, text=text, signature=signature)
        block = b.block(index)
        if data.get("redacted") is True and isinstance(block, ThinkingContent):
            block.redacted = True
        return b.end_thinking(index, text=text, signature=signature)

    def _end_call(self, index: int, whole: Any) -> Events:
        b = self._builder
        if b.kind(index) != "toolcall":
            return []  # pi's proxy client ignores an end for a block that is not a call
        call = b.block(index)
        events = b.end_tool_call(index)
        if isinstance(call, ToolCall) and isinstance(whole, dict):
            _lay_over(call, cast("dict[str, Any]", whole))
        return events

    def _finish(self, kind: Literal["done", "error"], data: dict[str, Any]) -> Events:
        b = self._builder
        message = b.message
        usage = data.get("usage")
        if isinstance(usage, dict):
            try:
                message.usage = Usage.model_validate(usage)
            except ValueError as exc:
                raise self._malformed(f"bad usage: {exc}") from None
        b.set_response(id=data.get("responseId"), model=data.get("responseModel"))
        level = data.get("providerThinkingLevel")
        if isinstance(level, str):
            message.provider_thinking_level = level
        rewrite = data.get("rewrite")
        if isinstance(rewrite, dict):
            note = Diagnostic(type="pi_messages_rewrite", details=dict(rewrite))  # pyright: ignore[reportUnknownArgumentType]
            message.diagnostics = [*(message.diagnostics or []), note]
        reason = data.get("reason")
        self.terminal = True
        if kind == "done":
            if reason not in _DONE_REASONS:
                raise self._malformed(f"done with reason {reason!r}")
            return b.done(reason, exact=True)
        text = data.get("errorMessage")
        if not isinstance(text, str):
            text = f"the {self._source} reported an error"
        return b.error(text, reason="aborted" if reason == "aborted" else "error")

    def feed_document(self, document: Any) -> Events:
        """Refuse a whole JSON answer: the server streams events."""
        raise ProviderError(
            f"the {self._source} answered with a JSON document instead of an event stream"
        )

    def finish(self, *, saw_done: bool) -> Events:
        """Nothing to add after ``done``/``error``; without one the reply is incomplete."""
        if not self.terminal:
            raise ProviderError(
                f"the {self._source} stream ended before its done or error event", incomplete=True
            )
        return []

    def _field(self, data: dict[str, Any], name: str, kind: type[Any]) -> Any:
        value = data.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise self._malformed(f"{data.get('type')!r} needs {name!r} of type {kind.__name__}")
        return value

    def _malformed(self, what: str) -> ProviderError:
        return ProviderError(f"malformed {self._source} event: {what}")


def _lay_over(call: ToolCall, whole: dict[str, Any]) -> None:
    """Lay the server's whole call over the streamed one (pi: ``Object.assign``).

    Fields of the wrong type are left as streamed (the streamed call is valid data already).
    """
    arguments = whole.get("arguments")
    if isinstance(arguments, dict):
        call.arguments = dict(arguments)  # pyright: ignore[reportUnknownArgumentType]
    for key, field in (
        ("id", "id"),
        ("name", "name"),
        ("thoughtSignature", "thought_signature"),
        ("namespace", "namespace"),
        ("argumentsError", "arguments_error"),
    ):
        value = whole.get(key)
        if isinstance(value, str):
            setattr(call, field, value)
