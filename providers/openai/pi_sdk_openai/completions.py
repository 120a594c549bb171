"""The ``openai-completions`` wire API: OpenAI Chat Completions and every compatible server.

One adapter serves OpenAI, Azure, Groq, Cerebras, xAI, OpenRouter, DeepSeek, z.ai, Hugging Face,
and local servers (vLLM, Ollama, LM Studio, llama.cpp); what differs between them is described by
the compatibility flags of :mod:`pi_sdk_openai.compat` (pi-spec §1.7).

Request (:func:`build_completions_payload`, pi-spec §4.2): system prompt (role ``developer`` for
reasoning models where supported), user text and images, assistant history (text as one string,
tool calls, earlier reasoning in the field the server sent it in), tool results (text in the
``tool`` message; their images in one user message after the run of results), tools,
``reasoning_effort`` (or the server's own switch), the max-tokens field, ``stream_options``,
``store: false``.

``provider_options`` keys: ``tool_choice`` (``"auto"``, ``"none"``, ``"required"`` or
``{"type": "function", "function": {"name": ...}}``) and ``reasoning_effort`` (a string sent
as is, overriding ``options.reasoning``).

Stream (:class:`CompletionsDecoder`): ``content`` → text; the first non-empty of
``reasoning_content`` / ``reasoning`` / ``reasoning_text`` → thinking, whose
``thinking_signature`` names the field (pi-mono, used to replay it in the same field);
``tool_calls`` assembled by ``index``; ``refusal`` collected apart from the text; usage from the
last chunk that carries it. See the decoder's docstring for the exact rules.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any, Literal

from pi_sdk.provider import (
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    DoneEvent,
    ErrorEvent,
    ImageContent,
    Message,
    Model,
    ProviderError,
    StreamOptions,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingContent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    Tool,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolResultMessage,
    UserMessage,
    calculate_cost,
    sanitize_surrogates,
    transform_messages,
)

from ._common import (
    as_dict,
    as_list,
    check_provider_options,
    data_url,
    max_output_tokens,
    normalize_completions_tool_call_id,
    reasoning_effort,
    tool_result_text,
)
from ._http import run_stream
from .compat import CompletionsCompat, resolve_compat

__all__ = [
    "API",
    "PATH",
    "CompletionsDecoder",
    "build_completions_payload",
    "convert_completions_messages",
    "convert_completions_tools",
    "stream_openai_completions",
]

API = "openai-completions"
PATH = "/chat/completions"
"""Request path, relative to ``model.base_url``."""

PROVIDER_OPTIONS = ("tool_choice", "reasoning_effort")
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
"""Delta fields compatible servers put reasoning in, in priority order (pi-mono: chutes.ai
sends duplicates, so only the first non-empty one of a delta counts)."""

TEXT_BLOCK_SEPARATOR = "\n\n"
"""Between the text blocks of one assistant turn, sent as one ``content`` string."""

AFTER_TOOL_RESULTS_TEXT = "I have processed the tool results."
ATTACHED_IMAGES_TEXT = "Attached image(s) from tool result:"


# --- request ----------------------------------------------------------------------------------


def _user_message(message: UserMessage) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": message.content}
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            parts.append({"type": "text", "text": block.text})
        else:
            parts.append({"type": "image_url", "image_url": {"url": data_url(block)}})
    return {"role": "user", "content": parts} if parts else None


def _assistant_message(
    message: AssistantMessage, compat: CompletionsCompat
) -> dict[str, Any] | None:
    texts: list[str] = []
    thinking: list[ThinkingContent] = []
    calls: list[ToolCall] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text.strip():
                texts.append(block.text)
        elif isinstance(block, ThinkingContent):
            if block.thinking.strip() and not block.redacted:
                thinking.append(block)
        else:
            calls.append(block)
    # Blocks are kept apart (pi-mono joins them with "", gluing e.g. another model's thinking,
    # now text, to the answer: "claude thinksfrom claude").
    text = TEXT_BLOCK_SEPARATOR.join(texts)
    entry: dict[str, Any] = {"role": "assistant"}
    content: str | None = text or ("" if compat.requires_assistant_after_tool_result else None)
    reasoning: str | None = None
    if thinking:
        if compat.requires_thinking_as_text:
            # pi-mono prepends a text part and crashes when text exists (pi-spec §10.1 #2).
            joined = "\n\n".join(b.thinking for b in thinking)
            content = f"{joined}\n\n{text}" if text else joined
        else:
            field = thinking[0].thinking_signature
            if compat.requires_reasoning_content:
                field = "reasoning_content"
            if field in REASONING_FIELDS:
                reasoning = "\n".join(b.thinking for b in thinking)
                entry[field] = reasoning
    entry["content"] = content
    if calls:
        entry["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": json.dumps(call.arguments, ensure_ascii=False),
                },
            }
            for call in calls
        ]
        details: list[Any] = []
        for call in calls:
            if call.thought_signature:
                try:
                    details.append(json.loads(call.thought_signature))
                except ValueError:
                    pass
        if details:
            entry["reasoning_details"] = details
        if compat.requires_reasoning_content and reasoning is None:
            entry["reasoning_content"] = ""
    if not content and not calls and reasoning is None:
        return None
    return entry


def _add_openrouter_cache_breakpoint(messages: list[dict[str, Any]]) -> None:
    """Mark the last user/assistant text for Anthropic prompt caching via OpenRouter (pi-mono)."""
    marker = {"type": "ephemeral"}
    for entry in reversed(messages):
        if entry["role"] not in ("user", "assistant"):
            continue
        content = entry.get("content")
        if isinstance(content, str) and content:
            entry["content"] = [{"type": "text", "text": content, "cache_control": marker}]
            return
        for part in reversed(as_list(content)):
            if as_dict(part).get("type") == "text":
                part["cache_control"] = marker
                return


def convert_completions_messages(
    model: Model,
    context: Context,
    compat: CompletionsCompat | None = None,
    *,
    options: StreamOptions | None = None,
    origin: str | None = None,
) -> list[dict[str, Any]]:
    """Convert the system prompt and history to Chat Completions ``messages`` (pi-spec §4.2).

    The history first goes through :func:`pi_sdk.transform_messages` (foreign thinking, tool
    call ids, errored turns, images for text-only models).

    Args:
        model: The target model.
        context: System prompt and messages.
        compat: Flags; default :func:`~pi_sdk_openai.compat.resolve_compat` of ``model``.
        options: Read for ``foreign_reasoning``.
        origin: Where the request goes (:func:`pi_sdk.signature_origin`), when it is not
            ``model.base_url``.

    Returns:
        The ``messages`` array, ready to send.
    """
    compat = compat or resolve_compat(model)
    policy = options.foreign_reasoning if options is not None else "text"
    history: list[Message] = transform_messages(
        context.messages,
        model,
        normalize_tool_call_id=normalize_completions_tool_call_id,
        foreign_reasoning=policy,
        origin=origin,
    )
    out: list[dict[str, Any]] = []
    if context.system_prompt:
        role = "developer" if model.reasoning and compat.supports_developer_role else "system"
        out.append({"role": role, "content": sanitize_surrogates(context.system_prompt)})
    after_tool = compat.requires_assistant_after_tool_result
    last_role = ""
    i = 0
    while i < len(history):
        message = history[i]
        if isinstance(message, UserMessage):
            if after_tool and last_role == "toolResult":
                out.append({"role": "assistant", "content": AFTER_TOOL_RESULTS_TEXT})
            entry = _user_message(message)
            if entry is not None:
                out.append(entry)
                last_role = "user"
            i += 1
        elif isinstance(message, AssistantMessage):
            entry = _assistant_message(message, compat)
            if entry is not None:
                out.append(entry)
                last_role = "assistant"
            i += 1
        else:
            images: list[ImageContent] = []
            while i < len(history) and isinstance(result := history[i], ToolResultMessage):
                found = [b for b in result.content if isinstance(b, ImageContent)]
                images.extend(found)
                text = tool_result_text(result)
                if not text:
                    text = "(see attached image)" if found else "(no output)"
                entry = {"role": "tool", "content": text, "tool_call_id": result.tool_call_id}
                if compat.requires_tool_result_name:
                    entry["name"] = result.tool_name
                out.append(entry)
                i += 1
            last_role = "toolResult"
            if images:
                if after_tool:
                    out.append({"role": "assistant", "content": AFTER_TOOL_RESULTS_TEXT})
                parts: list[dict[str, Any]] = [{"type": "text", "text": ATTACHED_IMAGES_TEXT}]
                parts.extend(
                    {"type": "image_url", "image_url": {"url": data_url(image)}} for image in images
                )
                out.append({"role": "user", "content": parts})
                last_role = "user"
    if model.provider == "openrouter" and model.id.startswith("anthropic/"):
        _add_openrouter_cache_breakpoint(out)
    return out


def convert_completions_tools(
    tools: list[Tool], compat: CompletionsCompat | None = None
) -> list[dict[str, Any]]:
    """Return Chat Completions function tools; ``strict: false`` unless the server rejects it."""
    strict = compat.supports_strict_mode if compat is not None else True
    out: list[dict[str, Any]] = []
    for tool in tools:
        function: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        }
        if strict:
            function["strict"] = False
        out.append({"type": "function", "function": function})
    return out


def build_completions_payload(
    model: Model,
    context: Context,
    options: StreamOptions | None = None,
    *,
    compat: CompletionsCompat | None = None,
    origin: str | None = None,
) -> dict[str, Any]:
    """Build the Chat Completions request body (before payload hooks), pi-spec §4.2.

    Args:
        model: The target model (``compat`` flags resolved from it unless given).
        context: System prompt, messages and tools.
        options: Per-call options; ``provider_options`` may hold ``tool_choice`` and
            ``reasoning_effort``.
        compat: Pre-resolved flags.
        origin: Where the request goes, when it is not ``model.base_url``.

    Returns:
        The JSON body. ``max_completion_tokens`` (or ``max_tokens``) is always set:
        ``options.max_tokens`` or ``min(model.max_tokens, 32000)``. When the context has no
        tools but the history has tool calls or results, ``tools: []`` is sent (pi-mono:
        Anthropic behind LiteLLM requires it).

    Raises:
        ConfigurationError: unknown ``provider_options`` or ``model.compat`` keys.
    """
    options = options or StreamOptions()
    check_provider_options(options, PROVIDER_OPTIONS, API)
    compat = compat or resolve_compat(model)
    messages = convert_completions_messages(model, context, compat, options=options, origin=origin)
    payload: dict[str, Any] = {"model": model.id, "messages": messages, "stream": True}
    if compat.supports_usage_in_streaming:
        payload["stream_options"] = {"include_usage": True}
    if compat.supports_store:
        payload["store"] = False
    payload[compat.max_tokens_field] = max_output_tokens(model, options)
    if options.temperature is not None:
        payload["temperature"] = options.temperature
    if context.tools:
        payload["tools"] = convert_completions_tools(context.tools, compat)
    elif any(m["role"] == "tool" or "tool_calls" in m for m in messages):
        payload["tools"] = []
    tool_choice = options.provider_options.get("tool_choice")
    if tool_choice is not None:
        payload["tool_choice"] = tool_choice
    if model.reasoning:
        effort = reasoning_effort(model, options)
        fmt = compat.thinking_format
        if fmt in ("zai", "qwen"):
            payload["enable_thinking"] = effort is not None
        elif fmt == "qwen-chat-template":
            payload["chat_template_kwargs"] = {"enable_thinking": effort is not None}
        elif effort is not None and compat.supports_reasoning_effort:
            payload["reasoning_effort"] = compat.reasoning_effort_map.get(effort, effort)
    if "openrouter.ai" in model.base_url and compat.open_router_routing:
        payload["provider"] = dict(compat.open_router_routing)
    routing = compat.vercel_gateway_routing
    if "ai-gateway.vercel.sh" in model.base_url and (routing.get("only") or routing.get("order")):
        gateway = {key: routing[key] for key in ("only", "order") if routing.get(key)}
        payload["providerOptions"] = {"gateway": gateway}
    return payload


# --- stream -----------------------------------------------------------------------------------

_FINISH: dict[str, Literal["stop", "length", "toolUse"]] = {
    "stop": "stop",
    "end": "stop",
    "length": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
}


class _ToolSlot:
    __slots__ = ("call", "content_index", "parser")

    def __init__(self, call: ToolCall, content_index: int, parser: Any) -> None:
        self.call = call
        self.content_index = content_index
        self.parser = parser


def error_text(error: Any) -> str:
    """Return the text of an in-stream ``error`` object: ``"<code>: <message>"``.

    OpenRouter's ``metadata.raw`` (the upstream provider's own error) follows on a new line.
    """
    fields = as_dict(error)
    if not fields:
        return str(error)
    message = fields.get("message") or json.dumps(fields)
    code = fields.get("code")
    text = f"{code}: {message}" if code is not None else str(message)
    raw = as_dict(fields.get("metadata")).get("raw")
    return f"{text}\n{raw}" if isinstance(raw, str) and raw else text


class CompletionsDecoder:
    """Turns Chat Completions stream chunks (parsed JSON) into pi events for one message.

    Rules (pi-spec §4.2, with the fixes of the conformance conventions):

    * Only choice ``index`` 0 counts. A chunk without choices (the usage chunk, keep-alives) is
      fine; an ``error`` object in a chunk raises :class:`pi_sdk.ProviderError`.
    * Reasoning: the first non-empty of ``reasoning_content``/``reasoning``/``reasoning_text``
      opens (or extends) a thinking block and closes an open text block; ``content`` opens (or
      extends) a text block and closes an open thinking block. Reasoning is read before content
      within one delta, as it precedes the answer.
    * Tool calls are assembled by ``index``: a new index, or a new non-empty id at a used index,
      starts a call (closing open text/thinking); fragments go to the call their index names, so
      interleaved parallel calls stay apart and keep their order; an entry without ``index``
      belongs to the call with its id, else to the last call. ``null``/empty/missing arguments
      become ``{}``. Calls close when the stream ends.
    * ``refusal`` text is not content: it is collected and ends the message as an error whose
      message is the refusal.
    * Usage: the last non-null ``usage`` wins (``choices[0].usage`` for Moonshot); ``input`` =
      ``prompt_tokens - cached_tokens``, ``output`` = ``completion_tokens`` (reasoning tokens are
      already inside it: pi-mono adds them twice, §10.1 #7), ``cache_read`` = cached tokens
      (DeepSeek: ``prompt_cache_hit_tokens``). A stream that never reports usage keeps zeros:
      :class:`pi_sdk.Usage` has no "unknown"; :attr:`usage_reported` tells them apart.
    * Stop reason: ``stop``/``end``/none → stop, ``length`` → length, ``tool_calls``/
      ``function_call`` → toolUse, ``content_filter`` and unknown values → error; a reply with
      tool calls that ended normally is toolUse.
    """

    def __init__(self, model: Model, output: AssistantMessage) -> None:
        """Decode into ``output`` (the message every event carries)."""
        from pi_sdk.provider import IncrementalJsonParser

        self._parser_cls = IncrementalJsonParser
        self.model = model
        self.output = output
        self.response_model: str | None = None
        """The model id the server reported (first non-empty ``model`` of a chunk)."""
        self.usage_reported = False
        self.finish_reason: str | None = None
        self.refusal = ""
        self._content = output.content
        self._text: TextContent | None = None
        self._text_index = -1
        self._thinking: ThinkingContent | None = None
        self._thinking_index = -1
        self._open_calls: dict[Any, _ToolSlot] = {}
        self._calls: list[_ToolSlot] = []
        self._choices = 0

    # -- blocks ---------------------------------------------------------------------------------

    def _close_text(self, events: list[AssistantMessageEvent]) -> None:
        if self._text is not None:
            events.append(
                TextEndEvent(
                    content_index=self._text_index, content=self._text.text, partial=self.output
                )
            )
            self._text = None

    def _close_thinking(self, events: list[AssistantMessageEvent]) -> None:
        if self._thinking is not None:
            events.append(
                ThinkingEndEvent(
                    content_index=self._thinking_index,
                    content=self._thinking.thinking,
                    partial=self.output,
                )
            )
            self._thinking = None

    def _close_call(self, slot: _ToolSlot, events: list[AssistantMessageEvent]) -> None:
        slot.parser.finish()  # value becomes the full parse, or keeps the best partial
        events.append(
            ToolCallEndEvent(
                content_index=slot.content_index, tool_call=slot.call, partial=self.output
            )
        )

    def _tool_delta(self, entry: Any, events: list[AssistantMessageEvent]) -> None:
        fields = as_dict(entry)
        function = as_dict(fields.get("function"))
        call_id = str(fields.get("id") or "")
        key: Any = fields.get("index")
        if not isinstance(key, int):
            # No index: the open call with this id; else a new call when an id is given (or
            # there is none yet); else the last call.
            key = None
            if call_id:
                key = next((k for k, s in self._open_calls.items() if s.call.id == call_id), None)
            if key is None:
                if call_id or not self._open_calls:
                    key = ("noindex", len(self._calls))
                else:
                    key = next(reversed(self._open_calls))
        slot = self._open_calls.get(key)
        if slot is not None and call_id and slot.call.id and call_id != slot.call.id:
            del self._open_calls[key]
            self._close_call(slot, events)
            slot = None
        if slot is None:
            self._close_thinking(events)
            self._close_text(events)
            parser = self._parser_cls()
            name = str(function.get("name") or "")
            call = ToolCall(id=call_id, name=name)
            call.arguments = parser.value  # the live dict (validation would copy it)
            slot = _ToolSlot(call, len(self._content), parser)
            self._content.append(call)
            self._open_calls[key] = slot
            self._calls.append(slot)
            events.append(ToolCallStartEvent(content_index=slot.content_index, partial=self.output))
        else:
            if call_id and not slot.call.id:
                slot.call.id = call_id
            name = str(function.get("name") or "")
            if name and not slot.call.name:
                slot.call.name = name
        arguments = function.get("arguments")
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments)  # a server that sent parsed arguments
        if isinstance(arguments, str) and arguments:
            slot.parser.feed(arguments)
            events.append(
                ToolCallDeltaEvent(
                    content_index=slot.content_index, delta=arguments, partial=self.output
                )
            )

    def _reasoning_details(self, details: Any) -> None:
        """OpenRouter ``reasoning_details``: an encrypted entry rides on its tool call (pi-mono)."""
        for detail in as_list(details):
            fields = as_dict(detail)
            if (
                fields.get("type") == "reasoning.encrypted"
                and fields.get("id")
                and fields.get("data")
            ):
                for slot in self._calls:
                    if slot.call.id == fields["id"]:
                        slot.call.thought_signature = json.dumps(fields)

    # -- usage ----------------------------------------------------------------------------------

    def _usage(self, usage: dict[str, Any]) -> None:
        prompt = int(usage.get("prompt_tokens") or 0)
        details = as_dict(usage.get("prompt_tokens_details"))
        cached = int(details.get("cached_tokens") or usage.get("prompt_cache_hit_tokens") or 0)
        target = self.output.usage
        target.input = max(prompt - cached, 0)
        target.output = int(usage.get("completion_tokens") or 0)
        target.cache_read = cached
        target.cache_write = 0
        target.update_total()
        calculate_cost(self.model, target)
        self.usage_reported = True

    # -- WireDecoder ----------------------------------------------------------------------------

    @property
    def terminal(self) -> bool:
        """Always False: a chunk never ends the stream, the ``[DONE]`` marker does.

        (The usage chunk comes after the one with ``finish_reason``.)
        """
        return False

    def feed(self, data: Any) -> list[AssistantMessageEvent]:
        """Consume one chunk; return its events."""
        chunk = as_dict(data)
        if chunk is not data:
            raise ProviderError(f"malformed stream chunk: {data!r:.200}")
        events: list[AssistantMessageEvent] = []
        if self.response_model is None and chunk.get("model"):
            self.response_model = str(chunk["model"])
        error = chunk.get("error")
        if error:
            raise ProviderError(error_text(error))
        usage = chunk.get("usage")
        choices = as_list(chunk.get("choices"))
        if choices:
            choice = as_dict(choices[0])
            if choice.get("index", 0) != 0:
                found = next((c for c in choices if as_dict(c).get("index") == 0), None)
                choice = as_dict(found) if found is not None else None
            if choice is not None:
                self._choices += 1
                if usage is None:
                    usage = choice.get("usage")
                delta = as_dict(choice.get("delta") or choice.get("message"))
                if delta:
                    self._delta(delta, events)
                reason = choice.get("finish_reason")
                if reason:
                    self.finish_reason = str(reason)
        usage = as_dict(usage)
        if usage:
            self._usage(usage)
        return events

    def _delta(self, delta: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        out = self.output
        for field in REASONING_FIELDS:
            piece = delta.get(field)
            if piece and isinstance(piece, str):
                block = self._thinking
                if block is None:
                    self._close_text(events)
                    block = self._thinking = ThinkingContent(thinking="", thinking_signature=field)
                    self._thinking_index = len(self._content)
                    self._content.append(block)
                    events.append(
                        ThinkingStartEvent(content_index=self._thinking_index, partial=out)
                    )
                block.append(piece)
                events.append(
                    ThinkingDeltaEvent(content_index=self._thinking_index, delta=piece, partial=out)
                )
                break
        piece = delta.get("content")
        if piece and isinstance(piece, str):
            text = self._text
            if text is None:
                self._close_thinking(events)
                text = self._text = TextContent(text="")
                self._text_index = len(self._content)
                self._content.append(text)
                events.append(TextStartEvent(content_index=self._text_index, partial=out))
            text.append(piece)
            events.append(TextDeltaEvent(content_index=self._text_index, delta=piece, partial=out))
        refusal = delta.get("refusal")
        if refusal and isinstance(refusal, str):
            self.refusal += refusal
        calls = delta.get("tool_calls")
        if calls:
            for entry in calls:
                self._tool_delta(entry, events)
        details = delta.get("reasoning_details")
        if details:
            self._reasoning_details(details)

    def feed_body(self, body: Any) -> list[AssistantMessageEvent]:
        """Consume a non-streamed ``chat.completion`` as one chunk whose delta is the message."""
        completion = as_dict(body)
        if completion is not body:
            raise ProviderError(f"malformed response body: {body!r:.200}")
        if not completion.get("error") and not as_list(completion.get("choices")):
            raise ProviderError(
                "the JSON response is not a chat completion (no choices): "
                f"{json.dumps(completion, ensure_ascii=False)[:200]}"
            )
        choices: list[dict[str, Any]] = []
        for choice in as_list(completion.get("choices")):
            fields = as_dict(choice)
            message = dict(as_dict(fields.get("message")))
            calls = as_list(message.get("tool_calls"))
            if calls:
                message["tool_calls"] = [{**as_dict(c), "index": i} for i, c in enumerate(calls)]
            choices.append({**fields, "delta": message})
        return self.feed({**completion, "choices": choices})

    def finish(self, *, saw_done: bool) -> list[AssistantMessageEvent]:
        """Close the open blocks and end the message with ``done`` or ``error``.

        ``error`` ends a refusal (the refusal text is the error message), a content filter stop
        and an unknown finish reason; the content streamed so far is kept.

        Raises:
            ProviderError: the stream ended without ``[DONE]``: the response is incomplete
                (a dropped connection or a proxy cut it), so it must not pass as complete; or
                no chunk carried a choice (not a chat completion: nothing to return).
        """
        if not saw_done:
            raise ProviderError(
                "the response stream ended before [DONE]: the reply is incomplete"
                " (connection closed early?)"
            )
        if not self._choices:
            raise ProviderError(
                "the response stream had no choices: not a chat completion stream (a proxy's"
                " answer?), nothing to return"
            )
        events: list[AssistantMessageEvent] = []
        self._close_thinking(events)
        self._close_text(events)
        for slot in self._open_calls.values():
            self._close_call(slot, events)
        self._open_calls.clear()
        out = self.output
        reason = self.finish_reason
        stop: Literal["stop", "length", "toolUse", "error"]
        if reason is None:
            stop = "stop"
        else:
            stop = _FINISH.get(reason, "error")
        if stop == "stop" and self._calls:
            stop = "toolUse"
        if self.refusal:
            stop = "error"
            out.error_message = self.refusal
        elif reason == "content_filter":
            out.error_message = (
                "The reply was blocked by the content filter (finish_reason: content_filter)"
            )
        elif stop == "error":
            out.error_message = f"Unhandled stop reason: {reason}"
        out.stop_reason = stop
        if stop == "error":
            events.append(ErrorEvent(reason="error", error=out))
        else:
            events.append(DoneEvent(reason=stop, message=out))
        return events


async def stream_openai_completions(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Call a Chat Completions endpoint and yield normalized events (``openai-completions``).

    Contract (:data:`pi_sdk.StreamFunction`): ``start`` once the response body begins, then block
    events, then ``done`` (or ``error`` for refusals and content filters). Failures raise
    :class:`pi_sdk.ProviderError` (HTTP status and the vendor's message; retryable for 408, 409,
    429, 5xx and connection errors) and the core turns them into the terminal ``error`` event
    with the partial message kept. ``options.client`` (an ``openai.AsyncOpenAI``) replaces the
    client built from ``model.base_url`` and the API key.
    """
    compat = resolve_compat(model)
    stream = run_stream(
        model,
        options,
        path=PATH,
        build_payload=lambda origin: build_completions_payload(
            model, context, options, compat=compat, origin=origin
        ),
        decoder=lambda output: CompletionsDecoder(model, output),
    )
    async with aclosing(stream) as events:  # closes the response when the consumer stops early
        async for event in events:
            yield event
