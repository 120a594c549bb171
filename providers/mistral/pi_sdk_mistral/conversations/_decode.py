"""Mistral chat completion chunks -> :class:`~pi_sdk.provider.MessageBuilder` calls.

Wire facts: Mistral's chat completion API reference and the ``mistralai`` SDK's models
(``CompletionChunk``, ``DeltaMessage``, ``ThinkChunk``, ``ToolCall``, ``UsageInfo``): each
server-sent event is a ``chat.completion.chunk`` with ``choices[].delta`` (``content``: a string
or a list of ``text`` / ``thinking`` chunks; ``tool_calls``) and ``finish_reason``, usage on the
last chunk, and the body ends with ``data: [DONE]``; every chunk may carry a random-length
``p`` padding field, which is ignored. A whole answer (``"stream": false``) is a
``chat.completion`` with ``choices[].message``. Mapping: pi-mono ``providers/mistral.ts``
``consumeChatStream`` (see :class:`Decoder`), with the differences in
``docs/providers/mistral.md``.
"""

from __future__ import annotations

import json
from typing import Any, cast

from pi_sdk import StopReason
from pi_sdk.provider import Events, MessageBuilder, ProviderError, short_hash

from ._request import TOOL_CALL_ID_LENGTH, normalize_tool_call_id

__all__ = ["Decoder", "map_finish_reason"]

_FINISH_REASONS: dict[str | None, StopReason] = {
    None: "stop",
    "stop": "stop",
    "length": "length",
    "model_length": "length",
    "tool_calls": "toolUse",
    "error": "error",
}
_TEXT = "text"
_THINKING = "thinking"
_NO_ID = ("", "null")
"""Tool-call ids that mean "none" (the SDK's default id is the string ``"null"``)."""


def map_finish_reason(reason: str | None) -> StopReason:
    """Map a Mistral ``finish_reason`` to ours.

    ``stop`` or none -> ``stop``; ``length``/``model_length`` -> ``length``; ``tool_calls`` ->
    ``toolUse``; ``error`` and any unknown reason -> ``error`` (pi-mono maps unknown reasons
    to ``stop``; a reason we cannot read is not a normal end).
    """
    return _FINISH_REASONS.get(reason, "error")


def _dict(value: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def _count(usage: dict[str, Any], key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) else 0


def error_text(data: dict[str, Any]) -> str:
    """The text of an ``{"object": "error", "message", "type"}`` event or body."""
    message: Any = data.get("message")
    if not message:
        return f"stream error event: {json.dumps(data, ensure_ascii=False)[:500]}"
    if not isinstance(message, str):
        message = json.dumps(message, ensure_ascii=False)
    kind = data.get("type") or data.get("code")
    return f"{kind}: {message}" if kind else str(message)


class Decoder:
    """Mistral chunks -> builder calls, for one reply (:class:`pi_sdk.provider.WireDecoder`).

    * the first choice (``index`` 0) counts; ``content`` strings and ``text`` chunks stream one
      text block, ``thinking`` chunks (magistral) one thinking block: the text parts of
      ``thinking`` joined, a ``signature`` kept as ``thinking_signature``; a switch between
      the two closes the other; other chunk types (images, references) are not content;
    * ``tool_calls``: keyed by ``index`` (a call can also arrive whole, without one: then by
      its id); a new id on an open index starts a new call; ``arguments`` is a JSON string
      fragment or a whole object; a call without an id gets pi-mono's derived one
      (``toolcall0`` for index 0, or for a call without an index), and when that id is taken
      in this reply (a second id-less call) the next candidate of pi-mono's id normalizer
      (the 9-character hash of ``toolcall0:1``, ``toolcall0:2``, ...): distinct ids, the same
      on every replay of the stream; a tool call closes the open text or thinking block;
    * usage from the last chunk that has one: ``input`` = ``prompt_tokens`` minus
      ``prompt_tokens_details.cached_tokens`` (``cache_read``), ``output`` =
      ``completion_tokens``;
    * the body must end with ``[DONE]``, or have brought the finish reason and the usage
      (:attr:`settled`: only ``[DONE]`` is missing, issue 12); ``finish_reason`` is mapped by
      :func:`map_finish_reason`, ``error`` ends the reply as an error with its content kept;
      an ``{"object": "error"}`` event raises :class:`pi_sdk.provider.ProviderError`.

    ``terminal`` stays False: ``[DONE]`` ends the body (the core's read loop stops there).
    """

    __slots__ = ("_builder", "_call_ids", "_calls", "_prose", "_stop", "_usage_seen", "terminal")

    def __init__(self, builder: MessageBuilder) -> None:
        self._builder = builder
        self._prose: str | None = None  # the open text or thinking key
        self._calls = 0  # tool calls opened without index or id (their keys)
        self._call_ids: set[str] = set()  # the ids of this reply's tool calls
        self._stop: str | None = None
        self._usage_seen = False
        self.terminal = False

    @property
    def settled(self) -> bool:
        """True once the finish reason and the usage arrived (the reply's terminal facts)."""
        return self._stop is not None and self._usage_seen

    def feed(self, data: dict[str, Any]) -> Events:
        """Consume one ``chat.completion.chunk``; return its events.

        Hot path: a text piece of the open text block (choice 0's ``delta`` holds only a string
        ``content``; no finish reason, no usage) goes straight to the builder.
        """
        builder = self._builder
        if self._prose == _TEXT and builder.message.response_model is not None:
            choices: Any = data.get("choices")
            if choices.__class__ is list and choices and not data.get("usage"):
                choice: Any = choices[0]
                if choice.__class__ is dict and choice.get("finish_reason") is None:
                    delta: Any = choice.get("delta")
                    if delta.__class__ is dict and len(delta) == 1 and choice.get("index", 0) == 0:
                        piece = delta.get("content")
                        if piece.__class__ is str:
                            return builder.append_text(_TEXT, piece) if piece else []
        return self._feed(data)

    def _feed(self, data: dict[str, Any]) -> Events:
        """:meth:`feed`'s general rules."""
        if self._builder.message.response_model is None:
            self._builder.set_response(id=data.get("id"), model=data.get("model"))
        usage = data.get("usage")
        if usage:
            self._usage(usage)
        choices = data.get("choices")
        if not choices:
            if data.get("object") == "error" or "error" in data:
                raise ProviderError(error_text(_dict(data.get("error")) or data))
            return []
        choice = _dict(choices[0])
        if choice.get("index", 0) != 0:
            choice = self._first(choices)
        reason = choice.get("finish_reason")
        if reason is not None:
            self._stop = reason
            self._builder.set_raw_stop_reason(reason)  # pi-ai 1.6 rawStopReason
        return self._message(_dict(choice.get("delta")))

    @staticmethod
    def _first(choices: Any) -> dict[str, Any]:
        """The choice with ``index`` 0 (``{}`` when there is none)."""
        for raw in cast("list[Any]", choices):
            choice = _dict(raw)
            if choice.get("index", 0) == 0:
                return choice
        return {}

    def _message(self, delta: dict[str, Any]) -> Events:
        """The events of a delta (or of a whole answer's message)."""
        content = delta.get("content")
        events: Events
        if content.__class__ is str:
            events = self._prose_piece(_TEXT, content) if content else []
        elif isinstance(content, list):
            events = []
            for item in cast("list[Any]", content):
                events += self._chunk(item)
        else:
            events = []
        calls = delta.get("tool_calls")
        if calls:
            for call in cast("list[Any]", calls):
                events += self._tool_call(_dict(call))
        return events

    def _prose_piece(self, key: str, piece: str) -> Events:
        b = self._builder
        if self._prose == key:
            return b.append_text(key, piece) if key == _TEXT else b.append_thinking(key, piece)
        events = b.close(self._prose) if self._prose is not None else []
        self._prose = key
        if key == _TEXT:
            return events + b.open_text(key, piece)
        return events + b.open_thinking(key, piece)

    def _chunk(self, item: Any) -> Events:
        if isinstance(item, str):
            return self._prose_piece(_TEXT, item) if item else []
        chunk = _dict(item)
        kind = chunk.get("type")
        if kind == "text":
            text = chunk.get("text")
            return self._prose_piece(_TEXT, text) if isinstance(text, str) and text else []
        if kind != "thinking":
            return []  # image_url, reference, ...: not text
        parts = chunk.get("thinking")
        pieces: list[str] = []
        for part in cast("list[Any]", parts if isinstance(parts, list) else []):
            text = _dict(part).get("text")
            if isinstance(text, str):
                pieces.append(text)
        piece = "".join(pieces)
        signature = chunk.get("signature")
        if not piece and not signature:
            return []
        events = self._prose_piece(_THINKING, piece) if piece else []
        if isinstance(signature, str) and signature:
            if self._prose != _THINKING:
                events += self._prose_piece(_THINKING, "")
            self._builder.set_signature(_THINKING, signature)
        return events

    def _tool_call(self, call: dict[str, Any]) -> Events:
        b = self._builder
        index = call.get("index")
        call_id = call.get("id")
        if not isinstance(call_id, str) or call_id in _NO_ID:
            call_id = None
        if isinstance(index, int):
            key: Any = ("tool", index)
        elif call_id is not None:
            key = ("tool", call_id)
        else:
            self._calls += 1
            key = ("tool", "whole", self._calls)
        function = _dict(call.get("function"))
        arguments = function.get("arguments")
        if arguments is None:
            fragment = ""
        elif isinstance(arguments, str):
            fragment = arguments
        else:
            fragment = json.dumps(arguments, ensure_ascii=False)
        events: Events = []
        if b.is_open(key):
            if call_id is None or getattr(b.block(key), "id", None) == call_id:
                return b.append_arguments(key, fragment)
            events += b.close(key)  # a new call on this index
        if self._prose is not None:
            events += b.close(self._prose)
            self._prose = None
        if call_id is None:
            call_id = self._derived_id(index)
        self._call_ids.add(call_id)
        name = function.get("name")
        events += b.open_tool_call(
            key, id=call_id, name=name if isinstance(name, str) else "", arguments=fragment
        )
        return events

    def _derived_id(self, index: Any) -> str:
        """The id of a call that came without one: pi-mono's, made distinct within the reply.

        pi-mono derives ``toolcall0`` from ``toolcall:<index>`` and so gives two id-less calls
        the same id; the next candidates follow pi-mono's id normalizer (``<seed>:<attempt>``
        hashed to 9 characters).
        """
        seed = f"toolcall:{index if isinstance(index, int) else 0}"
        first = normalize_tool_call_id(seed, self._builder.model, self._builder.message)
        call_id, attempt = first, 0
        while call_id in self._call_ids:
            attempt += 1
            call_id = short_hash(f"{first}:{attempt}", TOOL_CALL_ID_LENGTH)
        return call_id

    def _usage(self, usage: Any) -> None:
        fields = _dict(usage)
        self._usage_seen = True
        cached = _count(_dict(fields.get("prompt_tokens_details")), "cached_tokens")
        self._builder.set_usage(
            input=max(0, _count(fields, "prompt_tokens") - cached),
            output=_count(fields, "completion_tokens"),
            cache_read=cached,
            cache_write=0,
        )

    def feed_document(self, document: Any) -> Events:
        """Consume a whole ``chat.completion`` answer: the same mapping as a stream.

        Raises:
            ProviderError: an ``{"object": "error"}`` body, or not a chat completion.
        """
        answer = _dict(document)
        choices = answer.get("choices")
        if not isinstance(choices, list):
            if answer.get("object") == "error" or "message" in answer:
                raise ProviderError(error_text(answer))
            excerpt = json.dumps(document, ensure_ascii=False)[:200]
            raise ProviderError(f"unexpected JSON response (not a chat completion): {excerpt!r}")
        self._builder.set_response(id=answer.get("id"), model=answer.get("model"))
        if answer.get("usage"):
            self._usage(answer["usage"])
        first = self._first(choices)
        self._stop = first.get("finish_reason")
        self._builder.set_raw_stop_reason(self._stop)
        return self._message(_dict(first.get("message")))

    def finish(self, *, saw_done: bool) -> Events:
        """End the reply: ``done`` with the mapped finish reason, ``error``, or raise."""
        if not saw_done and not self.settled:
            raise ProviderError("stream ended before [DONE] (connection closed early?)")
        b = self._builder
        stop = map_finish_reason(self._stop)
        if stop == "error":
            if self._stop == "error":
                return b.error("Mistral ended the reply with finish_reason 'error'")
            return b.error(f"Unhandled finish reason: {self._stop}")
        return b.done(cast("Any", stop))
