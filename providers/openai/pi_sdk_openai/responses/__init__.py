"""The ``openai-responses`` wire API: OpenAI's Responses API (and OpenRouter's copy of it).

The request body is built by :func:`build_payload` (``_request.py``; its ``input`` items by
:func:`convert_input` in ``_input.py``, tools and ``text.format`` in ``_tools.py``), the stream
decoded by :class:`Decoder` (``_decode.py``); the signatures below are encoded and read in
``_signatures.py``.

Conventions for what pi-sdk stores (pi-mono's, so sessions interoperate):

* a text block from a ``message`` output item has ``text_signature`` = TextSignatureV1, the
  JSON ``{"v":1,"id":"<message item id>","phase":...}`` (``phase`` only when the API sent one);
* a thinking block from a ``reasoning`` item has ``thinking_signature`` = the whole item as JSON,
  but only when the item carries ``encrypted_content``: with ``store: false`` (what pi-sdk sends)
  an item without it cannot be replayed, so it is not a signature;
* a tool call id is ``"<call_id>|<function_call item id>"``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pi_sdk.provider import AssistantMessageEvent, Context, Model, StreamOptions

from .._client import stream_request
from .._shared_ids import normalize_responses_tool_call_id as normalize_tool_call_id
from ._decode import Decoder
from ._input import convert_input
from ._request import API, PATH, build_payload, string_option
from ._signatures import parse_text_signature, text_signature
from ._tools import convert_tools

__all__ = [
    "API",
    "PATH",
    "Decoder",
    "build_payload",
    "convert_input",
    "convert_tools",
    "normalize_tool_call_id",
    "parse_text_signature",
    "stream_openai_responses",
    "text_signature",
]


def stream_openai_responses(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Call a Responses endpoint and yield normalized events (``openai-responses``).

    Contract (:data:`pi_sdk.provider.StreamFunction`): ``start`` once the response body begins,
    then block
    events, then ``done`` (or ``error`` for refusals). HTTP errors, ``response.failed``, ``error``
    events and cut streams raise :class:`pi_sdk.provider.ProviderError`; the core turns them into
    the
    terminal ``error`` event with the partial message kept. ``options.client`` (an
    ``openai.AsyncOpenAI``) replaces the client built from ``model.base_url`` and the API key.
    Nothing runs until the first iteration (bad options end the call as its ``error`` event).
    """
    return stream_request(
        model,
        options,
        path=PATH,
        build_payload=lambda origin: build_payload(model, context, options, origin=origin),
        decoder=lambda builder: Decoder(
            builder, service_tier=string_option(options, "service_tier")
        ),
    )
