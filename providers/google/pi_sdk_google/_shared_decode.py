"""The decode of Gemini response chunks, shared by both APIs: ``GenerateContentResponse`` to events.

pi-spec §4.8; the Gemini API and Vertex AI send the same chunks.

:class:`ResponseNormalizer` consumes the JSON objects of a ``streamGenerateContent?alt=sse``
stream (or the one object of ``generateContent``) and builds the output message, yielding
events as it goes:

* parts with ``thought: true`` are thinking, other text parts are text; consecutive parts of
  the same kind extend one block, and a part's ``thoughtSignature`` is kept on the block it came
  with (the latest non-empty one wins, pi-mono ``retainThoughtSignature``);
* a ``functionCall`` part arrives whole: ``toolcall_start``, one ``toolcall_delta`` with the
  arguments' JSON, ``toolcall_end``; missing ``args`` become ``{}``; a call without an id (or
  repeating one already used in this reply) gets ``gemini_call_<responseId>_<n>``, ``n``
  counting the reply's calls from 1: unique, in order, so parallel calls to the same function
  stay distinct, and the same on every replay of a recorded response (random hex stands in for
  a missing ``responseId``);
* only the candidate with index 0 counts; other part kinds (``executableCode``, inline output
  data) are not content blocks and are skipped;
* ``usageMetadata`` is cumulative: each one replaces the last (a later one without counts does
  not erase it). ``input = promptTokenCount + toolUsePromptTokenCount - cachedContentTokenCount``,
  ``output = candidatesTokenCount + thoughtsTokenCount``, ``cache_read = cachedContentTokenCount``
  (pi-sdk conformance convention; pi-mono does not subtract the cached tokens); token counts
  are live during the stream, the cost is set when it ends (``ResponseNormalizer.price_usage``);
* ``finishReason`` STOP (or, for a single non-streamed response, none) is ``stop``, MAX_TOKENS
  is ``length``, everything else is ``error`` with a message naming the reason; a reply with a
  tool call that ended with ``stop`` is ``toolUse`` (pi-sdk: pi-mono also turns error-type
  reasons into ``toolUse``); a blocked prompt (``promptFeedback.blockReason``) is an ``error``
  naming the reason; a stream that ends before any ``finishReason`` was cut short and is an
  ``error`` with the partial content kept.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from typing import Any, cast

from pi_sdk.provider import (
    AssistantMessage,
    AssistantMessageEvent,
    DoneEvent,
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

from ._client import as_dict, provider_error_from_body
from ._shared_request import SYNTHETIC_ID_PREFIX

__all__ = ["ResponseNormalizer", "finish_reason_message"]

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


class ResponseNormalizer:
    """Builds one assistant message from Gemini response chunks.

    Args:
        model: The model called (for cost).
        output: The message to fill; every event carries it as ``partial``.
    """

    def __init__(self, model: Model, output: AssistantMessage) -> None:
        self._model = model
        self._output = output
        self._block: TextContent | ThinkingContent | None = None
        self._index = -1
        self._ids: set[str] = set()
        self._calls = 0
        self._priced = True
        self._response_id: str | None = None
        self._has_tool_call = False
        self._candidates = 0
        self.finish_reason: str | None = None
        self._finish_message: str | None = None
        self._block_reason: str | None = None
        self._block_message: str | None = None
        self.response_model: str | None = None
        """The first ``modelVersion`` the response reported."""

    # -- chunks -----------------------------------------------------------------------------

    def feed(self, chunk: dict[str, Any]) -> Iterator[AssistantMessageEvent]:
        """Apply one response object; yield the events it causes.

        Raises:
            ProviderError: The chunk is an ``{"error": ...}`` object (an in-stream error).
        """
        if "error" in chunk:
            raise provider_error_from_body(chunk["error"])
        if self.response_model is None and chunk.get("modelVersion"):
            self.response_model = str(chunk["modelVersion"])
        if self._response_id is None and chunk.get("responseId"):
            self._response_id = str(chunk["responseId"])
        usage = as_dict(chunk.get("usageMetadata"))
        if usage is not None:
            self._apply_usage(usage)
        feedback = as_dict(chunk.get("promptFeedback"))
        if feedback is not None and feedback.get("blockReason"):
            self._block_reason = str(feedback["blockReason"])
            self._block_message = feedback.get("blockReasonMessage")
        candidate = self._first_candidate(chunk.get("candidates"))
        if candidate is None:
            return
        self._candidates += 1
        content = as_dict(candidate.get("content"))
        parts = content.get("parts") if content is not None else None
        if isinstance(parts, list):
            for part in cast(list[Any], parts):
                if isinstance(part, dict):
                    yield from self._part(cast(dict[str, Any], part))
        reason = candidate.get("finishReason")
        if reason:
            self.finish_reason = str(reason)
            self._finish_message = candidate.get("finishMessage")

    @staticmethod
    def _first_candidate(candidates: Any) -> dict[str, Any] | None:
        if not isinstance(candidates, list):
            return None
        for candidate in cast(list[Any], candidates):
            if isinstance(candidate, dict):
                found = cast(dict[str, Any], candidate)
                if found.get("index", 0) == 0:
                    return found
        return None

    def _part(self, part: dict[str, Any]) -> Iterator[AssistantMessageEvent]:
        signature = part.get("thoughtSignature") or None
        text = part.get("text")
        if isinstance(text, str):
            thinking = part.get("thought") is True
            block = self._block
            if block is None or isinstance(block, ThinkingContent) != thinking:
                yield from self._close()
                yield self._open(thinking)
                block = self._block
                assert block is not None
            if isinstance(block, ThinkingContent):
                if text:
                    block.append(text)
                    yield ThinkingDeltaEvent(
                        content_index=self._index, delta=text, partial=self._output
                    )
                if signature:
                    block.thinking_signature = signature
            else:
                if text:
                    block.append(text)
                    yield TextDeltaEvent(
                        content_index=self._index, delta=text, partial=self._output
                    )
                if signature:
                    block.text_signature = signature
            return
        call = part.get("functionCall")
        if isinstance(call, dict):
            yield from self._function_call(cast(dict[str, Any], call), signature)
        elif signature and self._block is not None:
            # A part that carries only a signature belongs to the block being built.
            if isinstance(self._block, ThinkingContent):
                self._block.thinking_signature = signature
            else:
                self._block.text_signature = signature

    def _open(self, thinking: bool) -> AssistantMessageEvent:
        block: TextContent | ThinkingContent = ThinkingContent() if thinking else TextContent()
        self._output.content.append(block)
        self._index = len(self._output.content) - 1
        self._block = block
        if thinking:
            return ThinkingStartEvent(content_index=self._index, partial=self._output)
        return TextStartEvent(content_index=self._index, partial=self._output)

    def _close(self) -> Iterator[AssistantMessageEvent]:
        block = self._block
        if block is None:
            return
        self._block = None
        if isinstance(block, ThinkingContent):
            yield ThinkingEndEvent(
                content_index=self._index, content=block.thinking, partial=self._output
            )
        else:
            yield TextEndEvent(content_index=self._index, content=block.text, partial=self._output)

    def _function_call(
        self, call: dict[str, Any], signature: str | None
    ) -> Iterator[AssistantMessageEvent]:
        yield from self._close()
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
        tool_call = ToolCall(
            id=call_id,
            name=str(call.get("name") or ""),
            arguments=arguments,
            thought_signature=signature,
        )
        self._output.content.append(tool_call)
        self._has_tool_call = True
        index = len(self._output.content) - 1
        yield ToolCallStartEvent(content_index=index, partial=self._output)
        yield ToolCallDeltaEvent(
            content_index=index,
            delta=json.dumps(arguments, ensure_ascii=False),
            partial=self._output,
        )
        yield ToolCallEndEvent(content_index=index, tool_call=tool_call, partial=self._output)

    def _apply_usage(self, metadata: dict[str, Any]) -> None:
        if not _COUNTED.intersection(metadata):
            return  # e.g. Vertex's {"trafficType": ...} only: keep what we had
        cached = _count(metadata, "cachedContentTokenCount")
        counts = {
            "input": _count(metadata, "promptTokenCount")
            + _count(metadata, "toolUsePromptTokenCount")
            - cached,
            "output": _count(metadata, "candidatesTokenCount")
            + _count(metadata, "thoughtsTokenCount"),
            "cache_read": cached,
        }
        usage = self._output.usage
        # Usually only the output count moves between chunks; a pydantic field write costs
        # about a microsecond, so unchanged fields are not rewritten.
        for name, value in counts.items():
            if getattr(usage, name) != value:
                setattr(usage, name, value)
        total = counts["input"] + counts["output"] + counts["cache_read"] + usage.cache_write
        if usage.total_tokens != total:
            usage.total_tokens = total
        self._priced = False

    def price_usage(self) -> None:
        """Set ``usage.cost`` from the current token counts (idempotent; once per call).

        Token counts are updated chunk by chunk; the cost only when the stream ends (done,
        error, abort or early exit), which saves ten pydantic field writes per chunk.
        """
        if not self._priced:
            self._priced = True
            calculate_cost(self._model, self._output.usage)

    # -- end --------------------------------------------------------------------------------

    def finish(self, *, streamed: bool) -> Iterator[AssistantMessageEvent]:
        """Close the open block and yield ``done``.

        Args:
            streamed: True for a ``streamGenerateContent`` stream, where a missing
                ``finishReason`` means the stream was cut short.

        Raises:
            ProviderError: A blocked prompt, an error-type finish reason, a stream that ended
                without a finish reason, or a response without any candidate; the output keeps
                its content and usage.
        """
        yield from self._close()
        self.price_usage()
        output = self._output
        if self._block_reason is not None and not output.content:
            detail = f": {self._block_message}" if self._block_message else ""
            raise ProviderError(f"Gemini blocked the prompt ({self._block_reason}){detail}")
        reason = self.finish_reason
        if reason is None and streamed:
            raise ProviderError(
                "the Gemini stream ended before a finish reason arrived (incomplete response)"
            )
        if not self._candidates and self._block_reason is None:
            raise ProviderError(
                "Gemini sent a response without candidates: not a GenerateContentResponse"
                " (a proxy's answer?), nothing to return"
            )
        if reason is None or reason == "STOP":
            output.stop_reason = "toolUse" if self._has_tool_call else "stop"
        elif reason == "MAX_TOKENS":
            output.stop_reason = "length"
        else:
            raise ProviderError(finish_reason_message(reason, self._finish_message))
        yield DoneEvent(reason=output.stop_reason, message=output)
