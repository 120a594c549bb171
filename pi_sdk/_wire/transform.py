"""Cross-provider history transform: make any stored history valid for the target model.

Every provider calls :func:`transform_messages` on ``context.messages`` before converting them to
its wire format (pi-mono ``transformMessages``, pi-spec §5). The stored transcript is never
changed; the result is a new list that may share unchanged message and block objects with the
input, so treat it as read-only.

Rules, per message, in one pass:

* **Assistant turns** whose ``stop_reason`` is ``error`` or ``aborted`` are skipped, with their tool
  calls (an aborted stream cut mid-thinking never reaches the wire). A turn left with no content
  is skipped too (vendors reject empty assistant messages).
* A turn is from the **same source** (:func:`is_same_source`) when provider, API and model id
  match the target (pi-mono) *and*, when the turn records where its signatures were minted
  (``AssistantMessage.signature_origin``, see :func:`signature_origin`), that origin is the
  target's. A signature minted by a proxy, Bedrock or another host is thus never replayed to a
  host that would reject it. Turns without an origin (pi-mono, older files) are judged as pi-mono
  does.
* **Thinking**, same source: kept with its signature. An empty or whitespace signature counts as
  *unsigned*: the block is kept with ``thinking_signature=None`` (never ``""``), or dropped when its
  text is blank too. Redacted thinking is kept only when signed by the same source.
* **Thinking**, other source: redacted thinking is dropped; otherwise the per-call
  ``foreign_reasoning`` policy applies: ``"drop"`` (pi-ai 1.6, the default), ``"text"`` (pi-ai
  0.73: a plain text block) or ``"tagged"`` (text wrapped in ``<thinking>…</thinking>``). Blank
  thinking is dropped.
* **Server-side tool blocks** (:class:`~pi_sdk.types.ServerToolCall`,
  :class:`~pi_sdk.types.ServerToolResult`: a vendor's web search, code execution...), same
  source: kept as they are (the adapter replays their ``raw`` vendor JSON); other source: each
  becomes a text block, :func:`pi_sdk._wire.server_tools.server_block_text` (the call and its
  arguments; the result's sources and outputs).
* **Text**, other source: ``text_signature`` and ``citations`` dropped (a vendor's citations
  are its own); the sources the turn cited become one text block after its last cited text
  block, :func:`pi_sdk._wire.citations.cited_sources_text`. **Images the model made**
  (:class:`~pi_sdk.types.ImageContent` in an assistant turn), same source: kept with their
  signature; other source: a text block, :func:`pi_sdk._wire.citations.image_output_text`.
  **Tool calls**, other source:
  ``thought_signature`` dropped and the id normalized for the target by the adapter's
  ``normalize_tool_call_id`` (built from :mod:`pi_sdk._wire.ids`).
* **Tool-call ids**: empty ids and ids already used by an earlier call get a deterministic
  replacement (``call_<hash of message timestamp, model, position, name>``), also for the same
  source. One mapping is applied to a call and to its result; results with a repeated original id
  (Gemini id-less calls) are matched in order, preferring the same tool name.
* **Tool results**: a result whose call is not among the pending calls of the preceding kept
  assistant turn (its turn was skipped, or a user message came between) or that repeats an
  earlier result is dropped: every vendor rejects such a result. A pending call without a result
  gets a synthetic error result (``"No result provided"``) before the next user or assistant
  message; calls still pending at the end of the history get none (their results may follow).
* **System messages** (pi-ai 1.6) pass through unchanged and in order; one that lands between
  a tool call and its results waits until after the results (synthetic ones included), so it
  never splits a call from its result (pi-ai 1.6 ``transformMessages``).
* **Images** sent to a model whose ``input`` lacks ``"image"`` become the text
  :data:`IMAGE_PLACEHOLDER_TEXT`, in user messages and in tool results.
* **Documents** (:class:`~pi_sdk.types.DocumentContent`, in user messages and tool results) are
  checked against what the target API takes (``documents=``, the adapter's
  :class:`~pi_sdk._wire.documents.DocumentRules`): a text document the target does not take
  natively becomes a text block; any other kind it does not take is a ``ConfigurationError``
  naming the model, the kind and ``messages[i].content[j]`` (:mod:`pi_sdk._wire.documents`).
* **Tool calls with invalid arguments** (``ToolCall.invalid_arguments`` or pi-ai 1.6's
  ``ToolCall.arguments_error`` set: the model's text was not a whole JSON object) are sent with
  ``{}`` as their arguments: valid on every wire API (an object where the API takes one,
  ``"{}"`` where it takes a string), while the raw text stays in the transcript and in the error
  result the agent gave the call.
* **Lone surrogates** are removed from every string that can reach the wire: text, thinking,
  tool-call names and arguments (keys and values, recursively), tool names and result text.
* **Reasoning replay for OpenAI-compatible servers.** Some ``openai-completions`` servers
  (DeepSeek thinking mode, Kimi) must get reasoning back in the assistant message's
  ``reasoning_content`` field. The adapter says so (``reasoning_content=True``, from its table of
  servers); without that argument ``model.compat["requiresReasoningContent"]``
  (:data:`REQUIRES_REASONING_CONTENT`) decides. For such a target, foreign thinking (policy
  ``text`` or ``tagged``) stays a :class:`ThinkingContent` with
  ``thinking_signature="reasoning_content"`` instead of becoming text. The completions adapter
  then sends, on every assistant message with ``tool_calls``, ``reasoning_content`` = the joined
  thinking text, ``""`` when there is none.

Adapter contract: after this function, every ``ThinkingContent`` has a non-empty signature the
target accepts, or ``thinking_signature is None`` (unsigned: send it as text, or in the API's
unsigned reasoning field, never as a signed block with an empty signature); tool-call ids are
non-empty, unique in the history and valid for the target. An adapter passes the base URL it
actually sends to (its client's, which may differ from ``model.base_url``: a custom
``StreamOptions.client``, an SDK default for an empty ``model.base_url``) as
``origin=signature_origin(model, base_url=<actual URL>)`` here and as ``base_url=`` to
:func:`pi_sdk._stream.assistant_message.new_assistant_message`.
"""

from __future__ import annotations

import functools
import re
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from pydantic import BaseModel

from pi_sdk._wire.citations import cited_sources_text, image_output_text
from pi_sdk._wire.documents import DocumentRules, prepare_document
from pi_sdk._wire.ids import ToolCallIdNormalizer, short_hash
from pi_sdk._wire.invalid_arguments import has_invalid_arguments
from pi_sdk._wire.lean import copy_with
from pi_sdk._wire.server_tools import server_block_text
from pi_sdk._wire.unicode import sanitize_surrogates
from pi_sdk.options import ForeignReasoning
from pi_sdk.types import (
    AssistantContent,
    AssistantMessage,
    Citation,
    DocumentContent,
    ImageContent,
    Message,
    Model,
    ServerToolCall,
    ServerToolResult,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserContent,
    UserMessage,
)

__all__ = [
    "IMAGE_PLACEHOLDER_TEXT",
    "NO_RESULT_TEXT",
    "REASONING_CONTENT_FIELD",
    "REQUIRES_REASONING_CONTENT",
    "ToolCallIdNormalizer",
    "is_same_model",
    "is_same_source",
    "signature_origin",
    "transform_messages",
]

NO_RESULT_TEXT = "No result provided"
"""Text of the synthetic error result of a tool call that has none (pi-mono)."""

IMAGE_PLACEHOLDER_TEXT = "(image omitted: this model does not accept images)"
"""Text that replaces an image sent to a text-only model."""

REQUIRES_REASONING_CONTENT = "requiresReasoningContent"
"""``model.compat`` flag (bool) of OpenAI-compatible servers that need reasoning passed back."""

REASONING_CONTENT_FIELD = "reasoning_content"
"""Assistant-message field that carries replayed reasoning for those servers."""

_VERSION_SUFFIX = re.compile(r"/v\d+(?:alpha|beta)?\d*$")
_DEFAULT_PORTS = {"http": 80, "https": 443}


@functools.lru_cache(maxsize=64)
def _normalize_base_url(url: str) -> str:
    # A pure function of the string, asked twice per call (the request's origin and the new
    # message's): cached, so a call does not parse its base URL again.
    url = url.strip()
    if not url:
        return ""
    parts = urlsplit(url if "://" in url else f"https://{url}")
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    scheme = parts.scheme.lower()
    netloc = host if port is None or _DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    path = _VERSION_SUFFIX.sub("", parts.path.rstrip("/"))
    return f"{scheme}://{netloc}{path}"


def signature_origin(model: Model, base_url: str | None = None) -> str:
    """Return the origin a signature minted by ``model`` is bound to: ``"<api>@<base URL>"``.

    The base URL is ``base_url`` if given and not empty (the URL actually called), else
    ``model.base_url``; with neither, the origin is ``"<api>@"`` (core knows no vendor
    endpoints: a provider passes the URL it calls, e.g. its SDK client's default). It is
    normalized: scheme and host lower-cased, default port,
    user info, query (an API key in ``?key=`` never lands in a session file), fragment, trailing
    ``/`` and a trailing version segment (``/v1``, ``/v1beta``) removed. Example:
    ``"anthropic-messages@https://api.anthropic.com"``.

    :func:`pi_sdk._stream.assistant_message.new_assistant_message` stamps it on every new message as
    ``AssistantMessage.signature_origin`` (JSON ``signatureOrigin``; pi-mono ignores and keeps
    it), and :func:`transform_messages` replays signatures only to the same origin.
    """
    return f"{model.api}@{_normalize_base_url(base_url or model.base_url)}"


def is_same_model(message: AssistantMessage, model: Model) -> bool:
    """True when ``message`` came from ``model``'s provider, API and id (pi-mono)."""
    return (
        message.provider == model.provider
        and message.api == model.api
        and message.model == model.id
    )


def is_same_source(message: AssistantMessage, model: Model, origin: str | None = None) -> bool:
    """True when ``message``'s signatures may be replayed to ``model``.

    Args:
        message: A stored assistant turn.
        model: The target model.
        origin: The target's origin; default ``signature_origin(model)``.

    Returns:
        :func:`is_same_model`, and, when the message records a ``signature_origin``, that it
        equals the target's origin. A message without one (pi-mono, older sessions) is trusted as
        pi-mono trusts it.
    """
    if not is_same_model(message, model):
        return False
    if not message.signature_origin:
        return True
    return message.signature_origin == (origin or signature_origin(model))


def _clean(value: Any) -> Any:
    """Return ``value`` (JSON data) with lone surrogates removed; the same object if unchanged."""
    if isinstance(value, str):
        return sanitize_surrogates(value)
    if isinstance(value, dict):
        items = cast(dict[Any, Any], value)
        changed = False
        cleaned: dict[Any, Any] = {}
        for key, item in items.items():
            new_key, new_item = _clean(key), _clean(item)
            changed = changed or new_key is not key or new_item is not item
            cleaned[new_key] = new_item
        return cleaned if changed else items
    if isinstance(value, list):
        seq = cast(list[Any], value)
        cleaned_list = [_clean(v) for v in seq]
        unchanged = all(a is b for a, b in zip(seq, cleaned_list, strict=True))
        return seq if unchanged else cleaned_list
    return value


def _signature(value: str | None) -> str | None:
    return value if value and value.strip() else None


_Block = TypeVar("_Block", bound=BaseModel)


def _with(block: _Block, **values: Any) -> _Block:
    """Return ``block`` with ``values`` (field name to new value) set, copying only on change.

    ``block`` itself comes back when each value is the one it holds (the same object or an equal
    one), so an unchanged history passes through without a copy.
    """
    held: dict[str, Any] = block.__dict__  # pyright: ignore[reportAssignmentType]
    update: dict[str, Any] | None = None
    for name, value in values.items():
        old = held[name]
        if value is not old and value != old:
            if update is None:
                update = {}
            update[name] = value
    return block if update is None else copy_with(block, update)


@functools.cache
def _templates() -> tuple[TextContent, ThinkingContent]:
    """The templates of the text and reasoning blocks the rules make.

    A copy of one with its text set is the block the constructor would give (same fields set),
    without validating a value already known to be a str. Made on first use: building the wire
    classes' validators at import would cost every program that never transforms a history (the
    first-use time, issue 32).
    """
    text = TextContent(text="")
    return text, ThinkingContent(thinking="", thinking_signature=REASONING_CONTENT_FIELD)


def _text_block(text: str) -> TextContent:
    """``TextContent(text=text)``, made by copying a template (see above)."""
    return copy_with(_templates()[0], {"text": text})


def _id_seed(call: ToolCall, message: AssistantMessage, position: int) -> str:
    """What a replacement tool-call id is hashed from (stable for a given history)."""
    return f"{message.timestamp}|{message.model}|{position}|{call.name}"


class _Transformer:
    def __init__(
        self,
        model: Model,
        normalize: ToolCallIdNormalizer | None,
        policy: ForeignReasoning,
        origin: str,
        reasoning_content: bool | None,
        documents: DocumentRules | None,
    ) -> None:
        self.model = model
        self.documents = documents
        self.index = 0
        """Position of the message being transformed in the input list (for errors)."""
        self.normalize = normalize
        self.policy = policy
        self.origin = origin
        self.text_only = "image" not in model.input
        if reasoning_content is None:
            compat = model.compat or {}
            reasoning_content = bool(
                compat.get(REQUIRES_REASONING_CONTENT)
                or compat.get("requiresReasoningContentOnAssistantMessages")
            )
        self.reasoning_field = reasoning_content
        self.used_ids: set[str] = set()
        self.id_map: dict[str, str] = {}
        self.turn_map: dict[str, list[tuple[str, str]]] = {}
        self.pending: dict[str, ToolCall] = {}
        self.pending_timestamp = 0
        self.seen: set[str] = set()
        self.held: list[SystemMessage] = []
        self.out: list[Message] = []

    # --- tool-call ids ---------------------------------------------------------------------

    def _claim_id(
        self, call: ToolCall, message: AssistantMessage, position: int, same: bool
    ) -> str:
        original = call.id
        if not original.strip():
            candidate = "call_" + short_hash(_id_seed(call, message, position))
            if self.normalize is not None:
                candidate = self.normalize(candidate, self.model, message)
        elif same or self.normalize is None:
            candidate = original
        else:
            candidate = self.normalize(original, self.model, message)
        attempt = 0
        while candidate in self.used_ids:
            attempt += 1
            seed = _id_seed(call, message, position)
            candidate = "call_" + short_hash(f"{original}#{attempt}|{seed}")
            if self.normalize is not None:
                candidate = self.normalize(candidate, self.model, message)
        self.used_ids.add(candidate)
        self.id_map[original] = candidate
        self.turn_map.setdefault(original, []).append((call.name, candidate))
        return candidate

    def _result_id(self, result: ToolResultMessage) -> str:
        entries = self.turn_map.get(result.tool_call_id)
        if entries:
            for i, (name, _) in enumerate(entries):
                if name == result.tool_name:
                    return entries.pop(i)[1]
            return entries.pop(0)[1]
        return self.id_map.get(result.tool_call_id, result.tool_call_id)

    # --- blocks ----------------------------------------------------------------------------

    def _thinking(self, block: ThinkingContent, same: bool) -> AssistantContent | None:
        signature = _signature(block.thinking_signature)
        if block.redacted:
            if not (same and signature):
                return None
            return _with(block, thinking_signature=signature)
        text = sanitize_surrogates(block.thinking)
        if same and signature:
            return _with(block, thinking=text, thinking_signature=signature)
        if not text.strip():
            return None
        if same:
            return copy_with(block, {"thinking": text, "thinking_signature": None})
        if self.policy == "drop":
            return None
        if self.reasoning_field:
            return copy_with(_templates()[1], {"thinking": text})
        if self.policy == "tagged":
            return _text_block(f"<thinking>\n{text}\n</thinking>")
        return _text_block(text)

    def _text(self, block: TextContent, same: bool) -> TextContent:
        text = sanitize_surrogates(block.text)
        if not same:
            plain = block.text_signature is None and block.citations is None
            if text is block.text and plain and not block.__pydantic_extra__:
                return block  # already what TextContent(text=text) would be
            return _text_block(text)
        return _with(block, text=text, text_signature=_signature(block.text_signature))

    def _tool_call(
        self, block: ToolCall, message: AssistantMessage, position: int, same: bool
    ) -> ToolCall:
        return _with(
            block,
            id=self._claim_id(block, message, position, same),
            name=sanitize_surrogates(block.name),
            arguments={} if has_invalid_arguments(block) else _clean(block.arguments),
            thought_signature=_signature(block.thought_signature) if same else None,
        )

    def _user_content(self, content: list[UserContent]) -> list[UserContent]:
        out: list[UserContent] = []
        changed = False
        for position, block in enumerate(content):
            converted = block
            if isinstance(block, ImageContent):
                if self.text_only:
                    converted = _text_block(IMAGE_PLACEHOLDER_TEXT)
            elif isinstance(block, DocumentContent):
                where = f"messages[{self.index}].content[{position}]"
                converted = prepare_document(block, self.documents, self.model, where)
            else:
                text = sanitize_surrogates(block.text)
                if text is not block.text:
                    converted = copy_with(block, {"text": text})
            changed = changed or converted is not block
            out.append(converted)
        return out if changed else content

    # --- messages --------------------------------------------------------------------------

    def flush(self) -> None:
        for call_id, call in self.pending.items():
            if call_id not in self.seen:
                self.out.append(
                    ToolResultMessage(
                        tool_call_id=call_id,
                        tool_name=call.name,
                        content=[TextContent(text=NO_RESULT_TEXT)],
                        is_error=True,
                        timestamp=self.pending_timestamp,
                    )
                )
        self.pending = {}
        self.seen = set()
        self.out.extend(self.held)
        self.held = []

    def system(self, message: SystemMessage) -> None:
        # Transparent to tool-call accounting (pi-ai 1.6 transformMessages): one that lands
        # between a tool call and its results waits until after them.
        if self.pending:
            self.held.append(message)
        else:
            self.out.append(message)

    def assistant(self, message: AssistantMessage) -> None:
        self.flush()
        self.turn_map = {}
        if message.stop_reason in ("error", "aborted"):
            return
        same = is_same_source(message, self.model, self.origin)
        content: list[AssistantContent] = []
        cited: list[Citation] = []
        after = 0  # where the text of the cited sources goes: after the last cited text block
        changed = False
        for position, block in enumerate(message.content):
            if isinstance(block, ThinkingContent):
                converted = self._thinking(block, same)
            elif isinstance(block, TextContent):
                converted = self._text(block, same)
                if not same and block.citations:
                    cited.extend(block.citations)
                    after = len(content) + 1
            elif isinstance(block, ServerToolCall | ServerToolResult):
                converted = block if same else _text_block(server_block_text(block))
            elif isinstance(block, ImageContent):
                signature = _signature(block.thought_signature) if same else None
                converted = (
                    _with(block, thought_signature=signature)
                    if same
                    else _text_block(image_output_text(block, message))
                )
            else:
                converted = self._tool_call(block, message, position, same)
                self.pending[converted.id] = converted
            if converted is None:
                changed = True
                continue
            changed = changed or converted is not block
            content.append(converted)
        sources = cited_sources_text(cited) if cited else None
        if sources is not None:
            content.insert(after, _text_block(sources))
        if not content:
            return
        self.pending_timestamp = message.timestamp
        self.out.append(copy_with(message, {"content": content}) if changed else message)

    def tool_result(self, message: ToolResultMessage) -> None:
        new_id = self._result_id(message)
        if new_id not in self.pending or new_id in self.seen:
            return
        self.seen.add(new_id)
        converted = _with(
            message,
            tool_call_id=new_id,
            tool_name=sanitize_surrogates(message.tool_name),
            content=self._user_content(message.content),
        )
        self.out.append(converted)

    def user(self, message: UserMessage) -> None:
        self.flush()
        if isinstance(message.content, str):
            content: str | list[UserContent] = sanitize_surrogates(message.content)
        else:
            content = self._user_content(message.content)
        if content is not message.content:
            message = copy_with(message, {"content": content})
        self.out.append(message)


def transform_messages(
    messages: list[Message],
    model: Model,
    *,
    normalize_tool_call_id: ToolCallIdNormalizer | None = None,
    foreign_reasoning: ForeignReasoning = "drop",
    origin: str | None = None,
    reasoning_content: bool | None = None,
    documents: DocumentRules | None = None,
) -> list[Message]:
    """Return a copy of ``messages`` that is valid history for ``model`` (pi-spec §5, improved).

    See the module docstring for every rule.

    Args:
        messages: Stored history (any provider's messages, in order). Not mutated.
        model: The target model.
        normalize_tool_call_id: Maps a foreign tool-call id to one the target API accepts
            (``normalize(id, model, source_message)``). Each provider adapter passes its API's
            normalizer, built from :mod:`pi_sdk._wire.ids`; ``None`` keeps foreign ids as
            they are (empty and duplicated ids are still replaced).
        foreign_reasoning: Policy for another source's thinking: ``"drop"`` (pi-ai 1.6, the
            default), ``"text"`` (pi-ai 0.73) or ``"tagged"`` (``<thinking>…</thinking>`` text).
        origin: Where this request goes, as :func:`signature_origin` returns it; default
            ``signature_origin(model)``.
        reasoning_content: The target wants earlier reasoning back in a ``reasoning_content``
            field (the adapter knows: its per-server table); ``None`` reads
            ``model.compat["requiresReasoningContent"]`` (or 0.73's
            ``requiresReasoningContentOnAssistantMessages``).
        documents: What the target API takes as a document (a plain dict, see
            :class:`~pi_sdk._wire.documents.DocumentRules`); ``None``: no documents (text
            documents become text, any other is an error).

    Returns:
        A new list; unchanged messages and blocks may be the input's own objects.

    Raises:
        ConfigurationError: a document the target does not take (see ``documents``).

    Example:
        ```python
        messages = transform_messages(
            context.messages, model, foreign_reasoning=options.foreign_reasoning
        )
        ```
    """
    state = _Transformer(
        model,
        normalize_tool_call_id,
        foreign_reasoning,
        origin or signature_origin(model),
        reasoning_content,
        documents,
    )
    for index, message in enumerate(messages):
        state.index = index
        if isinstance(message, AssistantMessage):
            state.assistant(message)
        elif isinstance(message, ToolResultMessage):
            state.tool_result(message)
        elif isinstance(message, SystemMessage):
            state.system(message)
        else:
            state.user(message)
    state.out.extend(state.held)
    return state.out
