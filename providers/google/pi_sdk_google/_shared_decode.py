"""The decode of Gemini response chunks, shared by both APIs: ``GenerateContentResponse`` to events.

pi-spec §4.8; the Gemini API and Vertex AI send the same chunks.

:class:`GeminiDecoder` (a :class:`pi_sdk.provider.WireDecoder` for the core's read loop)
consumes the JSON objects of a ``streamGenerateContent?alt=sse`` stream (or the whole JSON
document of a server that ignored ``alt=sse``) and tells a
:class:`pi_sdk.provider.MessageBuilder` what they hold:

* parts with ``thought: true`` are thinking, other text parts are text; consecutive parts of
  the same kind extend one block, and a part's ``thoughtSignature`` is kept on the block it came
  with (the latest non-empty one wins, pi-mono ``retainThoughtSignature``);
* a ``functionCall`` part arrives whole: ``toolcall_start``, one ``toolcall_delta`` with the
  arguments' JSON, ``toolcall_end``; missing ``args`` become ``{}``; a call without an id (or
  repeating one already used in this reply) gets ``gemini_call_<responseId>_<n>``, ``n``
  counting the reply's calls from 1: unique, in order, so parallel calls to the same function
  stay distinct, and the same on every replay of a recorded response (random hex stands in for
  a missing ``responseId``);
* ``executableCode`` / ``codeExecutionResult`` and Gemini 3 ``toolCall`` / ``toolResponse``
  parts are server tools: a whole :class:`pi_sdk.ServerToolCall` / ``ServerToolResult`` each
  (:mod:`._shared_server_tools`);
* an ``inlineData`` part (an image model's output) is a whole :class:`pi_sdk.ImageContent`
  with the part's ``thoughtSignature`` (one ``image`` event); a ``thought: true`` image (a
  draft the model made while thinking) is skipped;
* the ``groundingMetadata`` of the candidate that brings the finish reason (earlier chunks
  repeat an empty one) becomes citations on the text blocks when the reply ends
  (:mod:`._shared_grounding`);
* only the candidate with index 0 counts; other part kinds are skipped;
* ``usageMetadata`` is cumulative: each one replaces the last (a later one without counts does
  not erase it). ``input = promptTokenCount + toolUsePromptTokenCount - cachedContentTokenCount``,
  ``output = candidatesTokenCount + thoughtsTokenCount``, ``cache_read = cachedContentTokenCount``
  (pi-sdk conformance convention; pi-mono does not subtract the cached tokens); token counts
  are live during the stream, the cost is set when it ends;
* ``finishReason`` STOP (or, for a single non-streamed response, none) is ``stop``, MAX_TOKENS
  is ``length``, everything else is ``error`` with a message naming the reason; a reply with a
  tool call that ended with ``stop`` is ``toolUse`` (pi-sdk: pi-mono also turns error-type
  reasons into ``toolUse``); a blocked prompt (``promptFeedback.blockReason``) is an ``error``
  naming the reason; a stream that ends before any ``finishReason`` was cut short and is an
  ``error`` with the partial content kept; the chunk with the ``finishReason`` ends the reply
  (:attr:`GeminiDecoder.terminal`): nothing after it is read.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from typing import Any, cast

from pi_sdk import AssistantMessageEvent, ImageContent
from pi_sdk.provider import Events, MessageBuilder, ProviderError, body_excerpt

from ._client import as_dict, provider_error_from_body
from ._shared_grounding import apply_grounding
from ._shared_request import SYNTHETIC_ID_PREFIX
from ._shared_server_tools import SERVER_PARTS, server_part_block

__all__ = ["GeminiDecoder", "finish_reason_message"]

_COUNTED = frozenset(
    {"promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount", "totalTokenCount"}
)

_FINISH_EXPLANATIONS = {
    "SAFETY": "the response was flagged by the safety filters",
    "RECITATION": "the response was flagged for reciting training data",
    "LANGUAGE": "the response is in an unsupported language",
    "BLOCKLIST": "the response contained a blocklisted term",
    "PROHIBITED_CONTENT": "the response was flagged for prohibited content",
    "SPII": "the response was flagged for sensitive personally identifiable information",
    "MALFORMED_FUNCTION_CALL": "the model produced a function call that could not be parsed",
    "UNEXPECTED_TOOL_CALL": "the model called a tool although no tools are enabled",
    "TOO_MANY_TOOL_CALLS": "the model made too many consecutive tool calls",
    "MISSING_THOUGHT_SIGNATURE": "a function call in the request lacked its thought signature",
    "IMAGE_SAFETY": "the generated image was flagged by the safety filters",
    "IMAGE_PROHIBITED_CONTENT": "the generated image was flagged for prohibited content",
    "IMAGE_RECITATION": "the generated image was flagged for recitation",
    "IMAGE_OTHER": "image generation stopped for another reason",
    "NO_IMAGE": "the model was expected to produce an image but did not",
    "OTHER": "the model stopped for an unspecified reason",
    "FINISH_REASON_UNSPECIFIED": "the model gave no finish reason",
}


def finish_reason_message(reason: str, detail: str | None = None) -> str:
    """Return the ``error_message`` for an error-type ``finishReason`` (with ``finishMessage``)."""
    text = f"Gemini stopped with finish reason {reason}"
    explanation = _FINISH_EXPLANATIONS.get(reason)
    if explanation:
        text += f": {explanation}"
    if detail:
        text += f" ({detail})"
    return text


def _count(metadata: dict[str, Any], key: str) -> int:
    value = metadata.get(key)
    return value if isinstance(value, int) else 0


def _first_candidate(candidates: Any) -> dict[str, Any] | None:
    if not isinstance(candidates, list):
        return None
    for candidate in cast(list[Any], candidates):
        if isinstance(candidate, dict):
            found = cast(dict[str, Any], candidate)
            if found.get("index", 0) == 0:
                return found
    return None


class GeminiDecoder:
    """Decodes one Gemini reply into ``builder`` (the module docstring has the rules).

    Blocks are keyed by kind (``"text"``, ``"thinking"``): Gemini streams one text or thinking
    block at a time, and a part of the other kind (or a function call) closes it.

    Args:
        builder: The builder of the reply; it owns the message and makes the events.
    """

    def __init__(self, builder: MessageBuilder) -> None:
        self._builder = builder
        self._key: str | None = None
        """The kind of the open text or thinking block (its builder key), if one is open."""
        self._ids: set[str] = set()
        self._calls = 0
        self._response_id: str | None = None
        self._candidates = 0
        self._streamed = True
        self.finish_reason: str | None = None
        self._finish_message: str | None = None
        self._block_reason: str | None = None
        self._block_message: str | None = None
        self._usage: Any = None
        """The last ``usageMetadata`` applied (each chunk repeats it; an equal one is skipped)."""
        self._model_seen = False
        self._grounding: dict[str, Any] | None = None
        """The final candidate's ``groundingMetadata`` (applied when the reply ends)."""

    @property
    def terminal(self) -> bool:
        """True once a chunk brought the ``finishReason`` (with the final, cumulative usage)."""
        return self.finish_reason is not None

    # -- chunks -----------------------------------------------------------------------------

    def feed(self, data: dict[str, Any]) -> Events:
        """Apply one response object; return the events it causes.

        Hot path: a chunk whose first candidate holds one ``{"text": ...}`` part while a text
        block is open goes straight to the builder; its usage, equal to the last chunk's, is
        not applied again.

        Raises:
            ProviderError: The chunk is an ``{"error": ...}`` object (an in-stream error).
        """
        if "error" in data:
            raise provider_error_from_body(data["error"])
        if self._response_id is None and data.get("responseId"):
            self._response_id = str(data["responseId"])
            self._builder.set_response(id=self._response_id)
        if not self._model_seen:
            model = data.get("modelVersion")
            self._builder.set_response(model=model)
            self._model_seen = isinstance(model, str) and bool(model)
        usage = data.get("usageMetadata")
        if usage is not None and usage != self._usage and usage.__class__ is dict:
            self._apply_usage(usage)
            self._usage = usage
        if "promptFeedback" in data:  # rare: the prompt's safety verdict
            self._prompt_feedback(data["promptFeedback"])
        candidates: Any = data.get("candidates")
        candidate: Any = None
        if candidates.__class__ is list and candidates:
            candidate = candidates[0]
            if candidate.__class__ is not dict or candidate.get("index", 0) != 0:
                candidate = _first_candidate(candidates)
        if candidate is None:
            return []
        self._candidates += 1
        content: Any = candidate.get("content")
        parts: Any = content.get("parts") if content.__class__ is dict else None
        events: Events = []
        if parts.__class__ is list:
            for part in parts:
                if part.__class__ is dict:
                    text = part.get("text")
                    if self._key == "text" and len(part) == 1 and text.__class__ is str:
                        events += self._builder.append_text("text", text)  # the common part
                    else:
                        events += self._part(part)
        reason = candidate.get("finishReason")
        if reason:
            # Grounding comes whole with the finish reason (earlier chunks carry an empty one):
            # read there, off the per-chunk path.
            grounding = candidate.get("groundingMetadata")
            if grounding and grounding.__class__ is dict:
                self._grounding = grounding
            self.finish_reason = str(reason)
            self._builder.set_raw_stop_reason(self.finish_reason)  # pi-ai 1.6 rawStopReason
            self._finish_message = candidate.get("finishMessage")
        return events

    def _prompt_feedback(self, feedback: Any) -> None:
        fields = as_dict(feedback)
        if fields is not None and fields.get("blockReason"):
            self._block_reason = str(fields["blockReason"])
            self._block_message = fields.get("blockReasonMessage")

    def feed_document(self, document: Any) -> Events:
        """Apply a whole JSON body: one ``GenerateContentResponse`` or an array of them.

        The reply is then complete as sent: no finish reason means ``stop``.

        Raises:
            ProviderError: The document is neither an object nor an array of objects.
        """
        items = cast(list[Any], document) if isinstance(document, list) else [document]
        if not all(isinstance(item, dict) for item in items):
            text = json.dumps(document, ensure_ascii=False)
            raise ProviderError(f"Gemini sent an unexpected JSON response: {body_excerpt(text)!r}")
        self._streamed = False
        events: Events = []
        for item in items:
            events += self.feed(item)
        return events

    def _part(self, part: dict[str, Any]) -> Events:
        builder = self._builder
        signature = part.get("thoughtSignature") or None
        text = part.get("text")
        if isinstance(text, str):
            key = "thinking" if part.get("thought") is True else "text"
            if self._key == key:
                events = (
                    builder.append_text(key, text)
                    if key == "text"
                    else (builder.append_thinking(key, text))
                )
            else:
                events = self._close()
                self._key = key
                if key == "text":
                    events += builder.open_text(key, text)
                else:
                    events += builder.open_thinking(key, text)
            if signature:
                builder.set_signature(key, signature)
            return events
        call = part.get("functionCall")
        if isinstance(call, dict):
            return self._function_call(cast(dict[str, Any], call), signature)
        inline = part.get("inlineData")
        if isinstance(inline, dict) and part.get("thought") is not True:
            return self._image(cast(dict[str, Any], inline), signature)
        for field in SERVER_PARTS:
            if field in part:  # a server tool's part, a whole block, in part order
                events = self._close()
                return events + builder.server_block(server_part_block(part, field))
        if signature and self._key is not None:
            # A part that carries only a signature belongs to the block being built.
            builder.set_signature(self._key, signature)
        return []

    def _image(self, inline: dict[str, Any], signature: str | None) -> Events:
        data, mime_type = inline.get("data"), inline.get("mimeType")
        if not isinstance(data, str) or not isinstance(mime_type, str):
            fields = ", ".join(sorted(inline)) or "none"
            raise ProviderError(
                f"Gemini sent an inlineData part without data or mimeType ({fields})"
            )
        image = ImageContent(data=data, mime_type=mime_type, thought_signature=signature)
        return self._close() + self._builder.server_block(image)

    def _close(self) -> Events:
        key = self._key
        if key is None:
            return []
        self._key = None
        return self._builder.close(key)

    def _function_call(self, call: dict[str, Any], signature: str | None) -> Events:
        events = self._close()
        raw_args = call.get("args")
        arguments: dict[str, Any] = (
            cast(dict[str, Any], raw_args) if isinstance(raw_args, dict) else {}
        )
        self._calls += 1
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id or call_id in self._ids:
            if self._response_id is None:
                self._response_id = secrets.token_hex(8)
            call_id = f"{SYNTHETIC_ID_PREFIX}{self._response_id}_{self._calls}"
        self._ids.add(call_id)
        # No ``args`` is a call without arguments; a value that is not an object is kept as
        # the call's invalid arguments (never run by the agent, replayed as ``{}``).
        invalid = None if raw_args is None or isinstance(raw_args, dict) else json.dumps(raw_args)
        events += self._builder.tool_call(
            id=call_id,
            name=str(call.get("name") or ""),
            arguments=arguments,
            signature=signature,
            invalid_arguments=invalid,
        )
        return events

    def _apply_usage(self, metadata: dict[str, Any]) -> None:
        if _COUNTED.isdisjoint(metadata):
            return  # e.g. Vertex's {"trafficType": ...} only: keep what we had
        cached = _count(metadata, "cachedContentTokenCount")
        prompt = _count(metadata, "promptTokenCount") + _count(metadata, "toolUsePromptTokenCount")
        output = _count(metadata, "candidatesTokenCount") + _count(metadata, "thoughtsTokenCount")
        self._builder.set_usage(
            input=prompt - cached,
            output=output,
            cache_read=cached,
            reasoning=_count(metadata, "thoughtsTokenCount"),  # pi-ai 1.6 usage.reasoning
            price=False,  # priced once, when the reply ends
        )

    # -- end --------------------------------------------------------------------------------

    def finish(self, *, saw_done: bool) -> Iterator[AssistantMessageEvent]:
        """Close the open block and end the reply with ``done``.

        Args:
            saw_done: Unused: Gemini sends no ``[DONE]``; a stream (not a whole document)
                without a ``finishReason`` was cut short.

        Raises:
            ProviderError: A blocked prompt, an error-type finish reason, a stream that ended
                without a finish reason, or a response without any candidate; the message keeps
                its content and usage.
        """
        del saw_done
        if self._grounding is not None:
            apply_grounding(self._grounding, self._builder.message.content)
        yield from self._close()
        builder = self._builder
        if self._block_reason is not None and not builder.message.content:
            detail = f": {self._block_message}" if self._block_message else ""
            raise ProviderError(f"Gemini blocked the prompt ({self._block_reason}){detail}")
        reason = self.finish_reason
        if reason is None and self._streamed:
            raise ProviderError(
                "the Gemini stream ended before a finish reason arrived (incomplete response)"
            )
        if not self._candidates and self._block_reason is None:
            raise ProviderError(
                "Gemini sent a response without candidates: not a GenerateContentResponse"
                " (a proxy's answer?), nothing to return"
            )
        if reason is None or reason == "STOP":
            yield from builder.done("stop")
        elif reason == "MAX_TOKENS":
            yield from builder.done("length")
        else:
            raise ProviderError(finish_reason_message(reason, self._finish_message))
