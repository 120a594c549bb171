"""The stream of a call with fallback models: one attempt per model, one event protocol.

:class:`FallbackStream` is what :meth:`pi_sdk.Models.stream` returns when
``StreamOptions.fallback`` is set (the policy: :mod:`pi_sdk._models.fallback`). It calls the
models of the chain in order, each through the collection's ordinary call (its own retries,
timeouts, rate limit), and keeps pi's event protocol for the caller: one ``start``, blocks,
one terminal event.

* **Before content.** An attempt's ``start`` is held back until its first content event, so a
  model that fails before any content (a 529, a refused connection, an overflow) is left without
  a trace in the events: the next model is tried transparently.
* **After content.** The policy's ``after_content`` decides: ``"error"`` ends the call with the
  failure (partial content kept); ``"continue"`` closes the open blocks, sends the next model
  the history plus the partial reply (``stop_reason`` ``"length"``, as the vendor sent it: the
  next provider's history transform makes it valid for it, thinking, signatures, tool-call ids)
  plus a user message asking it to continue, and streams its blocks after the ones already
  seen (``content_index`` continues). The final message is the answering model's
  (``provider``/``model``/``response_model``, its ``usage``), its content the partial's blocks
  (signatures dropped: another model minted them) followed by its own.
* **Visibility.** Each failed attempt is a ``"fallback"`` :class:`~pi_sdk.Diagnostic` on the
  final message (the model, the failure kind and text, its usage, and a partial reply as the
  vendor sent it), a :class:`~pi_sdk._models.fallback.FallbackAttempt` in
  :attr:`FallbackStream.attempts` (every attempt, the answering one too), a call of the policy's
  ``on_attempt``, and a warning on the ``pi_sdk.fallback`` logger.

Nothing here runs per event of a call without ``fallback``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncGenerator, Callable
from typing import Any, cast

from pi_sdk._models.fallback import (
    FailureKind,
    FallbackAttempt,
    FallbackEntry,
    FallbackPolicy,
    classify_failure,
)
from pi_sdk._stream.event_stream import AssistantMessageEventStream
from pi_sdk.events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextEndEvent,
    ThinkingEndEvent,
)
from pi_sdk.options import StreamOptions
from pi_sdk.types import (
    AssistantContent,
    AssistantMessage,
    Context,
    Diagnostic,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    UserMessage,
)

__all__ = ["FallbackRun", "FallbackStream"]

logger = logging.getLogger("pi_sdk.fallback")

StartAttempt = Callable[[Model, Context, StreamOptions], AssistantMessageEventStream]
"""The collection's ordinary call (no fallback): one attempt."""


class FallbackStream(AssistantMessageEventStream):
    """The event stream of a call with fallback models (module doc); the same API as any."""

    def __init__(self, run: FallbackRun) -> None:
        """Run ``run``'s chain (:func:`fallback_stream` builds one)."""
        self._call = cast("Any", run)
        self._events = run.events()
        self._iterating = False

    @property
    def attempts(self) -> list[FallbackAttempt]:
        """Every model tried so far, in order, with its outcome, usage and cost."""
        return list(cast("FallbackRun", self._call).attempts)

    def usage_by_model(self) -> dict[str, Usage]:
        """Usage per ``"provider/model"`` over every attempt (costs in ``usage.cost``, USD)."""
        totals: dict[str, Usage] = {}
        for attempt in self.attempts:
            name = f"{attempt.provider}/{attempt.model}"
            seen = totals.get(name)
            totals[name] = attempt.usage if seen is None else _add(seen, attempt.usage)
        return totals


def _add(a: Usage, b: Usage) -> Usage:
    """``a + b``: every token count and cost (USD) summed."""
    return Usage.model_validate(_sum(a.model_dump(), b.model_dump()))


def _sum(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for key, value in b.items():
        mine = out.get(key)
        if isinstance(value, dict) and isinstance(mine, dict):
            out[key] = _sum(cast("dict[str, Any]", mine), cast("dict[str, Any]", value))
        elif isinstance(value, int | float) and isinstance(mine, int | float):
            out[key] = mine + value
        elif mine is None:
            out[key] = value
    return out


class FallbackRun:
    """The machinery under :class:`FallbackStream` (kept apart: no cycle with the generator).

    Args:
        start: The collection's ordinary call (one attempt).
        chain: The entries to try, the call's own model first.
        context: The request.
        options: The call's options (each attempt's are derived from them).
        policy: What moves on, and how.
    """

    def __init__(
        self,
        start: StartAttempt,
        chain: list[FallbackEntry],
        context: Context,
        options: StreamOptions,
        policy: FallbackPolicy,
    ) -> None:
        self._start = start
        self._chain = chain
        self._context = context
        self._options = options
        self._policy = policy
        self.attempts: list[FallbackAttempt] = []
        self.final: AssistantMessage | None = None
        self.failure: BaseException | None = None

    def _options_for(self, entry: FallbackEntry) -> StreamOptions:
        first = self._chain[0].model
        changes: dict[str, Any] = {"fallback": None}
        if entry.model.provider != first.provider:
            changes["api_key"] = None  # the caller's key is the first provider's
        if entry.model.api != first.api:
            changes["client"] = None  # a vendor client of another API
        changes.update(entry.options)
        return dataclasses.replace(self._options, **changes)

    def _next(self, index: int, kind: FailureKind) -> int | None:
        """The chain index tried after ``index`` failed with ``kind`` (``None``: none left)."""
        window = self._chain[index].model.context_window
        for later in range(index + 1, len(self._chain)):
            if kind != "overflow" or not window:
                return later
            if self._chain[later].model.context_window > window:
                return later  # overflow: only a larger window helps
        return None

    def _record(
        self,
        entry: FallbackEntry,
        message: AssistantMessage,
        kind: FailureKind | None,
        *,
        moved_on: bool,
        content: bool,
    ) -> FallbackAttempt:
        attempt = FallbackAttempt(
            provider=entry.model.provider,
            model=entry.model.id,
            api=entry.model.api,
            outcome="answered" if kind is None else "failed",
            kind=kind,
            error=message.error_message if kind is not None else None,
            moved_on=moved_on,
            content_streamed=content,
            usage=message.usage,
            message=message,
        )
        self.attempts.append(attempt)
        if kind is None:
            return attempt
        nxt = "; moving on" if moved_on else ""
        logger.warning(
            "fallback: %s/%s failed (%s): %s%s",
            attempt.provider,
            attempt.model,
            kind,
            attempt.error,
            nxt,
        )
        if self._policy.on_attempt is not None:
            try:
                self._policy.on_attempt(attempt)
            except Exception:  # noqa: BLE001 - an observer must not change the call
                logger.exception("fallback: on_attempt raised")
        return attempt

    def _finalize(self, message: AssistantMessage) -> AssistantMessage:
        """``message`` with one ``fallback`` diagnostic per failed attempt."""
        failed = [a for a in self.attempts if a.outcome == "failed"]
        if not failed:
            return message
        diagnostics = list(message.diagnostics or [])
        for attempt in failed:
            failure = {"name": attempt.kind, "message": attempt.error or ""}
            diagnostics.append(
                Diagnostic(type="fallback", error=failure, details=attempt.diagnostic_details())
            )
        message.diagnostics = diagnostics
        return message

    async def events(self) -> AsyncGenerator[AssistantMessageEvent, None]:
        policy = self._policy
        context = self._context
        index = 0
        started = False
        merged: AssistantMessage | None = None
        """After a continuation: the message the caller sees (earlier blocks + this model's)."""
        offset = 0
        stream: AssistantMessageEventStream | None = None
        try:
            while True:
                entry = self._chain[index]
                stream = self._start(entry.model, context, self._options_for(entry))
                held: StartEvent | None = None
                content = False
                open_blocks: dict[int, AssistantMessageEvent] = {}
                terminal: DoneEvent | ErrorEvent | None = None
                async for event in stream:
                    kind = event.type
                    if kind == "start":
                        held = cast("StartEvent", event)
                        continue
                    if kind == "done" or kind == "error":
                        terminal = cast("DoneEvent | ErrorEvent", event)
                        break
                    if not content:
                        content = True
                        if not started:
                            started = True
                            yield held if held is not None else StartEvent(partial=event.partial)
                    if kind.endswith("_start"):
                        open_blocks[event.content_index] = event  # pyright: ignore
                    elif kind.endswith("_end"):
                        open_blocks.pop(event.content_index, None)  # pyright: ignore
                    if merged is not None:
                        merged.content[offset:] = event.partial.content
                        event = dataclasses.replace(
                            cast("Any", event),
                            content_index=event.content_index + offset,  # pyright: ignore
                            partial=merged,
                        )
                    yield event
                await stream.aclose()
                assert terminal is not None  # the stream's contract: one terminal event
                message = terminal.message
                target: int | None = None
                if isinstance(terminal, DoneEvent):
                    self._record(entry, message, None, moved_on=False, content=content)
                    policy.answered(self._chain[0], entry)
                else:
                    self.failure = stream.failure
                    kind = classify_failure(message, stream.failure, entry.model)
                    target = self._next(index, kind) if policy.moves_on(kind) else None
                    if content and (
                        policy.after_content != "continue"
                        or any(isinstance(b, ToolCall) for b in message.content)
                    ):
                        target = None
                    moved = target is not None
                    self._record(entry, message, kind, moved_on=moved, content=content)
                if target is None:  # the call ends here, with this attempt's outcome
                    if merged is not None:
                        message = _merge(merged, offset, message)
                    self.final = final = self._finalize(message)
                    if not started:
                        yield held if held is not None else StartEvent(partial=final)
                    if isinstance(terminal, DoneEvent):
                        yield DoneEvent(reason=terminal.reason, message=final)
                    else:
                        yield ErrorEvent(reason=terminal.reason, error=final)
                    return
                if content:
                    shown = merged if merged is not None else message
                    if merged is not None:
                        merged.content[offset:] = message.content
                    for opened in sorted(open_blocks, reverse=False):
                        end = _close(opened + (offset if merged is not None else 0), shown)
                        if end is not None:
                            yield end
                    context = _continuation(context, message, policy.continue_prompt)
                    merged = _carry(shown, self._chain[target].model)
                    offset = len(merged.content)
                elif merged is not None:
                    merged = _carry(merged, self._chain[target].model)
                index = target
        finally:
            if stream is not None:
                await stream.aclose()
            if self.final is None and stream is not None:
                self.final = await stream.result()


def _own_blocks(blocks: list[AssistantContent]) -> list[AssistantContent]:
    """Blocks of another model as the answering model's own: its signatures dropped."""
    own: list[AssistantContent] = []
    for block in blocks:
        if isinstance(block, ThinkingContent) and block.thinking_signature:
            block = block.model_copy(update={"thinking_signature": None})
        elif isinstance(block, TextContent) and block.text_signature:
            block = block.model_copy(update={"text_signature": None})
        own.append(block)
    return own


def _carry(shown: AssistantMessage, model: Model) -> AssistantMessage:
    """The message the caller sees while ``model`` continues ``shown`` (its identity now)."""
    return shown.model_copy(
        update={
            "content": _own_blocks(list(shown.content)),
            "api": model.api,
            "provider": model.provider,
            "model": model.id,
            "response_model": None,
            "response_id": None,
            "stop_reason": "stop",
            "error_message": None,
            "usage": Usage(),
            "usage_estimated": None,
            "diagnostics": None,
        }
    )


def _merge(merged: AssistantMessage, offset: int, final: AssistantMessage) -> AssistantMessage:
    """The answering model's final message with the carried blocks before its own."""
    return final.model_copy(update={"content": list(merged.content[:offset]) + final.content})


def _close(index: int, message: AssistantMessage) -> AssistantMessageEvent | None:
    """The ``*_end`` event of the open text or thinking block at ``index`` of ``message``."""
    block = message.content[index] if index < len(message.content) else None
    if isinstance(block, TextContent):
        return TextEndEvent(content_index=index, content=block.text, partial=message)
    if isinstance(block, ThinkingContent):
        return ThinkingEndEvent(content_index=index, content=block.thinking, partial=message)
    return None


def _continuation(context: Context, partial: AssistantMessage, prompt: str) -> Context:
    """The history the next model continues from: ``partial`` as sent, then ``prompt``."""
    cut = partial.model_copy(update={"stop_reason": "length", "error_message": None})
    messages = [*context.messages, cut, UserMessage(content=prompt)]
    return context.model_copy(update={"messages": messages})
