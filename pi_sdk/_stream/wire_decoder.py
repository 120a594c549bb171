"""What a wire API's decoder and its HTTP response offer the core's read loop.

:class:`WireDecoder` reads server-sent events (the core frames the body and parses each event's
JSON); :class:`ByteDecoder` owns its framing and takes the body's raw chunks (Bedrock's AWS
event-stream frames). Both turn the vendor's reply into
:class:`~pi_sdk.provider.MessageBuilder` calls and return the events the builder returned.
:class:`HttpResponse` is what the loop reads of a response (an ``httpx2.Response`` is one).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any, Protocol, TypeAlias

from pi_sdk.events import AssistantMessageEvent

__all__ = [
    "ByteDecoder",
    "Decoder",
    "HttpResponse",
    "WireDecoder",
    "is_json_response",
    "is_settled",
]


class HttpResponse(Protocol):
    """What the read loop needs of a response: headers, the body's bytes, and closing it.

    An ``httpx2.Response`` is one; wrap other transports' responses in an object with these.
    A ``status_code`` attribute, when present, is what ``on_response`` and the page check see
    (default 200).
    """

    @property
    def headers(self) -> Mapping[str, str]:
        """The response headers (``content-type`` is read, case-insensitively)."""
        ...

    def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body's bytes, chunked as the transport delivers them."""
        ...

    async def aclose(self) -> None:
        """Close the response (and return or drop its connection)."""
        ...


class _DecoderBase(Protocol):
    @property
    def terminal(self) -> bool:
        """True once the API's own terminal event was fed; nothing after it is read.

        Anthropic ``message_stop``, Responses ``response.completed``, a Gemini chunk with a
        ``finishReason``, Bedrock ``metadata``; always False for Chat Completions, which
        ``[DONE]`` ends.
        """
        ...

    # Optional: ``settled`` (bool attribute or property), True once the reply's terminal
    # information (stop reason and usage) arrived before the API's final marker (Anthropic
    # ``message_delta`` before ``message_stop``, Chat Completions ``finish_reason`` + usage
    # before ``[DONE]``). A body that then ends, even cut in the middle of the final marker's
    # event, is complete: :meth:`finish` is called (read with :func:`is_settled`).

    def feed_document(self, document: Any) -> Iterable[AssistantMessageEvent]:
        """Consume a whole JSON response (``content-type: application/json``).

        A server that ignored the streaming flag, or a call that asked for no stream.
        ``document`` is the decoded body, of any JSON type; raise
        :class:`~pi_sdk.provider.ProviderError` for one that is not the API's response.
        """
        ...

    def finish(self, *, saw_done: bool) -> Iterable[AssistantMessageEvent]:
        """End the message: the remaining events, ending with ``done`` or ``error``.

        ``saw_done``: the body ended with the ``[DONE]`` marker (always True after
        :meth:`feed_document`). Raise :class:`~pi_sdk.provider.ProviderError` for an
        incomplete response (no terminal event), a refused one, etc.: the core turns it into
        the ``error`` event with the partial message kept.
        """
        ...


class WireDecoder(_DecoderBase, Protocol):
    """A decoder of server-sent events: the core frames the body and parses each event."""

    def feed(self, data: dict[str, Any]) -> Iterable[AssistantMessageEvent]:
        """Consume one server-sent event's JSON object."""
        ...


class ByteDecoder(_DecoderBase, Protocol):
    """A decoder that owns its framing (binary frames): the core hands it the raw chunks.

    It raises :class:`~pi_sdk.provider.ProviderError` for a corrupted frame, and from
    :meth:`finish` for a body cut inside one (``incomplete=True``).
    """

    def feed_bytes(self, chunk: bytes) -> Iterable[AssistantMessageEvent]:
        """Consume one chunk of the body: the events of the frames it completes.

        A decoder may also have ``iter_bytes(chunk)``, the same events from a generator that
        decodes a frame when the events before it were taken; the core then reads that instead,
        so the first event of a long chunk goes out before the rest of the chunk is decoded.
        """
        ...


Decoder: TypeAlias = WireDecoder | ByteDecoder
"""Either decoder: the core tells them apart by ``feed_bytes``."""


def is_settled(decoder: object) -> bool:
    """The decoder's optional ``settled`` flag: its stop reason and usage have arrived.

    A reply whose terminal information arrived is complete even if the final marker
    (``message_stop``, ``[DONE]``) is missing or cut (issue 12; pi-mono reads what arrived).
    """
    return getattr(decoder, "settled", False) is True


def is_json_response(response: HttpResponse) -> bool:
    """True when the response's ``content-type`` is ``application/json`` (not a stream)."""
    content_type = response.headers.get("content-type") or ""
    return "application/json" in content_type.lower()
