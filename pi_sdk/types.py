"""Message, content, usage, model and context types, in pi-mono's JSON shape.

Every type is a pydantic v2 model. Python attributes are snake_case; the JSON (``model_dump`` /
``model_dump_json`` / ``model_validate``) uses pi-mono's camelCase names and values (``toolCall``,
``toolResult``, ``stopReason: "toolUse"``, epoch-millisecond ``timestamp``), so sessions and proxy
streams interoperate with pi-mono (``packages/ai/src/types.ts``). Fields that are ``None`` are left
out of the JSON, as pi-mono leaves ``undefined`` fields out. Unknown fields are kept (``extra``), so
a round trip never loses a field a newer pi-mono or a vendor added.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)
from pydantic.alias_generators import to_camel

from pi_sdk._wire.error_base import PiSdkError
from pi_sdk._wire.lean import compact, own_fields_set, prepare_setattr
from pi_sdk._wire.levels import clamp_thinking_level, supported_thinking_levels

if TYPE_CHECKING:
    from pi_sdk._wire.output import StructuredOutput

__all__ = [
    "AbortedError",
    "Api",
    "AssistantContent",
    "AssistantError",
    "AssistantMessage",
    "CacheRetention",
    "Context",
    "Cost",
    "Diagnostic",
    "ImageContent",
    "Message",
    "Model",
    "ModelCost",
    "StopReason",
    "TextContent",
    "ThinkingContent",
    "ThinkingLevel",
    "Tool",
    "ToolCall",
    "ToolResultMessage",
    "Usage",
    "UserMessage",
    "WireModel",
    "now_ms",
]

Api: TypeAlias = str
"""Wire API id, e.g. ``"anthropic-messages"``, ``"openai-responses"``."""

StopReason: TypeAlias = Literal["stop", "length", "toolUse", "error", "aborted"]
"""Why an assistant message ended (pi-mono ``StopReason``)."""

ThinkingLevel: TypeAlias = Literal["minimal", "low", "medium", "high", "xhigh"]
_ModelThinkingLevel: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh"]
# A model's thinking level, ``off`` included (pi-ai 0.73 ``ModelThinkingLevel``); public as
# ``pi_sdk.AgentThinkingLevel``.
"""Unified reasoning level, mapped per provider (pi-spec §3.3)."""

CacheRetention: TypeAlias = Literal["none", "short", "long"]
"""Prompt-cache retention preference (pi-mono ``CacheRetention``)."""


def now_ms() -> int:
    """Return the current time in milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000


class WireModel(BaseModel):
    """Base of every wire type: camelCase JSON aliases, ``None`` fields omitted, extras kept.

    Instances are lean (:mod:`pi_sdk._wire.lean`): the set of given field names is shared between
    instances given the same fields, and an empty extras dict is not kept (``model_extra`` is
    then ``None``; equality, JSON and round trips are unchanged).
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        extra="allow",
        defer_build=True,
    )

    def model_post_init(self, context: Any, /) -> None:
        """Make the new instance lean (see the class docstring)."""
        compact(self)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in type(self).__pydantic_fields__:
            prepare_setattr(self, name)  # an unknown, private or class attribute
        elif name not in self.__pydantic_fields_set__:
            own_fields_set(self)  # pydantic adds the name to the set: it must be ours
        super().__setattr__(name, value)

    @model_serializer(mode="wrap")
    def _drop_none(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if v is not None}  # pyright: ignore[reportUnknownVariableType]
        return data


# --- content blocks -------------------------------------------------------------------------


def _append_field(block: BaseModel, name: str, piece: str) -> None:
    """Append ``piece`` to the string field ``name`` of ``block`` without copying the field.

    ``block.text += piece`` reads the field (the model's ``__dict__`` keeps a second reference),
    builds a new string and stores it: a copy of the whole text per delta, quadratic over a long
    reply (measured: 4 µs per delta at 50 KB of text, 59 µs at 500 KB). Replacing the field by
    ``""`` first (keeping its place in ``__dict__``, so the JSON keeps its field order) leaves the
    local variable the string's only reference, so CPython's ``+=`` resizes
    it in place (amortized linear). The field is set again before anything else can run, so a
    ``partial`` message is exact at every event; pydantic's ``__setattr__`` is skipped (it does
    not validate on assignment here either), and the field is marked as set, as an assignment
    would.
    """
    if not isinstance(piece, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"{name} piece must be a str, got {type(piece).__name__}")
    fields: dict[str, Any] = vars(block)
    value: str = fields[name]
    fields[name] = ""  # drop the dict's reference, keep the key's place (JSON field order)
    if piece and value and "\udc00" <= piece[0] <= "\udfff" and "\ud800" <= value[-1] <= "\udbff":
        # A surrogate pair split across two deltas (JSON "\\ud83d" then "\\ude00"): join the
        # halves into the one code point they encode, so the text stays valid Unicode.
        pair = value[-1] + piece[0]
        joined = pair.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
        value = value[:-1] + joined
        piece = piece[1:]
    value += piece
    fields[name] = value
    if name not in block.__pydantic_fields_set__:
        own_fields_set(block).add(name)


class TextContent(WireModel):
    """Visible text. JSON: ``{"type": "text", "text", "textSignature"?}``."""

    type: Literal["text"] = "text"
    text: str = ""
    text_signature: str | None = None
    """Provider metadata: OpenAI Responses message item id (JSON ``{"v":1,"id":...}``), Google
    ``thoughtSignature`` of a text part. Opaque; replayed only to the model that minted it."""

    def append(self, piece: str) -> None:
        """Append streamed text in time linear in ``len(piece)`` (see :func:`_append_field`).

        Use this, not ``block.text += piece``, for deltas: the latter copies the whole text on
        every delta (quadratic over a long reply).

        Raises:
            TypeError: ``piece`` is not a ``str``; the text is left as it was.
        """
        _append_field(self, "text", piece)


class ThinkingContent(WireModel):
    """Reasoning text.

    JSON: ``{"type": "thinking", "thinking", "thinkingSignature"?, "redacted"?}``.
    """

    type: Literal["thinking"] = "thinking"
    thinking: str = ""
    thinking_signature: str | None = None
    """Opaque signature to send back next turn: Anthropic ``signature`` (or the redacted ``data``),
    the OpenAI Responses reasoning item as JSON, a Gemini ``thoughtSignature``."""
    redacted: bool | None = None
    """True for Anthropic ``redacted_thinking``; the payload is in ``thinking_signature``."""

    def append(self, piece: str) -> None:
        """Append streamed reasoning in time linear in ``len(piece)`` (see :func:`_append_field`).

        Raises:
            TypeError: ``piece`` is not a ``str``; the thinking text is left as it was.
        """
        _append_field(self, "thinking", piece)


class ImageContent(WireModel):
    """An image. JSON: ``{"type": "image", "data" (base64, no data: prefix), "mimeType"}``."""

    type: Literal["image"] = "image"
    data: str
    mime_type: str


class ToolCall(WireModel):
    """A tool call requested by the model.

    JSON: ``{"type": "toolCall", "id", "name", "arguments", "thoughtSignature"?,
    "invalidArguments"?}``.
    """

    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict[str, Any])
    """Parsed JSON arguments; during streaming, the best partial parse (always a dict)."""
    thought_signature: str | None = None
    """Gemini function-call thought signature (or OpenRouter encrypted reasoning detail)."""
    invalid_arguments: str | None = None
    """Set only when the model's argument text was not one whole, valid JSON object: the raw
    text as received (``""`` for a call the reply cut off before any argument text).

    JSON ``invalidArguments``, present only when set (a pi-sdk extension; pi-mono files load
    unchanged). ``arguments`` then holds the best partial parse, for display only: the agent
    never runs such a call (it answers with an error result), and every provider replays it
    with ``{}`` as its arguments (:func:`pi_sdk.provider.transform_messages`).
    """


AssistantContent: TypeAlias = Annotated[
    TextContent | ThinkingContent | ToolCall, Field(discriminator="type")
]
UserContent: TypeAlias = Annotated[TextContent | ImageContent, Field(discriminator="type")]


# --- usage ----------------------------------------------------------------------------------


class Cost(WireModel):
    """Cost of one call in USD, split like :class:`Usage`."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0


class Usage(WireModel):
    """Token usage of one call.

    ``input`` counts non-cached input tokens; ``cache_read`` / ``cache_write`` count tokens read
    from / written to the prompt cache; ``output`` counts every generated token, reasoning
    included; ``total_tokens`` is the sum of the four.
    """

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: Cost = Field(default_factory=Cost)

    def update_total(self) -> None:
        """Recompute ``total_tokens`` as input + output + cache_read + cache_write."""
        self.total_tokens = self.input + self.output + self.cache_read + self.cache_write


class Diagnostic(WireModel):
    """Something notable about how a reply was obtained (pi-ai 0.73 ``AssistantMessageDiagnostic``).

    JSON: ``{"type", "timestamp" (ms since the epoch), "error"?: {"name"?, "message", "code"?},
    "details"?: {...}}``. pi-sdk writes ``type == "usage_estimated"`` (details: the estimated
    ``input`` / ``output`` token counts and ``"reason"``) when a cut or aborted reply's usage
    was estimated (:attr:`AssistantMessage.usage_estimated`).
    """

    type: str
    timestamp: int = Field(default_factory=now_ms)
    error: dict[str, Any] | None = None
    details: dict[str, Any] | None = None


# --- messages -------------------------------------------------------------------------------


class UserMessage(WireModel):
    """A user turn. ``content`` is a string or a list of text and image blocks."""

    role: Literal["user"] = "user"
    content: str | list[UserContent]
    timestamp: int = Field(default_factory=now_ms)
    """Milliseconds since the Unix epoch."""

    @property
    def text(self) -> str:
        """The text of the message: ``content`` itself, or its text blocks concatenated."""
        return _joined_text(self.content)


class AssistantMessage(WireModel):
    """A model reply, complete or partial.

    Once a call has started, failures are data: ``stop_reason`` is ``"error"`` or ``"aborted"``,
    ``error_message`` says why, and the partial content and usage are kept.
    """

    role: Literal["assistant"] = "assistant"
    content: list[AssistantContent] = Field(default_factory=list[AssistantContent])
    api: Api
    provider: str
    model: str
    """The model id the request named."""
    response_model: str | None = None
    """The model id the vendor reported in its reply (e.g. ``gpt-4o-mini-2024-07-18`` for a
    request for ``gpt-4o-mini``); ``None`` when it reported none (Bedrock, errors). pi-ai 0.73."""
    response_id: str | None = None
    """The vendor's id of this reply (Anthropic ``msg_...``, Responses ``resp_...``, Chat
    ``chatcmpl-...``, Gemini ``responseId``); ``None`` when it sent none. pi-ai 0.73."""
    diagnostics: list[Diagnostic] | None = None
    """Notes on how the reply was obtained (pi-ai 0.73 ``diagnostics``); ``None`` when there are
    none."""
    usage: Usage = Field(default_factory=Usage)
    usage_estimated: bool | None = None
    """``True`` when ``usage`` (and so its cost) was estimated by pi-sdk, not reported by the
    vendor: a reply that was aborted or cut before the vendor's usage arrived gets an estimate
    of its input (the request, about 4 characters a token) and output (what streamed), so its
    cost is never silently 0 (issue 12; pi-sdk extension, JSON ``usageEstimated``)."""
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    signature_origin: str | None = None
    """Where this turn's signatures were minted, ``"<api>@<base URL>"`` (pi-sdk extension; see
    :func:`pi_sdk.provider.signature_origin`). ``None`` in messages from pi-mono or older files."""
    timestamp: int = Field(default_factory=now_ms)
    """Milliseconds since the Unix epoch, taken when the request started."""
    # The typed answer lives in ``__pydantic_private__`` (``{"_output": ...}``), set only when
    # there is one: a declared private attribute would give every message a dict of its own.

    @property
    def output(self) -> StructuredOutput | None:
        """The typed answer of a call made with ``StreamOptions(output=...)``, else ``None``.

        A :class:`pi_sdk.options.StructuredOutput`: ``value`` (the validated object),
        ``raw`` (the reply's text), ``error`` (why it did not validate). Not serialized: a
        stored message is parsed again with :func:`pi_sdk.options.parse_output`. See
        docs/structured-output.md.
        """
        private = self.__pydantic_private__
        return None if private is None else private.get("_output")

    def set_output(self, output: StructuredOutput | None) -> None:
        """Attach a parsed answer (what a call with ``output=`` does when it ends)."""
        object.__setattr__(
            self, "__pydantic_private__", None if output is None else {"_output": output}
        )

    def raise_for_error(self) -> AssistantMessage:
        """Raise :class:`pi_sdk.AssistantError` if this message ended in an error or abort.

        Returns:
            ``self``, so calls chain (``(await complete(...)).raise_for_error()``).

        Raises:
            AbortedError: ``stop_reason == "aborted"``.
            AssistantError: ``stop_reason == "error"``.
        """
        if self.stop_reason == "aborted":
            raise AbortedError(self)
        if self.stop_reason == "error":
            raise AssistantError(self)
        return self

    @property
    def text(self) -> str:
        """The visible text blocks concatenated, in order."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool-call blocks, in order."""
        return [b for b in self.content if isinstance(b, ToolCall)]


class AssistantError(PiSdkError):
    """An assistant message ended with ``stop_reason`` ``"error"``; ``.message`` keeps all data."""

    def __init__(self, message: AssistantMessage) -> None:
        super().__init__(message.error_message or f"assistant message ended: {message.stop_reason}")
        self.assistant_message = message


class AbortedError(AssistantError):
    """The call was aborted (``stop_reason == "aborted"``)."""


class ToolResultMessage(WireModel):
    """The result of one tool call, sent back to the model."""

    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[UserContent] = Field(default_factory=list[UserContent])
    details: Any = None
    """Free-form data for the application (UI, logs); never sent to the model."""
    is_error: bool = False
    timestamp: int = Field(default_factory=now_ms)

    @property
    def text(self) -> str:
        """The text blocks of the result concatenated, in order (images left out)."""
        return _joined_text(self.content)


def _joined_text(content: str | list[UserContent]) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.text for b in content if isinstance(b, TextContent))


Message: TypeAlias = Annotated[
    UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")
]
"""Any LLM message (pi-mono ``Message``), discriminated by ``role``."""


# --- tools, context, models -----------------------------------------------------------------


class Tool(WireModel):
    """A tool the model may call. ``parameters`` is a JSON Schema object."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class Context(WireModel):
    """Everything sent to a model: system prompt, messages and tools. Plain JSON data."""

    system_prompt: str | None = None
    messages: list[Message] = Field(default_factory=list[Message])
    tools: list[Tool] | None = None


class ModelCost(WireModel):
    """Prices in USD per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


class Model(WireModel):
    """A model a wire API can call (pi-mono ``Model``).

    ``api`` selects the registered provider implementation; ``provider`` names who serves it
    (used for API-key lookup and cross-provider history rules). ``compat`` holds API-specific
    flags, e.g. the OpenAI Chat Completions compat flags (pi-spec §1.7).
    """

    id: str
    name: str = ""
    api: Api
    provider: str
    base_url: str = ""
    reasoning: bool = False
    input: list[Literal["text", "image"]] = Field(default_factory=lambda: ["text"])
    cost: ModelCost = Field(default_factory=ModelCost)
    context_window: int = 128_000
    """Tokens."""
    max_tokens: int = 16_384
    """Maximum output tokens."""
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None
    thinking_level_map: dict[str, str | None] | None = None
    """pi-ai 0.73 ``thinkingLevelMap``: per level (``off``, ``minimal`` .. ``xhigh``) the
    vendor's value, or ``None`` for a level the model does not support. ``xhigh`` is supported
    only when named here. ``None`` (the default): every level up to ``high``."""

    def supported_thinking_levels(self) -> list[_ModelThinkingLevel]:
        """The thinking levels this model accepts, lowest first (``["off"]`` without reasoning).

        pi-ai 0.73 ``getSupportedThinkingLevels``: ``off`` .. ``high`` for a reasoning model,
        plus ``xhigh`` when :attr:`thinking_level_map` names it, minus the levels it maps to
        ``None``.
        """
        levels = supported_thinking_levels(self.reasoning, self.thinking_level_map)
        return levels  # pyright: ignore[reportReturnType]

    def clamp_thinking_level(self, level: _ModelThinkingLevel) -> _ModelThinkingLevel:
        """The supported level nearest ``level``: itself, else the next one up, else down.

        pi-ai 0.73 ``clampThinkingLevel`` (e.g. ``"xhigh"`` on a model without it gives
        ``"high"``; any level on a model without reasoning gives ``"off"``).

        Raises:
            ValueError: ``level`` is not ``"off"``, ``"minimal"`` .. ``"xhigh"``.
        """
        clamped = clamp_thinking_level(level, self.reasoning, self.thinking_level_map)
        return clamped  # pyright: ignore[reportReturnType]
