"""Message, content, usage, model and context types, in pi-mono's JSON shape (pi-ai 1.6).

Every type is a pydantic v2 model. Python attributes are snake_case; the JSON (``model_dump`` /
``model_dump_json`` / ``model_validate``) uses pi-mono's camelCase names and values (``toolCall``,
``toolResult``, ``stopReason: "toolUse"``, epoch-millisecond ``timestamp``), so sessions and proxy
streams interoperate with pi-mono (pi-ai 1.6 ``types.ts``). Fields that are ``None`` are left out
of the JSON, as pi-mono leaves ``undefined`` fields out. Unknown fields are kept (``extra``), so
a round trip never loses a field a newer pi-mono or a vendor added.

This is the public module for all of them; usage and cost live in :mod:`pi_sdk._wire.usage`,
the catalog's :class:`Model` in :mod:`pi_sdk._wire.model` and the base class in
:mod:`pi_sdk._wire.wire_model`, re-exported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, Field

from pi_sdk._wire import model as _model
from pi_sdk._wire import usage as _usage
from pi_sdk._wire import wire_model as _wire_model
from pi_sdk._wire.arguments_error import arguments_error_text
from pi_sdk._wire.error_base import PiSdkError
from pi_sdk._wire.lean import own_fields_set
from pi_sdk._wire.levels import ModelThinkingLevel, ThinkingLevel
from pi_sdk._wire.model import Model as Model
from pi_sdk._wire.model import ModelCost as ModelCost
from pi_sdk._wire.model import ModelCostTier as ModelCostTier
from pi_sdk._wire.model import ModelImageInputLimits as ModelImageInputLimits
from pi_sdk._wire.model import ModelImageResize as ModelImageResize
from pi_sdk._wire.model import ModelInputLimits as ModelInputLimits
from pi_sdk._wire.model import ModelPromptCache as ModelPromptCache
from pi_sdk._wire.tool import Tool as Tool
from pi_sdk._wire.usage import Cost as Cost
from pi_sdk._wire.usage import Usage
from pi_sdk._wire.wire_model import WireModel, now_ms

if TYPE_CHECKING:
    from pi_sdk._wire.output import StructuredOutput

__all__ = [
    "AbortedError",
    "Api",
    "AssistantContent",
    "AssistantError",
    "AssistantMessage",
    "CacheRetention",
    "Citation",
    "Context",
    "DeferredHandle",
    "Diagnostic",
    "DocumentContent",
    "ImageContent",
    "Message",
    "ModelThinkingLevel",
    "NestedToolCall",
    "NestedToolCalls",
    "ServerToolCall",
    "ServerToolResult",
    "StopReason",
    "SystemMessage",
    "TextContent",
    "ThinkingContent",
    "ThinkingLevel",
    "Tool",
    "ToolCall",
    "ToolReference",
    "ToolResultMessage",
    "UserMessage",
]
# The wire types defined in the modules this one re-exports (usage, the catalog's Model, the base).
__all__ += _model.__all__
__all__ += _usage.__all__
__all__ += _wire_model.__all__

Api: TypeAlias = str
"""Wire API id, e.g. ``"anthropic-messages"``, ``"openai-responses"``."""

StopReason: TypeAlias = Literal[
    "pending", "stop", "length", "toolUse", "error", "aborted", "deferred"
]
"""Why an assistant message ended (pi-ai 1.6 ``StopReason``). ``"pending"``: a partial message
whose reply is still streaming (pi-ai 1.6 partials); ``"deferred"``: the vendor will answer later,
see :attr:`AssistantMessage.deferred` (pi-ai 1.6 deferred responses; no pi-sdk provider asks for
one yet)."""

CacheRetention: TypeAlias = Literal["none", "short", "long"]
"""Prompt-cache retention preference (pi-mono ``CacheRetention``)."""


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


class Citation(WireModel):
    """A source the vendor cites for a text block (pi-sdk extension).

    JSON: ``{"type", "url"?, "title"?, "citedText"?, "startIndex"?, "endIndex"?, "raw"?}``:
    ``type`` is the vendor's kind (Anthropic ``web_search_result_location``, ``char_location``...;
    Responses ``url_citation``), ``cited_text`` the quoted passage, ``start_index`` /
    ``end_index`` the cited span of the block's text (characters) where the vendor gives one,
    ``raw`` the vendor's own JSON, sent back as it came to the same model and endpoint.
    """

    type: str
    url: str | None = None
    title: str | None = None
    cited_text: str | None = None
    start_index: int | None = None
    end_index: int | None = None
    raw: dict[str, Any] | None = None


class TextContent(WireModel):
    """Visible text. JSON: ``{"type": "text", "text", "textSignature"?, "citations"?}``."""

    type: Literal["text"] = "text"
    text: str = ""
    text_signature: str | None = None
    """Provider metadata: OpenAI Responses message item id (JSON ``{"v":1,"id":...}``), Google
    ``thoughtSignature`` of a text part. Opaque; replayed only to the model that minted it."""
    citations: list[Citation] | None = None
    """The sources the vendor cites for this text (pi-sdk extension; pi-ai 1.6 drops them);
    ``None`` when it cites none."""

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
    """An image. JSON: ``{"type": "image", "data" (base64), "mimeType", "thoughtSignature"?}``.

    ``data`` has no ``data:`` prefix. In user messages and tool results: an image the model
    reads. In an assistant message: an image the model made (pi-ai 1.6
    ``AssistantImages.output`` has the same block; pi-sdk extension in a reply): a Gemini image
    model's ``inlineData`` part, an OpenAI Responses ``image_generation_call`` result
    (``docs/server-tools.md``, "Image output").
    """

    type: Literal["image"] = "image"
    data: str
    mime_type: str
    thought_signature: str | None = None
    """The Gemini ``thoughtSignature`` of an output image's part, sent back with it to the
    model that made it (pi-sdk extension); ``None`` elsewhere."""


class DocumentContent(WireModel):
    """A document (a PDF, a text file...) in a user message or a tool result (pi-sdk extension).

    JSON: ``{"type": "document", "data"?, "mimeType"?, "url"?, "fileId"?, "name"?}``, in the
    style of pi's ``ImageContent``; pi-ai 1.6 has no document block (``docs/pi-ai-differences.md``).
    Exactly one source is set:

    * ``data``: the file's bytes, base64 (no ``data:`` prefix), with ``mime_type``
      (``"application/pdf"``, ``"text/plain"``...);
    * ``url``: where the vendor fetches it (``https://``; Vertex also ``gs://``, Bedrock
      ``s3://``); ``mime_type`` optional;
    * ``file_id``: a file uploaded to the vendor beforehand (OpenAI ``file-...``, Anthropic
      ``file_...``, a Gemini file URI, Mistral's file id); ``mime_type`` optional.

    ``name`` is the file name or title shown to the model (Anthropic ``title``, OpenAI
    ``filename``, Bedrock ``name``, Mistral ``document_name``).

    Each provider sends it natively (``docs/documents.md``); a kind a target cannot take is a
    :class:`pi_sdk.ConfigurationError` before the request, naming the model, the kind and the
    block's place in the history, except text documents, which become a text block there.

    Raises:
        ValueError: (at construction) no source or more than one, or ``data`` without
            ``mime_type``.
    """

    type: Literal["document"] = "document"
    data: str | None = None
    mime_type: str | None = None
    url: str | None = None
    file_id: str | None = None
    name: str | None = None

    def model_post_init(self, context: Any, /) -> None:
        """Check that exactly one source is given, then make the block lean."""
        sources = [n for n in ("data", "url", "file_id") if getattr(self, n) is not None]
        if len(sources) != 1:
            raise ValueError(
                "a document block needs exactly one of data, url, fileId; "
                f"got {', '.join(sources) or 'none'}"
            )
        if self.data is not None and not self.mime_type:
            raise ValueError("a document block with data needs a mimeType (e.g. application/pdf)")
        super().model_post_init(context)

    @property
    def source(self) -> Literal["data", "url", "fileId"]:
        """Which source the block has: ``"data"``, ``"url"`` or ``"fileId"``."""
        if self.data is not None:
            return "data"
        return "url" if self.url is not None else "fileId"


class ToolCall(WireModel):
    """A tool call requested by the model.

    JSON: ``{"type": "toolCall", "id", "name", "arguments", "thoughtSignature"?, "namespace"?,
    "argumentsError"?, "invalidArguments"?}`` (pi-ai 1.6 ``ToolCall``, plus pi-sdk's
    ``invalidArguments``).
    """

    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict[str, Any])
    """Parsed JSON arguments; during streaming, the best partial parse (always a dict)."""
    thought_signature: str | None = None
    """Gemini function-call thought signature (or OpenRouter encrypted reasoning detail)."""
    namespace: str | None = None
    """The OpenAI Responses namespace of a namespaced or dynamically loaded tool (pi-ai 1.6
    ``namespace``); ``None`` for a plain tool."""
    arguments_error: str | None = None
    """Set when the model's final argument text was not one JSON object (pi-ai 1.6
    ``argumentsError``): why, then ``"\n\nReceived arguments:\n"`` and the text. The agent never
    runs such a call; it answers with an error result. pi-ai 1.6 then sets ``arguments`` to ``{}``.

    Setting :attr:`invalid_arguments` (at construction or later) fills it when it is unset
    (:func:`pi_sdk._wire.arguments_error.arguments_error_text`), so a malformed call pi-sdk
    writes carries pi 1.6's mark as well as its own."""
    invalid_arguments: str | None = None
    """pi-sdk's mark of a malformed call: the raw argument text as received (``""`` for a call
    the reply cut off before any argument text). JSON ``invalidArguments``, present only when set
    (a pi-sdk extension, read and written since before pi 1.6; pi-mono files load unchanged).
    ``arguments`` then holds the best partial parse, for display only: the agent never runs such
    a call (it answers with an error result), and every provider replays it with ``{}`` as its
    arguments (:func:`pi_sdk.provider.transform_messages`).
    """

    def model_post_init(self, context: Any, /) -> None:
        """Fill :attr:`arguments_error` from :attr:`invalid_arguments`, then make it lean."""
        raw = self.invalid_arguments
        if raw is not None and self.arguments_error is None:
            vars(self)["arguments_error"] = arguments_error_text(raw)
            own_fields_set(self).add("arguments_error")  # compact() shares the set afterwards
        super().model_post_init(context)

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name == "invalid_arguments" and value is not None and self.arguments_error is None:
            super().__setattr__("arguments_error", arguments_error_text(value))


class ServerToolCall(WireModel):
    """A call of a tool the vendor ran itself: web search, code execution, URL fetch, MCP...

    JSON: ``{"type": "serverToolCall", "id", "name", "arguments", "raw"?}`` (pi-sdk extension;
    pi-ai 1.6 drops these blocks). ``raw`` is the vendor's own JSON of the block (an Anthropic
    ``server_tool_use``...), kept as it came and sent back as it is to the same model and
    endpoint (as signatures are); another target gets a text summary instead
    (:func:`pi_sdk.provider.transform_messages`, ``docs/server-tools.md``). The agent never
    runs such a call: it is not a :class:`ToolCall`.
    """

    type: Literal["serverToolCall"] = "serverToolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict[str, Any])
    raw: dict[str, Any] | None = None


class ServerToolResult(WireModel):
    """The result of a :class:`ServerToolCall`, as the vendor returned it in the reply.

    JSON: ``{"type": "serverToolResult", "toolCallId", "kind", "content", "error"?, "raw"?}``:
    ``kind`` is the vendor's result type (``"web_search_tool_result"``...), ``content`` its
    payload (search results, stdout...) as JSON data, ``error`` the vendor's error code when
    the tool failed, ``raw`` the whole vendor block (see :class:`ServerToolCall`).
    """

    type: Literal["serverToolResult"] = "serverToolResult"
    tool_call_id: str
    kind: str
    content: Any = None
    error: str | None = None
    raw: dict[str, Any] | None = None


AssistantContent: TypeAlias = Annotated[
    TextContent | ThinkingContent | ToolCall | ServerToolCall | ServerToolResult | ImageContent,
    Field(discriminator="type"),
]
UserContent: TypeAlias = Annotated[
    TextContent | ImageContent | DocumentContent, Field(discriminator="type")
]


# --- usage ----------------------------------------------------------------------------------


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


class DeferredHandle(WireModel):
    """Where to fetch a reply the vendor will give later (pi-ai 1.6 ``DeferredHandle``).

    JSON: ``{"provider", "modelId", "api", "id", "expiresAt"?, "pollAfterMs"?, "data"?}``: the
    vendor's token for the reply (a response id, a batch id), when it expires (ms since the
    epoch), how long to wait before polling (ms), and provider data needed to rebuild the final
    message. Carried by a message with ``stop_reason == "deferred"``; no pi-sdk provider asks for
    deferred replies yet, so this type only keeps pi 1.6 transcripts whole.
    """

    provider: str
    model_id: str
    api: str
    id: str
    expires_at: int | None = None
    poll_after_ms: int | None = None
    data: Any = None


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
    provider_thinking_level: str | None = None
    """The vendor's own reasoning setting this reply was made with (an Anthropic effort, an
    OpenAI ``reasoning.effort``, a Gemini thinking level), exactly as sent; ``None`` for replies
    without one or from older files. pi-ai 1.6 ``providerThinkingLevel``."""
    thinking_level: ModelThinkingLevel | None = None
    """The pi level the agent loop asked for (``"off"`` .. ``"max"``); ``None`` outside the agent
    loop and in older files. pi-ai 1.6 ``thinkingLevel``."""
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
    deferred: DeferredHandle | None = None
    """Where to fetch the reply when ``stop_reason == "deferred"`` (pi-ai 1.6 ``deferred``)."""
    error_message: str | None = None
    raw_stop_reason: str | None = None
    """The vendor's own stop reason, unmapped (``"end_turn"``, ``"completed"``, ``"STOP"``...);
    ``None`` when not recorded. pi-ai 1.6 ``rawStopReason``."""
    end_turn: bool | None = None
    """Whether the vendor said the model ended its turn on purpose (pi-ai 1.6 ``endTurn``, kept
    for debugging; it steers nothing). ``None``: not reported."""
    signature_origin: str | None = None
    """Where this turn's signatures were minted, ``"<api>@<base URL>"`` (pi-sdk extension; see
    :func:`pi_sdk.provider.signature_origin`). ``None`` in messages from pi-mono or older files."""
    timestamp: int = Field(default_factory=now_ms)
    """Milliseconds since the Unix epoch, taken when the request started."""
    duration_ms: int | None = None
    """Milliseconds from :attr:`timestamp` until the reply ended, on a monotonic clock (pi-ai 1.6
    ``durationMs``, set by its event stream on the final message); ``None`` in older files and
    for replies pi-sdk made (its event stream does not measure it yet)."""
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


class NestedToolCall(WireModel):
    """One call a tool made to another tool (pi-ai 1.6 ``NestedToolCallRecord``).

    JSON: ``{"id", "name", "arguments"?, "argumentsBytes"?, "status", "durationMs"?, "error"?}``.
    ``arguments`` is left out when too large (``arguments_bytes`` then gives its UTF-8 JSON size
    in bytes); ``status`` is ``"ok"``, ``"error"`` or ``"unfinished"`` (still running when the
    calling tool finished); ``duration_ms`` in milliseconds; ``error`` the (truncated) error text.
    """

    id: str
    name: str
    arguments: dict[str, Any] | None = None
    arguments_bytes: int | None = None
    status: Literal["ok", "error", "unfinished"]
    duration_ms: int | None = None
    error: str | None = None


class NestedToolCalls(WireModel):
    """The bounded record of a tool's nested calls (pi-ai 1.6 ``NestedToolCalls``).

    JSON: ``{"calls": [...], "complete"}``; ``complete`` is false when calls were dropped,
    arguments left out or calls unfinished. Results are not recorded.
    """

    calls: list[NestedToolCall] = Field(default_factory=list[NestedToolCall])
    complete: bool = True


class ToolResultMessage(WireModel):
    """The result of one tool call, sent back to the model."""

    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[UserContent] = Field(default_factory=list[UserContent])
    details: Any = None
    """Free-form data for the application (UI, logs); never sent to the model."""
    usage: Usage | None = None
    """What the tool's own model calls used (a sub-agent, a summarizer), if it reports it; not
    part of the conversation's context accounting. pi-ai 1.6 ``usage``."""
    nested_calls: NestedToolCalls | None = None
    """The calls this tool made to other tools (codemode, MCP), for the record; never sent to the
    model. pi-ai 1.6 ``nestedCalls``."""
    is_error: bool = False
    timestamp: int = Field(default_factory=now_ms)
    """Milliseconds since the Unix epoch, taken when the result was made."""
    duration_ms: int | None = None
    """Milliseconds the tool ran, on a monotonic clock (pi-agent-core 1.6 ``durationMs``);
    ``None`` in older files (pi-sdk's agent does not measure it yet)."""

    @property
    def text(self) -> str:
        """The text blocks of the result concatenated, in order (images left out)."""
        return _joined_text(self.content)


def _joined_text(content: str | list[UserContent] | list[TextContent], sep: str = "") -> str:
    if isinstance(content, str):
        return content
    return sep.join(b.text for b in content if isinstance(b, TextContent))


class ToolReference(WireModel):
    """A tool named without its definition (pi-ai 1.6 ``ToolReference``). JSON: ``{"name"}``."""

    name: str


class SystemMessage(WireModel):
    """System instructions and tool declarations at one point of the transcript (pi-ai 1.6).

    JSON: ``{"role": "system", "content", "sections"?, "toolsAdded"?, "toolsRemoved"?,
    "timestamp"}``. The leading system message is the system prompt and the tools it declares;
    a later one changes them from that point on: ``content`` adds instructions, ``sections``
    replace prompt sections by name (``None``, JSON ``null``, removes one), ``tools_added``
    declares tools (a same-name tool is replaced), ``tools_removed`` withdraws tools by name.
    Replaying every system message in order gives the current prompt and tools
    (:func:`pi_sdk.current_system_prompt`, :func:`pi_sdk.current_tools`). A provider whose
    model accepts system messages mid-conversation sends each one in place (the prompt cache
    is kept); the others rebuild one leading prompt from the replayed state
    (:func:`pi_sdk.collapse_system_messages`). Source: pi-ai 1.6 ``SystemMessage`` (types.ts)
    and ``utils/transcript.ts``.
    """

    role: Literal["system"] = "system"
    content: str | list[TextContent] = ""
    """Instruction text: the base prompt on the leading message, added instructions later."""
    sections: dict[str, str | None] | None = None
    """Named, ordered prompt sections rendered after ``content``; ``None`` as a value removes
    the section of that name (JSON ``null``)."""
    tools_added: list[Tool] | None = None
    """Complete definitions of the tools that become available here."""
    tools_removed: list[ToolReference] | None = None
    """The tools that stop being available here."""
    timestamp: int = Field(default_factory=now_ms)
    """Milliseconds since the Unix epoch (``0`` on a leading message folded from
    ``Context.system_prompt``, as pi-ai 1.6 writes it)."""

    @property
    def text(self) -> str:
        """The ``content`` text (text blocks joined by a newline, as pi-ai 1.6 ``contentText``)."""
        return _joined_text(self.content, "\n")

    @property
    def prompt_text(self) -> str:
        """This message as a whole prompt: its text, then each section, joined by a blank line.

        Empty parts and removed sections are left out (pi-ai 1.6 ``getSystemMessageText``).
        """
        parts = [self.text, *(v for v in (self.sections or {}).values() if v is not None)]
        return "\n\n".join(p for p in parts if p)

    @property
    def update_text(self) -> str:
        """This message as an update sent in place (pi-ai 1.6 ``renderSystemMessageUpdate``).

        Its text, then each section change framed by name (``Updated system prompt section
        "x":`` / ``Removed system prompt section "x".``), joined by a blank line.
        """
        parts = [self.text] if self.text else []
        for name, value in (self.sections or {}).items():
            parts.append(
                f'Removed system prompt section "{name}".'
                if value is None
                else f'Updated system prompt section "{name}":\n\n{value}'
            )
        return "\n\n".join(parts)


Message: TypeAlias = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolResultMessage,
    Field(discriminator="role"),
]
"""Any LLM message (pi-ai 1.6 ``Message``), discriminated by ``role``."""


# --- tools, context, models -----------------------------------------------------------------


class Context(WireModel):
    """Everything sent to a model: the transcript, and optionally a prompt and tools. JSON data.

    JSON: ``{"systemPrompt"?, "messages", "tools"?}`` (pi-ai 1.6 ``Context``). The transcript
    form (pi-ai 1.6 ``TranscriptContext``) carries the prompt and tools in
    :class:`SystemMessage` entries of ``messages``; ``system_prompt`` and ``tools`` are the
    shorthand for a leading system message, folded into one by
    :func:`pi_sdk.normalize_context` before any provider reads the context (the form both
    pi-ai 0.73 and pi-sdk before 1.6 wrote, still accepted everywhere).
    """

    system_prompt: str | None = None
    messages: list[Message] = Field(default_factory=list[Message])
    tools: list[Tool] | None = None
