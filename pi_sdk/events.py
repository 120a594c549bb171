"""The normalized streaming events every provider produces (pi-mono ``AssistantMessageEvent``).

A call yields ``start``, then per content block ``*_start``, ``*_delta``..., ``*_end``, then exactly
one terminal ``done`` or ``error``. Every event carries ``partial``: the assistant message being
built, the same mutable object throughout one call (pi-mono behaviour; copy it to keep a
snapshot). Events are light slotted dataclasses; :func:`event_to_dict` gives pi-mono's JSON shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal, TypeAlias

from pi_sdk.types import AssistantMessage, ImageContent, ServerToolCall, ServerToolResult, ToolCall

__all__ = [
    "AssistantMessageEvent",
    "DoneEvent",
    "ErrorEvent",
    "ImageEvent",
    "ServerToolCallEvent",
    "ServerToolResultEvent",
    "StartEvent",
    "TextDeltaEvent",
    "TextEndEvent",
    "TextStartEvent",
    "ThinkingDeltaEvent",
    "ThinkingEndEvent",
    "ThinkingStartEvent",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
    "event_to_dict",
]


@dataclass(slots=True, kw_only=True)
class StartEvent:
    """The call started; ``partial`` has no content yet."""

    partial: AssistantMessage = field(repr=False, compare=False)
    type: Literal["start"] = "start"


@dataclass(slots=True, kw_only=True)
class TextStartEvent:
    """A text block was appended at ``content_index``."""

    content_index: int
    partial: AssistantMessage = field(repr=False, compare=False)
    type: Literal["text_start"] = "text_start"


@dataclass(slots=True, kw_only=True)
class TextDeltaEvent:
    """``delta`` was appended to the text block at ``content_index``."""

    content_index: int
    delta: str
    partial: AssistantMessage = field(repr=False, compare=False)
    type: Literal["text_delta"] = "text_delta"


@dataclass(slots=True, kw_only=True)
class TextEndEvent:
    """The text block at ``content_index`` is complete; ``content`` is its full text."""

    content_index: int
    content: str
    partial: AssistantMessage = field(repr=False, compare=False)
    type: Literal["text_end"] = "text_end"


@dataclass(slots=True, kw_only=True)
class ThinkingStartEvent:
    """A thinking block was appended at ``content_index``."""

    content_index: int
    partial: AssistantMessage = field(repr=False, compare=False)
    type: Literal["thinking_start"] = "thinking_start"


@dataclass(slots=True, kw_only=True)
class ThinkingDeltaEvent:
    """``delta`` was appended to the thinking block at ``content_index``."""

    content_index: int
    delta: str
    partial: AssistantMessage = field(repr=False, compare=False)
    type: Literal["thinking_delta"] = "thinking_delta"


@dataclass(slots=True, kw_only=True)
class ThinkingEndEvent:
    """The thinking block at ``content_index`` is complete; ``content`` is its full text."""

    content_index: int
    content: str
    partial: AssistantMessage = field(repr=False, compare=False)
    type: Literal["thinking_end"] = "thinking_end"


@dataclass(slots=True, kw_only=True)
class ToolCallStartEvent:
    """A tool-call block was appended at ``content_index`` (id and name known)."""

    content_index: int
    partial: AssistantMessage = field(repr=False, compare=False)
    type: Literal["toolcall_start"] = "toolcall_start"


@dataclass(slots=True, kw_only=True)
class ToolCallDeltaEvent:
    """A raw JSON fragment of the arguments arrived; ``partial`` holds the parsed-so-far dict."""

    content_index: int
    delta: str
    partial: AssistantMessage = field(repr=False, compare=False)
    type: Literal["toolcall_delta"] = "toolcall_delta"


@dataclass(slots=True, kw_only=True)
class ToolCallEndEvent:
    """The tool call at ``content_index`` is complete; ``tool_call`` has the final arguments."""

    content_index: int
    tool_call: ToolCall
    partial: AssistantMessage = field(repr=False, compare=False)
    type: Literal["toolcall_end"] = "toolcall_end"


@dataclass(slots=True, kw_only=True)
class ServerToolCallEvent:
    """The vendor called one of its own tools (a search, code...): a whole block.

    Appended at ``content_index`` (pi-sdk extension; no start/delta/end: the call is complete).
    """

    content_index: int
    server_tool_call: ServerToolCall
    partial: AssistantMessage = field(repr=False, compare=False)
    type: Literal["servertool_call"] = "servertool_call"


@dataclass(slots=True, kw_only=True)
class ServerToolResultEvent:
    """The result of a server tool's call arrived: a whole block at ``content_index``.

    pi-sdk extension, as :class:`ServerToolCallEvent`.
    """

    content_index: int
    server_tool_result: ServerToolResult
    partial: AssistantMessage = field(repr=False, compare=False)
    type: Literal["servertool_result"] = "servertool_result"


@dataclass(slots=True, kw_only=True)
class ImageEvent:
    """The model made an image: a whole :class:`~pi_sdk.types.ImageContent` at ``content_index``.

    A Gemini image model's part, an OpenAI image generation. pi-sdk extension, as
    :class:`ServerToolCallEvent` (pi-ai 1.6 streams no images).
    """

    content_index: int
    image: ImageContent
    partial: AssistantMessage = field(repr=False, compare=False)
    type: Literal["image"] = "image"


@dataclass(slots=True, kw_only=True)
class DoneEvent:
    """The call ended normally. ``reason == message.stop_reason``.

    ``"deferred"`` (pi-ai 1.6): the vendor will answer later, from ``message.deferred``; no pi-sdk
    provider asks for that yet, but a pi 1.6 server's stream may end so.
    """

    reason: Literal["stop", "length", "toolUse", "deferred"]
    message: AssistantMessage
    type: Literal["done"] = "done"

    @property
    def partial(self) -> AssistantMessage:
        """The final message (same object as ``message``)."""
        return self.message


@dataclass(slots=True, kw_only=True)
class ErrorEvent:
    """The call failed or was aborted.

    ``error`` is the final assistant message (pi-mono naming): ``stop_reason == reason``,
    ``error_message`` set, partial content and usage kept.
    """

    reason: Literal["error", "aborted"]
    error: AssistantMessage
    type: Literal["error"] = "error"

    @property
    def partial(self) -> AssistantMessage:
        """The final message (same object as ``error``)."""
        return self.error

    @property
    def message(self) -> AssistantMessage:
        """The final message (same object as ``error``)."""
        return self.error


AssistantMessageEvent: TypeAlias = (
    StartEvent
    | TextStartEvent
    | TextDeltaEvent
    | TextEndEvent
    | ThinkingStartEvent
    | ThinkingDeltaEvent
    | ThinkingEndEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | ServerToolCallEvent
    | ServerToolResultEvent
    | ImageEvent
    | DoneEvent
    | ErrorEvent
)
"""One of the 15 stream events, discriminated by ``type``: pi-mono's 12 ``AssistantMessageEvent``
types, pi-sdk's two server-tool events and its ``image`` event."""

_WIRE_NAMES = {
    "content_index": "contentIndex",
    "tool_call": "toolCall",
    "server_tool_call": "serverToolCall",
    "server_tool_result": "serverToolResult",
}


def event_to_dict(event: AssistantMessageEvent, *, include_partial: bool = True) -> dict[str, Any]:
    """Return the event in pi-mono's JSON shape, e.g. ``{"type": "text_delta", "contentIndex": 0}``.

    Args:
        event: Any assistant-message event.
        include_partial: Include ``partial`` (the message so far). pi-mono's proxy protocol strips
            it; terminal events always carry their message.
    """
    out: dict[str, Any] = {"type": event.type}
    for f in fields(event):
        name = f.name
        if name == "type" or (name == "partial" and not include_partial):
            continue
        value = getattr(event, name)
        key = _WIRE_NAMES.get(name, name)
        out[key] = value.model_dump(mode="json") if hasattr(value, "model_dump") else value
    return out
