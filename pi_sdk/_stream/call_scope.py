"""The scope of one call: what the layers above hand the stream machinery (layer 1).

The stream machinery sits below the plugins and the model registry, so it never asks them
anything itself. Whoever starts a call (:func:`pi_sdk.stream`, a ``Models`` collection) puts
what the call needs from them into a :class:`CallScope`:

* ``api_key``: the key lookup for a provider id (the ``get_api_key`` hooks of the collection);
* ``payload_hooks``: the hooks that may inspect or replace the payload before it is sent
  (``on_payload`` plugins, then ``StreamOptions.on_payload``; pi-mono ``onPayload``);
* ``activity``: the call's wire activity (:class:`~pi_sdk._stream.activity.Activity`).

The core's read loop calls ``payload_hooks`` itself. While a provider's code runs before the
reply started (a call function, or a stream function up to its first event), the scope is in
:data:`current_scope`, where :func:`pi_sdk.provider.resolve_api_key`,
:func:`pi_sdk.provider.apply_payload_hooks` and
:class:`~pi_sdk._stream.response_body.ResponseBody` find it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, TypeAlias

from pi_sdk._stream.activity import Activity
from pi_sdk.options import StreamOptions
from pi_sdk.types import Model

__all__ = ["CallScope", "KeyLookup", "PayloadHooks", "current_scope"]

KeyLookup: TypeAlias = Callable[[str], "str | None"]
"""``api_key(provider_id)``: the key for a provider id, or ``None`` (no key known)."""

PayloadHooks: TypeAlias = Callable[
    [dict[str, Any], Model, StreamOptions], Awaitable[dict[str, Any]]
]
"""``await payload_hooks(payload, model, options)``: the payload to send (the same dict, changed
in place, or a replacement). Raises what a hook raises (``TypeError`` for a hook that returned
neither ``None`` nor a dict): the call then ends in an ``error`` event and nothing is sent."""


class CallScope:
    """What one call reads from the collection that started it.

    Args:
        api_key: The key lookup (``None``: the default registry's ``get_api_key`` hooks).
        payload_hooks: The payload hooks (``None``: none run; :func:`pi_sdk.stream` always
            passes the plugins' and the options' hooks).
    """

    __slots__ = ("activity", "api_key", "payload_hooks")

    def __init__(
        self, *, api_key: KeyLookup | None = None, payload_hooks: PayloadHooks | None = None
    ) -> None:
        self.api_key = api_key
        self.payload_hooks = payload_hooks
        self.activity = Activity()
        """The call's wire activity (the idle timeout and the abort read it)."""


current_scope: ContextVar[CallScope | None] = ContextVar("pi_sdk_call_scope", default=None)
"""The scope of the call whose provider code is running before its reply started (``None``
outside a call, and while the core only reads the reply)."""
