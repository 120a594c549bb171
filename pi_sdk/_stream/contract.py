"""The provider contract: what a wire-API implementation hands to pi-sdk (layer L1).

:class:`ApiProvider` bundles an API id with its :data:`StreamFunction` (pi-mono ``ApiProvider``,
``packages/ai/src/api-registry.ts``). It sits below the plugin hookspecs and the registry, which
both refer to it; provider authors import it from :mod:`pi_sdk.provider`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from pi_sdk.events import AssistantMessageEvent
from pi_sdk.options import StreamOptions
from pi_sdk.types import Context, Model

__all__ = ["ApiProvider", "RequestRecognizer", "StreamFunction"]

StreamFunction: TypeAlias = Callable[
    [Model, Context, StreamOptions], AsyncIterator[AssistantMessageEvent]
]
"""``stream(model, context, options)``: an async generator of events.

Contract: yield ``start`` once the request is accepted (HTTP headers in), then content events,
then one terminal ``done``/``error``. Raise :class:`pi_sdk.provider.ProviderError` (with
``retryable``) for failures, or any exception: the core turns it into the terminal ``error``
event, keeps the partial message, retries retryable failures that happen before ``start``, and
handles aborts by closing the generator. Import the vendor SDK lazily, inside the function.
"""


RequestRecognizer: TypeAlias = Callable[[str, str, Any], "Model | None"]
"""``recognize(method, uri, body) -> Model | None``: ``body`` is the parsed JSON request body
(or ``None``). Return the model (id, ``base_url`` from the URI, api, provider) that sends such a
request, or ``None`` when the request is not this API's."""


@dataclass(frozen=True, kw_only=True)
class ApiProvider:
    """One wire-API implementation (pi-mono ``ApiProvider``)."""

    api: str
    """API id, e.g. ``"anthropic-messages"``."""
    stream: StreamFunction
    recognize: RequestRecognizer | None = None
    """For ``pi-sdk replay``: given a recorded request, the model that would have sent it."""
    source_id: str | None = None
    """Who registered it (a plugin name); see :func:`pi_sdk.unregister_api_providers`."""
