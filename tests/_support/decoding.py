"""Feed parsed stream chunks straight to a wire decoder and read the message it builds."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pi_sdk import AssistantMessage, Model
from pi_sdk.provider import MessageBuilder


def decoded(
    decoder_type: Callable[[MessageBuilder], Any], model: Model, chunks: Iterable[dict[str, Any]]
) -> AssistantMessage:
    """The message ``decoder_type(builder)`` builds from ``chunks`` (``feed`` each, then
    ``finish(saw_done=True)``); a ``ProviderError`` they raise propagates."""
    builder = MessageBuilder(model)
    decoder = decoder_type(builder)
    for data in chunks:
        decoder.feed(data)
    decoder.finish(saw_done=True)
    return builder.message


def started(
    decoder_type: Callable[[MessageBuilder], Any], model: Model, *, general: bool = False
) -> tuple[Any, MessageBuilder, Callable[[dict[str, Any]], Any]]:
    """``(decoder, builder, feed)`` on a started builder; ``feed`` is the decoder's ``feed``, or
    with ``general`` its general rules (``_feed``: the fast path off, for decoders that have
    one)."""
    builder = MessageBuilder(model)
    builder.start()
    decoder = decoder_type(builder)
    return decoder, builder, decoder._feed if general else decoder.feed
