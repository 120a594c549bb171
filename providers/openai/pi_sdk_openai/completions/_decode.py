"""``openai-completions`` stream: Chat Completions chunks (parsed JSON) → pi events.

:class:`Decoder`: ``content`` → text; the first non-empty of ``reasoning_content`` /
``reasoning`` / ``reasoning_text`` → thinking, whose ``thinking_signature`` names the field
(pi-mono, used to replay it in the same field); ``tool_calls`` assembled by ``index``;
``refusal`` collected apart from the text; usage from the last chunk that carries it. See the
decoder's docstring for the exact rules.
"""

from __future__ import annotations

import json
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
from ._request import REASONING_FIELDS

__all__ = ["Decoder", "error_text"]


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


class Decoder:
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
