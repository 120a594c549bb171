"""Starting one call: its implementation, its options and its scope, made into a stream.

The one place a call starts (:meth:`pi_sdk.Models.stream`, and so :func:`pi_sdk.stream`): the
wire-API implementation's ``call`` plan runs on the core's read loop
(:class:`~pi_sdk._stream.read_loop.ReadLoop`), a plain ``stream`` generator is read with every
event checked, and the :class:`~pi_sdk._stream.call_scope.CallScope` carries what the stream
machinery (layer 1) needs from the collection above it: the key lookup and the payload hooks.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from pi_sdk._stream.call_scope import CallScope
from pi_sdk._stream.contract import ApiProvider
from pi_sdk._stream.event_stream import AssistantMessageEventStream
from pi_sdk._stream.read_loop import ReadLoop
from pi_sdk._wire.redact import secret_header_values
from pi_sdk.options import StreamOptions
from pi_sdk.types import AssistantMessage, Context, Model

__all__ = ["start_call"]

Observe = Callable[[], "Callable[[AssistantMessage], None] | None"]


def start_call(
    implementation: ApiProvider,
    model: Model,
    context: Context,
    options: StreamOptions,
    scope: CallScope,
    observe: Observe | None,
) -> AssistantMessageEventStream:
    """The stream of a call of ``model`` on ``implementation``, in ``scope``.

    ``options.api_key`` (what the collection resolved, or the caller's) and the scope's key for
    ``model.provider`` are redacted from error messages; ``observe`` is told when the call
    starts (the ``on_model_call`` observers). Nothing is sent until the stream is iterated.
    """
    start: Any
    if implementation.call is not None:
        start = ReadLoop(implementation.call, model, context, options)
    else:
        assert implementation.stream is not None  # ApiProvider holds one of the two
        start = partial(implementation.stream, model, context, options)
    lookup = scope.api_key
    return AssistantMessageEventStream(
        start,
        model=model,
        signal=options.signal,
        max_retries=options.max_retries,
        max_retry_delay_ms=options.max_retry_delay_ms,
        timeout_ms=options.timeout_ms,
        idle_timeout_ms=options.idle_timeout_ms,
        secrets=lambda: (
            options.api_key,
            lookup(model.provider) if lookup is not None else None,
            *secret_header_values(options.headers),
            *secret_header_values(model.headers),
        ),
        context=context,
        output=options.resolved_output(),
        observe=observe,
        scope=scope,
        on_retry=options.on_retry,
    )
