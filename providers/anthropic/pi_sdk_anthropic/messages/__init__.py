"""The ``anthropic-messages`` wire API: send through the ``anthropic`` SDK, read the raw SSE body.

The SDK provides the client, auth, the request and the typed HTTP errors
(:mod:`pi_sdk_anthropic._client`); the core reads the body (raw server-sent events + the JSON of
each, a fraction of the cost of the SDK's typed per-event objects:
:class:`pi_sdk.provider.HttpCall`) and :class:`._decode.Decoder` maps it. The request is
:mod:`._request`'s. Behaviour follows pi-mono ``providers/anthropic.ts`` (pi-spec §4.1) with the
deviations listed in ``docs/providers/anthropic.md``.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any, cast
from urllib.parse import urlsplit

import pi_sdk
from pi_sdk import provider as kit

from .._client import MESSAGES_PATH, build_headers, client_lease, is_oauth_token, open_messages
from ._count import count_anthropic_tokens
from ._decode import Decoder, map_stop_reason, message_as_events
from ._documents import uses_file_ids
from ._effort import mid_convo_effort
from ._request import API, build_request, convert_messages, normalize_tool_call_id
from ._system import INLINE_TOOLS_BETA, native_tool_changes
from ._tools import STRICT_LIMITS, refused_strict, sends_preferred_strict

__all__ = [
    "API",
    "build_headers",
    "build_request",
    "call_anthropic_messages",
    "convert_messages",
    "count_anthropic_tokens",
    "map_stop_reason",
    "message_as_events",
    "normalize_tool_call_id",
    "recognize_request",
]


async def call_anthropic_messages(
    model: pi_sdk.Model, context: pi_sdk.Context, options: pi_sdk.StreamOptions
) -> kit.HttpCall[Any]:
    """The plan of one Messages API call (the ``anthropic-messages`` call function).

    The core reads the reply (:class:`pi_sdk.provider.HttpCall`): ``start`` once the body's first
    bytes are in, then block events (:class:`._decode.Decoder` gives the mapping), then ``done``.
    An ``application/json`` answer (a server that ignored ``"stream": true``) is read whole and
    mapped as the events it would have streamed (:func:`message_as_events`). The URL called is
    the client's (a caller's client, or the SDK default / ``ANTHROPIC_BASE_URL`` when
    ``model.base_url`` is empty): it binds the reply's signatures.

    A request whose ``strict: "prefer"`` tools Anthropic refuses as over Claude's limits goes
    once more with them non-strict (``resend_payload``; the reply gets an
    ``anthropic_strict_tools_fallback`` diagnostic, and later calls of the same
    ``options.session_id`` send them non-strict at once: pi-ai 1.6).

    Raises:
        ConfigurationError: no API key and no ``options.client``; a base-URL placeholder names
            an unset variable (bad ``provider_options`` come from the payload builder).
    """
    # The first import of the SDK (about 1.2 s) runs in a worker thread, not on the event loop.
    await kit.import_vendor("anthropic")
    api_key = kit.resolve_api_key(model, options)
    lease: AbstractAsyncContextManager[Any] = nullcontext(options.client)
    if options.client is None:
        if not api_key:
            raise pi_sdk.ConfigurationError(
                f"No API key for provider {model.provider!r}: set ANTHROPIC_API_KEY (or "
                "ANTHROPIC_OAUTH_TOKEN), pass StreamOptions(api_key=...) or options.client"
            )
        bearer = is_oauth_token(api_key) or model.provider == "github-copilot"
        lease = await client_lease(model, api_key, bearer=bearer)
    oauth = is_oauth_token(api_key) and model.provider != "github-copilot"
    has_tools = bool(pi_sdk.current_tools(context))
    headers = build_headers(
        model, options, api_key, has_tools=has_tools, has_files=uses_file_ids(context)
    )
    if native_tool_changes(model, context):  # pi-ai 1.6: tool changes in place need the beta
        betas = headers.get("anthropic-beta")
        headers["anthropic-beta"] = f"{betas},{INLINE_TOOLS_BETA}" if betas else INLINE_TOOLS_BETA

    def without_prefer_strict(origin: str) -> dict[str, Any]:
        """The request sent again after Claude refused its strict tools (pi-ai 1.6)."""
        return build_request(
            model, context, options, oauth=oauth, origin=origin, prefer_strict=False
        )

    resend = without_prefer_strict if sends_preferred_strict(model, context) else None
    return kit.HttpCall(
        lease=lease,
        base_url=lambda client: str(getattr(client, "base_url", "") or ""),
        build_payload=lambda origin: build_request(
            model, context, options, oauth=oauth, origin=origin
        ),
        send=lambda client, payload: open_messages(client, payload, headers),
        decoder=lambda builder: Decoder(
            _stamped(builder, mid_convo_effort(model, options)), context, oauth=oauth
        ),
        resend_payload=resend,
        resend_on=refused_strict,
        resend_reason=STRICT_LIMITS,
    )


def _stamped(builder: kit.MessageBuilder, level: str | None) -> kit.MessageBuilder:
    """The reply records the effort its marker asked for (pi-ai 1.6 ``providerThinkingLevel``)."""
    if level is not None:
        builder.message.provider_thinking_level = level
    return builder


def recognize_request(method: str, uri: str, body: Any) -> pi_sdk.Model | None:
    """Return the model that sent a recorded ``POST .../v1/messages`` request, else ``None``.

    Used by ``pi-sdk replay``: the model id comes from the body, ``base_url`` is the URI up to
    ``/v1/messages`` (query dropped), and catalog data (prices, limits) is used when the id is
    a registered ``anthropic`` model.
    """
    parts = urlsplit(uri)
    if method.upper() != "POST" or not parts.path.endswith(MESSAGES_PATH):
        return None
    model_id: Any = cast("dict[str, Any]", body).get("model") if isinstance(body, dict) else None
    if not isinstance(model_id, str) or not model_id:
        return None
    base_url = f"{parts.scheme}://{parts.netloc}{parts.path[: -len(MESSAGES_PATH)]}"
    return kit.recorded_model(
        "anthropic", model_id, api=API, base_url=base_url, reasoning=True, input=["text", "image"]
    )
