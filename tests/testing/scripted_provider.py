"""A scripted provider for the conformance kit's own tests: each call plays the next message.

The kit judges the events a provider gives; these tests need a provider whose every call's
reply is chosen in advance (the whole reply, then a cut one...), so they can check each of the
kit's judgements alone. :func:`scripted` returns a stream function playing ``replies`` in order
(the last repeats) as a well-formed event sequence: ``start``, each text block's start, one
delta per character, its end, then ``done`` (stop reasons ``stop``/``length``/``toolUse``) or
``error``. Each event's ``partial`` holds exactly what the deltas so far said.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from pi_sdk_pytest import ProviderUnderTest, RecordedBody

import pi_sdk
import pi_sdk.provider as kit
from pi_sdk import (
    AssistantMessage,
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
)

API = "scripted-toy"
BODY = RecordedBody(name="abc", body=b"abc", content_type="text/plain")
"""Three bytes: the truncation rule makes four calls (the whole body, then cuts 0, 1 and 2)."""


def reply(*texts: str, stop: str = "stop", error: str | None = None) -> AssistantMessage:
    """A reply of one text block per text (``error``: its error message)."""
    return AssistantMessage(
        api=API,
        provider="toy",
        model="toy-1",
        content=[TextContent(text=t) for t in texts],
        stop_reason=stop,  # type: ignore[arg-type]
        error_message=error,
    )


def cut(*texts: str, stop: str = "error") -> AssistantMessage:
    """A reply cut short: ends in ``error`` with the message ``"cut short"``."""
    return reply(*texts, stop=stop, error="cut short")


async def play(message: AssistantMessage) -> AsyncIterator[AssistantMessageEvent]:
    """``message`` as a well-formed event sequence, partials included."""
    partial = reply(stop="stop")
    yield StartEvent(partial=partial)
    for index, block in enumerate(message.content):
        assert isinstance(block, TextContent)
        partial = partial.model_copy(update={"content": [*partial.content, TextContent(text="")]})
        yield TextStartEvent(content_index=index, partial=partial)
        for char in block.text:
            content = list(partial.content)
            content[index] = TextContent(text=f"{content[index].text}{char}")  # type: ignore[union-attr]
            partial = partial.model_copy(update={"content": content})
            yield TextDeltaEvent(content_index=index, delta=char, partial=partial)
        yield TextEndEvent(content_index=index, content=block.text, partial=partial)
    if message.stop_reason in ("stop", "length", "toolUse"):
        yield DoneEvent(reason=message.stop_reason, message=message)  # type: ignore[arg-type]
    else:
        yield ErrorEvent(reason=message.stop_reason, error=message)  # type: ignore[arg-type]


StreamFunction = Callable[..., AsyncIterator[AssistantMessageEvent]]


def scripted(*replies: AssistantMessage, calls: list[Any] | None = None) -> StreamFunction:
    """A stream function playing ``replies`` in order, one per call (the last repeats).

    ``calls`` receives each call's ``StreamOptions``.
    """
    seen: list[Any] = [] if calls is None else calls

    async def stream(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
        seen.append(options)
        async for event in play(replies[min(len(seen), len(replies)) - 1]):
            yield event

    return stream


class ToyPlugin:
    """The hooks of a package whose one wire API is ``stream``."""

    def __init__(self, stream: StreamFunction | None = None, **api: Any) -> None:
        self.provider = kit.ApiProvider(api=API, stream=stream, source_id=API, **api)

    @pi_sdk.hookimpl
    def register_api_providers(self, register: Any) -> None:
        register(self.provider)


def toy_subject(
    stream: StreamFunction | None = None, *, bodies: Any = (BODY,), **declared: Any
) -> ProviderUnderTest:
    """The declaration of the toy provider (``declared``: more ``ProviderUnderTest`` fields)."""
    plugin = declared.pop("plugin", None) or ToyPlugin(stream)
    return ProviderUnderTest(
        name="toy",
        model=lambda url: pi_sdk.Model(id="toy-1", api=API, provider="toy", base_url=url),
        bodies=list(bodies),
        plugin=plugin,
        **declared,
    )
