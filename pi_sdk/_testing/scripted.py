"""A scripted provider: replay prepared assistant replies, offline, for tests and examples.

:class:`ScriptedProvider` is a real provider (API id ``"scripted"``, registered like any other),
so code under test runs exactly as it would against a vendor: the same
:class:`pi_sdk.AssistantMessageEventStream`, the same event protocol, aborts and errors. Each
model call takes the next :class:`ScriptedReply` and streams it: text and thinking in small
deltas, tool-call arguments as raw JSON fragments (parsed incrementally, as providers do),
optional delays, a failure after some content, or a wait until the call is aborted. Every call
is recorded (:attr:`ScriptedProvider.calls`) so a test can assert what the model saw.

Example:
    ```python
    provider = ScriptedProvider([
        ScriptedReply.tool_call("get_weather", {"city": "Paris"}),
        "It is sunny in Paris.",                      # a plain string is a text reply
    ])
    agent = pi_sdk.Agent(model=provider.model, tools=[get_weather])
    await agent.prompt("Weather in Paris?")
    assert provider.calls[1].messages[-1].role == "toolResult"
    ```
"""

from __future__ import annotations

import asyncio
import itertools
import json
import weakref
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pydantic import PrivateAttr

from pi_sdk._models.registry import get_api_provider, register_api_provider
from pi_sdk._stream.builder import Events, MessageBuilder
from pi_sdk._stream.contract import ApiProvider
from pi_sdk._stream.event_stream import AssistantMessageEventStream
from pi_sdk._stream.provider_errors import ProviderError
from pi_sdk._wire.abort import AbortSignal
from pi_sdk.errors import ProviderNotFoundError
from pi_sdk.events import AssistantMessageEvent
from pi_sdk.options import StreamOptions
from pi_sdk.types import (
    Context,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)

__all__ = [
    "SCRIPTED_API",
    "ScriptedCall",
    "ScriptedModel",
    "ScriptedProvider",
    "ScriptedReply",
    "ScriptedStep",
]

SCRIPTED_API = "scripted"
"""The API id the scripted provider registers."""

ScriptedBlock: TypeAlias = TextContent | ThinkingContent | ToolCall


@dataclass(kw_only=True)
class ScriptedReply:
    """One scripted assistant reply.

    Blocks in ``content`` are templates: each call streams fresh copies. A :class:`ToolCall`
    with an empty ``id`` gets ``call_<n>``; one with ``invalid_arguments`` set streams that raw
    text as its arguments (e.g. ``'{"city": "Par'``: a model's broken JSON).

    Attributes:
        content: Text, thinking and tool-call blocks, streamed in order.
        stop_reason: ``"stop"``, ``"length"`` or ``"toolUse"``; default ``"toolUse"`` when the
            content has a tool call, else ``"stop"``.
        error: If set, the call fails with this message after streaming ``content``
            (``stop_reason == "error"``, partial content kept).
        wait_for_abort: After ``content``, block until the call is aborted (``stop_reason ==
            "aborted"``, partial content kept). Without an abort signal it blocks forever.
        delay_ms: Sleep before each event, milliseconds (abortable).
        chunk_size: Characters per text/thinking delta and per tool-argument JSON fragment;
            ``0`` sends each block in one delta.
        usage: Usage to report (default all zero).
    """

    content: Sequence[ScriptedBlock] = ()
    stop_reason: Literal["stop", "length", "toolUse"] | None = None
    error: str | None = None
    wait_for_abort: bool = False
    delay_ms: float = 0
    chunk_size: int = 8
    usage: Usage | None = None

    @classmethod
    def text(cls, text: str, **options: Any) -> ScriptedReply:
        """A reply with one text block; ``options`` are the other fields."""
        return cls(content=[TextContent(text=text)], **options)

    @classmethod
    def tool_call(
        cls,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        id: str = "",  # noqa: A002 - the wire field's name
        text: str | None = None,
        **options: Any,
    ) -> ScriptedReply:
        """A reply calling one tool, optionally after some text."""
        blocks: list[ScriptedBlock] = [TextContent(text=text)] if text else []
        blocks.append(ToolCall(id=id, name=name, arguments=arguments or {}))
        return cls(content=blocks, **options)

    @classmethod
    def failure(
        cls, message: str, content: Sequence[ScriptedBlock] = (), **options: Any
    ) -> ScriptedReply:
        """A reply that streams ``content`` and then fails with ``message``."""
        return cls(content=content, error=message, **options)

    @classmethod
    def until_aborted(cls, content: Sequence[ScriptedBlock] = (), **options: Any) -> ScriptedReply:
        """A reply that streams ``content`` and then waits until the call is aborted."""
        return cls(content=content, wait_for_abort=True, **options)


@dataclass(kw_only=True)
class ScriptedCall:
    """One recorded model call."""

    model: Model
    context: Context
    """The context as the provider received it: a new ``Context`` whose ``messages`` list is a
    copy of the call's list (so it keeps the history of that call while the transcript grows),
    holding the same message objects (not copies: read them, do not mutate them).

    Copying the list costs one reference per message; a deep copy of the whole history on
    every call made long scripted runs quadratic in the size of the messages."""
    options: StreamOptions

    @property
    def messages(self) -> list[Message]:
        """The history the model saw: ``context.messages`` after ``transform_messages``.

        Errored and aborted turns are dropped and orphaned tool calls answered, as every
        provider does before sending.
        """
        from pi_sdk._wire.transform import transform_messages

        return transform_messages(list(self.context.messages), self.model)


ScriptedStep: TypeAlias = "ScriptedReply | str | Callable[[ScriptedCall], ScriptedReply | str]"
"""A script entry: a reply, a string (a text reply), or a function of the call giving one."""

_instances: weakref.WeakValueDictionary[str, ScriptedProvider] = weakref.WeakValueDictionary()
_ids = itertools.count(1)


class ScriptedModel(Model):
    """The :class:`pi_sdk.Model` of a :class:`ScriptedProvider`; it keeps its provider alive.

    ``ScriptedProvider([...]).model`` therefore works without holding on to the provider. A
    model rebuilt from JSON finds its provider by ``id`` while that provider is alive.
    """

    _provider: ScriptedProvider | None = PrivateAttr(default=None)


async def _dispatch(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    provider: ScriptedProvider | None = getattr(model, "_provider", None)
    if provider is None:
        provider = _instances.get(model.id)
    if provider is None:
        raise ProviderError(f"no ScriptedProvider is alive for scripted model {model.id!r}")
    async for event in provider.stream(model, context, options):
        yield event


def ensure_registered() -> None:
    """Register the ``"scripted"`` API provider if it is not (idempotent)."""
    try:
        existing = get_api_provider(SCRIPTED_API)
    except ProviderNotFoundError:
        existing = None
    if existing is None or existing.stream is not _dispatch:
        register_api_provider(
            ApiProvider(api=SCRIPTED_API, stream=_dispatch, source_id="pi_sdk._testing.scripted")
        )


class ScriptedProvider:
    """Replays scripted replies as real event streams and records every call.

    Args:
        replies: The script, consumed one entry per model call. A string is a text reply; a
            callable receives the :class:`ScriptedCall` and returns the reply (dynamic answers).
        model_id: Id of :attr:`model` (default ``scripted-<n>``, unique per instance). Calls
            are routed to the provider by this id.
        provider: ``model.provider`` (default ``"scripted"``).
        reasoning: ``model.reasoning``.

    Raises:
        ConfigurationError: another provider already serves the ``"scripted"`` API.
    """

    def __init__(
        self,
        replies: Iterable[ScriptedStep] = (),
        *,
        model_id: str | None = None,
        provider: str = "scripted",
        reasoning: bool = False,
    ) -> None:
        """Create the provider and register the ``"scripted"`` API if needed."""
        self._script: deque[ScriptedStep] = deque(replies)
        self._played = 0
        self.calls: list[ScriptedCall] = []
        """Every call so far, in order."""
        self.model = ScriptedModel(
            id=model_id or f"scripted-{next(_ids)}",
            name="Scripted model",
            api=SCRIPTED_API,
            provider=provider,
            reasoning=reasoning,
            input=["text", "image"],
        )
        """The model to hand to ``pi_sdk.stream`` / ``Agent``; calls route back here."""
        self.model._provider = self  # pyright: ignore[reportPrivateUsage]
        self._tool_ids = itertools.count(1)
        _instances[self.model.id] = self
        ensure_registered()

    def __repr__(self) -> str:
        return f"ScriptedProvider(model_id={self.model.id!r}, remaining={len(self._script)})"

    def register(self) -> None:
        """Register the ``"scripted"`` API again, e.g. after the plugin manager was replaced.

        Not needed with :meth:`stream_fn`, which bypasses the registry.
        """
        ensure_registered()

    def add(self, *replies: ScriptedStep) -> None:
        """Append replies to the script."""
        self._script.extend(replies)

    @property
    def remaining(self) -> int:
        """How many scripted replies are left."""
        return len(self._script)

    def stream_fn(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AssistantMessageEventStream:
        """Like :func:`pi_sdk.stream`, without the registry (usable as an agent ``stream_fn``)."""
        options = options or StreamOptions()
        return AssistantMessageEventStream(
            lambda: self.stream(model, context, options),
            model=model,
            signal=options.signal,
            max_retries=0,
        )

    async def stream(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AsyncIterator[AssistantMessageEvent]:
        """The provider's stream function: record the call, then stream the next reply.

        Raises:
            ProviderError: the script is exhausted, or the reply has ``error`` set (the stream
                wrapper turns both into an ``error`` event).
        """
        snapshot = context.model_copy(update={"messages": list(context.messages)})
        call = ScriptedCall(model=model, context=snapshot, options=options)
        self.calls.append(call)
        if not self._script:
            raise ProviderError(
                f"ScriptedProvider {model.id!r} has no reply left for call {len(self.calls)}"
                f" ({self._played} were scripted)"
            )
        step = self._script.popleft()
        self._played += 1
        reply = step(call) if callable(step) else step
        if isinstance(reply, str):
            reply = ScriptedReply.text(reply)
        async for event in self._play(reply, model, options.signal):
            yield event

    async def _play(
        self, reply: ScriptedReply, model: Model, signal: AbortSignal | None
    ) -> AsyncIterator[AssistantMessageEvent]:
        builder = MessageBuilder(model)
        await _pause(reply)
        yield builder.start()
        for template in reply.content:
            for events in self._block(template, builder, reply.chunk_size):
                for event in events:
                    await _pause(reply)
                    yield event
        if reply.error is not None:
            await _pause(reply)
            raise ProviderError(reply.error)
        if reply.wait_for_abort:
            if signal is None:
                await asyncio.Event().wait()
            else:
                await signal.wait()
            raise ProviderError("Request was aborted")
        if reply.usage is not None:
            builder.message.usage = reply.usage.model_copy(deep=True)
        # An explicit stop reason is kept as given; the default is toolUse with a tool call.
        if reply.stop_reason is None:
            final = builder.done()
        else:
            final = builder.done(reply.stop_reason, exact=True)
        await _pause(reply)
        yield final[-1]

    def _block(
        self, template: ScriptedBlock, builder: MessageBuilder, size: int
    ) -> Iterator[Events]:
        """The builder calls that stream one template block: open, chunked deltas, end."""
        if isinstance(template, TextContent):
            yield builder.open_text(0, signature=template.text_signature)
            for chunk in _chunks(template.text, size):
                yield builder.append_text(0, chunk)
            yield builder.end_text(0)
        elif isinstance(template, ThinkingContent):
            yield builder.open_thinking(
                0, signature=template.thinking_signature, redacted=template.redacted
            )
            for chunk in _chunks(template.thinking, size):
                yield builder.append_thinking(0, chunk)
            yield builder.end_thinking(0)
        else:
            yield builder.open_tool_call(
                0,
                id=template.id or f"call_{next(self._tool_ids)}",
                name=template.name,
                signature=template.thought_signature,
            )
            arguments = template.invalid_arguments
            if arguments is None:
                arguments = json.dumps(template.arguments, ensure_ascii=False)
            for fragment in _chunks(arguments, size):
                yield builder.append_arguments(0, fragment)
            yield builder.end_tool_call(0)


def _chunks(text: str, size: int) -> list[str]:
    if size <= 0 or len(text) <= size:
        return [text] if text else []
    return [text[i : i + size] for i in range(0, len(text), size)]


async def _pause(reply: ScriptedReply) -> None:
    if reply.delay_ms > 0:
        await asyncio.sleep(reply.delay_ms / 1000)
