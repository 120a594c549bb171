"""``openai-completions`` stream: Chat Completions chunks (parsed JSON) → builder calls.

:class:`Decoder`: ``content`` → text; the first non-empty of ``reasoning_content`` /
``reasoning`` / ``reasoning_text`` → thinking, whose ``thinking_signature`` names the field
(pi-mono, used to replay it in the same field); ``tool_calls`` assembled by ``index`` (a
``custom`` call of a grammar tool: its free ``input`` text as the tool's string argument,
pi-ai 1.6);
``refusal`` collected apart from the text; usage from the last chunk that carries it. See the
decoder's docstring for the exact rules. The events come from the
:class:`~pi_sdk.provider.MessageBuilder`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pi_sdk import Citation, TextContent, ThinkingContent, ToolCall
from pi_sdk.provider import Events, MessageBuilder, ProviderError

from .._shared_json import as_dict, as_list
from .._shared_request import grammar_input_json
from ._annotations import citations_of
from ._finish import error_text, map_stop_reason
from ._google_signatures import google_thought_signature
from ._reasoning_details import append_reasoning_detail, is_reasoning_detail
from ._request import REASONING_FIELDS
from ._usage import apply_usage

__all__ = ["Decoder", "error_text", "map_stop_reason"]


_TEXT = "text"
_THINKING = "thinking"
"""Builder keys of the one open text / thinking block (tool calls use their ``index``)."""


class Decoder:
    """Turns Chat Completions stream chunks (parsed JSON) into pi events for one message.

    Rules (pi-spec §4.2, with the fixes of the conformance conventions):

    * Only choice ``index`` 0 counts. A chunk without choices (the usage chunk, keep-alives) is
      fine; an ``error`` object in a chunk raises :class:`pi_sdk.provider.ProviderError`.
    * Reasoning: the first non-empty of ``reasoning_content``/``reasoning``/``reasoning_text``
      opens (or extends) a thinking block and closes an open text block; ``content`` opens (or
      extends) a text block and closes an open thinking block. Reasoning is read before content
      within one delta, as it precedes the answer.
    * Tool calls are assembled by ``index``: a new index, or a new non-empty id at a used index,
      starts a call (closing open text/thinking); fragments go to the call their index names, so
      interleaved parallel calls stay apart and keep their order; an entry without ``index``
      belongs to the call with its id, else to the last call. ``null``/empty/missing arguments
      become ``{}``. Calls close when the stream ends.
    * Gemini's ``extra_content.google.thought_signature`` (``_google_signatures``):
      on a tool call → its ``thought_signature``; on a delta or message → the text block's
      ``text_signature`` (the latest wins; one that comes before the text waits for it).
    * ``annotations`` (OpenRouter web search, before the text) are the text block's citations
      (:mod:`._annotations`).
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

    def __init__(
        self, builder: MessageBuilder, *, grammar: Mapping[str, str] | None = None
    ) -> None:
        """Decode into ``builder`` (its message is the one every event carries).

        ``grammar``: the request's grammar tools (name -> the argument a call's text goes in).
        """
        self.builder = builder
        self.grammar = grammar or {}
        self._custom: dict[Any, list[str]] = {}
        """Custom (grammar) tool calls by builder key: ``[property, text so far]``."""
        self.response_model: str | None = None
        """The model id the server reported (first non-empty ``model`` of a chunk)."""
        self.usage_reported = False
        self.finish_reason: str | None = None
        self.refusal = ""
        self._open: str | None = None
        """``_TEXT`` or ``_THINKING`` while that block is open."""
        self._open_calls: dict[Any, ToolCall] = {}
        """Open tool calls by builder key (the chunk's ``index``, or a made-up key)."""
        self._calls: list[ToolCall] = []
        self._choices = 0
        self._text_signature: str | None = None
        """A message-level Gemini signature that came before its text (attached when it opens)."""
        self._details: list[dict[str, Any]] = []
        """OpenRouter ``reasoning_details`` of the reply (merged), for its thinking block."""
        self._thinking_opened = False
        self._citations: list[Citation] = []
        """``annotations`` no open text block took yet (:mod:`._annotations`)."""

    # -- blocks ---------------------------------------------------------------------------------

    def _close_open(self) -> Events:
        """End the open text or thinking block, if any."""
        key = self._open
        if key is None:
            return []
        self._open = None
        if key == _TEXT:
            return self.builder.end_text(key)
        if self._details:
            self.builder.set_signature(key, json.dumps(self._details, ensure_ascii=False))
        return self.builder.end_thinking(key)

    def _end_call(self, key: Any) -> Events:
        custom = self._custom.pop(key, None)
        final = grammar_input_json(*custom) if custom is not None else None
        return self.builder.end_tool_call(key, arguments=final)

    def _custom_input(self, key: Any, name: str, custom: dict[str, Any]) -> Events:
        """A custom tool call's text piece, as the next piece of ``{"<prop>":"<text>"}``."""
        state = self._custom.get(key)
        piece = custom.get("input")
        opening = ""
        if state is None:
            state = self._custom[key] = [self.grammar.get(name, "input"), ""]
            opening = grammar_input_json(state[0], "")[:-2]
        if not isinstance(piece, str) or not piece:
            return self.builder.append_arguments(key, opening) if opening else []
        state[1] += piece
        escaped = json.dumps(piece, ensure_ascii=False)[1:-1]
        return self.builder.append_arguments(key, opening + escaped)

    def _tool_delta(self, entry: Any) -> Events:
        fields = as_dict(entry)
        function = as_dict(fields.get("function"))
        custom: Any = fields.get("custom")
        if custom is not None:
            custom = as_dict(custom)
        if custom and not function:  # a grammar tool's call: free text, not JSON
            function = {"name": custom.get("name")}
        call_id = str(fields.get("id") or "")
        key: Any = fields.get("index")
        if not isinstance(key, int):
            # No index: the open call with this id; else a new call when an id is given (or
            # there is none yet); else the last call.
            key = None
            if call_id:
                key = next((k for k, c in self._open_calls.items() if c.id == call_id), None)
            if key is None:
                if call_id or not self._open_calls:
                    key = ("noindex", len(self._calls))
                else:
                    key = next(reversed(self._open_calls))
        builder = self.builder
        events: Events = []
        call = self._open_calls.get(key)
        if call is not None and call_id and call.id and call_id != call.id:
            del self._open_calls[key]
            events += self._end_call(key)
            call = None
        name = str(function.get("name") or "")
        if call is None:
            if self._open is not None:
                events += self._close_open()
            events += builder.open_tool_call(key, id=call_id, name=name)
            call = builder.block(key)
            assert isinstance(call, ToolCall)
            self._open_calls[key] = call
            self._calls.append(call)
        else:
            if call_id and not call.id:
                call.id = call_id
            if name and not call.name:
                call.name = name
        if "extra_content" in fields and (signature := google_thought_signature(fields)):
            builder.set_signature(key, signature)
        if custom and "function" not in fields:
            return events + self._custom_input(key, call.name, custom)
        arguments = function.get("arguments")
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments)  # a server that sent parsed arguments
        if isinstance(arguments, str) and arguments:
            events += builder.append_arguments(key, arguments)
        return events

    def _reasoning_details(self, details: Any) -> Events:
        """OpenRouter ``reasoning_details`` kept as the thinking block's signature (pi-ai 1.6).

        Each valid entry (:func:`~._reasoning_details.is_reasoning_detail`) joins the message's
        list (consecutive ``reasoning.text`` / ``reasoning.summary`` deltas merged); a thinking
        block is opened for them when the reply had none. The list becomes the block's
        ``thinking_signature`` (JSON) when the block ends, so the next request to the same model
        sends it back as ``reasoning_details``: encrypted reasoning, Claude's signed thinking.
        """
        events: Events = []
        for detail in as_list(details):
            if not is_reasoning_detail(detail):
                continue
            if not self._thinking_opened:
                if self._open is not None:
                    events += self._close_open()
                self._open = _THINKING
                self._thinking_opened = True
                events += self.builder.open_thinking(_THINKING, "", signature=None)
            append_reasoning_detail(self._details, as_dict(detail))
        return events

    def _usage(self, usage: dict[str, Any]) -> None:
        apply_usage(self.builder, usage)  # see ._usage
        self.usage_reported = True

    def content_filter_message(self) -> str:
        """The error text of a ``finish_reason: content_filter`` stop.

        A vendor's decoder subclass names what was filtered (pi-sdk-azure).
        """
        return "The reply was blocked by the content filter (finish_reason: content_filter)"

    # -- WireDecoder ----------------------------------------------------------------------------

    @property
    def terminal(self) -> bool:
        """Always False: a chunk never ends the stream, the ``[DONE]`` marker does.

        (The usage chunk comes after the one with ``finish_reason``.)
        """
        return False

    @property
    def settled(self) -> bool:
        """True once a ``finish_reason`` and the usage arrived.

        The reply is then complete even if ``[DONE]`` never does (a proxy drops it; issue 12).
        """
        return self.finish_reason is not None and self.usage_reported

    def feed(self, data: dict[str, Any]) -> Events:
        """Consume one chunk; return its events.

        Hot path: a chunk whose one choice (index 0) carries only ``{"content": ...}``, with
        no finish reason, usage or error, while the text block is open, goes straight to the
        builder (the same result as the general rules).

        Raises:
            ProviderError: the chunk carries an ``error`` object (:func:`error_text`).
        """
        if self._open == _TEXT and self.response_model is not None:
            choices: Any = data.get("choices")
            if choices.__class__ is list and len(choices) == 1:
                choice: Any = choices[0]
                if choice.__class__ is dict:
                    delta: Any = choice.get("delta")
                    if (
                        delta.__class__ is dict
                        and len(delta) == 1
                        and not choice.get("finish_reason")
                        and choice.get("index", 0) == 0
                        and not choice.get("usage")
                        and not data.get("usage")
                        and not data.get("error")
                    ):
                        piece = delta.get("content")
                        if piece.__class__ is str and piece:
                            self._choices += 1
                            return self.builder.append_text(_TEXT, piece)
        return self._feed(data)

    def _feed(self, data: dict[str, Any]) -> Events:
        """:meth:`feed`'s general rules."""
        chunk = data
        events: Events = []
        if self.response_model is None and chunk.get("model"):
            self.response_model = str(chunk["model"])
            self.builder.set_response(id=chunk.get("id"), model=self.response_model)
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
                    events = self._delta(delta)
                reason = choice.get("finish_reason")
                if reason:
                    self.finish_reason = str(reason)
                    self.builder.set_raw_stop_reason(self.finish_reason)  # pi-ai 1.6
        if usage:
            usage = as_dict(usage)
            if usage:
                self._usage(usage)
        return events

    def _delta(self, delta: dict[str, Any]) -> Events:
        builder = self.builder
        events: Events = []
        for field in REASONING_FIELDS:
            piece = delta.get(field)
            if piece and isinstance(piece, str):
                if self._open == _THINKING:
                    events += builder.append_thinking(_THINKING, piece)
                else:
                    if self._open is not None:
                        events += self._close_open()
                    self._open = _THINKING
                    self._thinking_opened = True
                    events += builder.open_thinking(_THINKING, piece, signature=field)
                break
        piece = delta.get("content")
        if piece and isinstance(piece, str):
            if self._open == _TEXT:  # reasoning in this delta would have opened thinking
                events = builder.append_text(_TEXT, piece)
            else:
                if self._open is not None:
                    events += self._close_open()
                self._open = _TEXT
                events += builder.open_text(_TEXT, piece, signature=self._text_signature)
                self._text_signature = None
        if "extra_content" in delta and (signature := google_thought_signature(delta)):
            if self._open == _TEXT:
                builder.set_signature(_TEXT, signature)
            else:
                self._text_signature = signature
        refusal = delta.get("refusal")
        if refusal and isinstance(refusal, str):
            self.refusal += refusal
        calls = delta.get("tool_calls")
        if calls:
            for entry in calls:
                events += self._tool_delta(entry)
        details = delta.get("reasoning_details")
        if details:
            events += self._reasoning_details(details)
        if "annotations" in delta:
            self._cite(citations_of(delta["annotations"]))
        return events

    def _cite(self, cited: list[Citation]) -> None:
        """Put ``cited`` on the open text block.

        Without one, keep it for the reply's last text block (:meth:`finish`).
        """
        self._citations += cited
        block = self.builder.block(_TEXT) if self._open == _TEXT else None
        if isinstance(block, TextContent) and self._citations:
            block.citations = [*(block.citations or ()), *self._citations]
            self._citations = []

    def feed_document(self, document: Any) -> Events:
        """Consume a non-streamed ``chat.completion`` as one chunk whose delta is the message.

        Raises:
            ProviderError: the document is not a chat completion (no ``choices``, no ``error``).
        """
        completion = as_dict(document)
        if completion is not document:
            raise ProviderError(f"malformed response body: {document!r:.200}")
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

    def finish(self, *, saw_done: bool) -> Events:
        """Close the open blocks and end the message with ``done`` or ``error``.

        ``error`` ends a refusal (the refusal text is the error message), a content filter stop
        and an unknown finish reason; the content streamed so far is kept.

        Raises:
            ProviderError: the stream ended without ``[DONE]`` and before the finish reason and
                usage (:attr:`settled`): the response is incomplete
                (a dropped connection or a proxy cut it), so it must not pass as complete; or
                no chunk carried a choice (not a chat completion: nothing to return).
        """
        if not saw_done and not self.settled:
            raise ProviderError(
                "the response stream ended before [DONE]: the reply is incomplete"
                " (connection closed early?)"
            )
        if not self._choices:
            raise ProviderError(
                "the response stream had no choices: not a chat completion stream (a proxy's"
                " answer?), nothing to return"
            )
        builder = self.builder
        if self._citations:  # annotations before the text or after it ended
            texts = [b for b in builder.message.content if isinstance(b, TextContent)]
            if texts:
                texts[-1].citations = [*(texts[-1].citations or ()), *self._citations]
        events = self._close_open()
        if self._details:  # details that came after their thinking block ended
            first = next(b for b in builder.message.content if isinstance(b, ThinkingContent))
            first.thinking_signature = json.dumps(self._details, ensure_ascii=False)
        if self._text_signature is not None:
            # Gemini's signature came on a delta of a reply without text (tool calls only): it
            # belongs to the step's first call, where the next request must carry it back.
            unsigned = next((c for c in self._calls if not c.thought_signature), None)
            if unsigned is not None:
                unsigned.thought_signature = self._text_signature
            self._text_signature = None
        for key in self._open_calls:
            events += self._end_call(key)
        self._open_calls.clear()
        reason = self.finish_reason
        stop = map_stop_reason(reason)
        if self.refusal:
            return events + builder.error(self.refusal)
        if reason == "content_filter":
            return events + builder.error(self.content_filter_message())
        if stop == "error":
            return events + builder.error(f"Unhandled stop reason: {reason}")
        return events + builder.done(stop)
