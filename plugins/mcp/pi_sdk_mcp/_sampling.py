"""Sampling: an MCP server asks the client for a completion, a pi-sdk model answers.

MCP spec, "Client Features: Sampling" (``sampling/createMessage``; on 2026-07-28 connections
delivered in the multi-round-trip flow, which the ``mcp`` SDK's ``Client`` drives to the same
callback). Off unless both hold: :class:`pi_sdk_mcp.McpServers` was given a ``sampling_model``
and the server's configuration says ``allow_sampling``; otherwise the client declares no
sampling capability to that server, which then knows not to ask.

Mapping: ``systemPrompt`` is the system prompt, ``messages`` become user and assistant messages
(text and images; audio and tool blocks are refused with an error the server reads),
``maxTokens`` and ``temperature`` the call's options. ``modelPreferences``, ``stopSequences``
and ``includeContext`` are hints the client may ignore (the spec says so) and are ignored: the
model is the one the user chose. The reply's text is the result (``stopReason`` ``endTurn``, or
``maxTokens`` when it was cut); a failed call is an ``ErrorData`` naming the model.
"""

from __future__ import annotations

import dataclasses
import logging

import mcp.types as mcp
from mcp.client import ClientRequestContext

import pi_sdk
from pi_sdk import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    StreamOptions,
    TextContent,
    UserMessage,
)
from pi_sdk.plugins import redact_text

__all__ = ["Sampler"]

_log = logging.getLogger("pi_sdk_mcp")


class _Refused(Exception):
    """A request this client does not serve (the text goes back to the server)."""


class Sampler:
    """The ``sampling_callback`` of one server: answers with ``model``.

    Args:
        server: The server's name (logs and error text).
        model: The pi-sdk model that answers.
        options: A template for every call's options (API key, max retries...); the request's
            ``maxTokens`` and ``temperature`` override it.
    """

    def __init__(self, server: str, model: Model, options: StreamOptions | None = None) -> None:
        self.server = server
        self.model = model
        self.options = options or StreamOptions()

    async def __call__(
        self, context: ClientRequestContext, params: mcp.CreateMessageRequestParams
    ) -> mcp.CreateMessageResult | mcp.ErrorData:
        """Answer one ``sampling/createMessage`` request (the ``mcp`` SDK's ``SamplingFnT``)."""
        try:
            messages: list[Message] = [_message(m, self.model) for m in params.messages]
        except _Refused as exc:
            return mcp.ErrorData(code=mcp.INVALID_REQUEST, message=str(exc))
        if params.tools:
            text = "tools in sampling requests are not supported by this client"
            return mcp.ErrorData(code=mcp.INVALID_REQUEST, message=text)
        options = dataclasses.replace(
            self.options,
            max_tokens=params.max_tokens,
            temperature=params.temperature
            if params.temperature is not None
            else self.options.temperature,
        )
        request = Context(system_prompt=params.system_prompt or None, messages=messages)
        _log.info("MCP server %r sampled %s/%s", self.server, self.model.provider, self.model.id)
        name = f"{self.model.provider}/{self.model.id}"
        try:
            reply = await pi_sdk.complete(self.model, request, options)
        except Exception as exc:  # noqa: BLE001 - e.g. no provider for the model: the server is told
            text = redact_text(f"sampling with {name} failed: {exc}", [options.api_key])
            return mcp.ErrorData(code=mcp.INTERNAL_ERROR, message=text)
        if reply.stop_reason in ("error", "aborted"):
            why = reply.error_message or reply.stop_reason
            return mcp.ErrorData(
                code=mcp.INTERNAL_ERROR, message=f"sampling with {name} failed: {why}"
            )
        return mcp.CreateMessageResult(
            role="assistant",
            content=mcp.TextContent(type="text", text=reply.text),
            model=name,
            stop_reason="maxTokens" if reply.stop_reason == "length" else "endTurn",
        )


def _message(message: mcp.SamplingMessage, model: Model) -> UserMessage | AssistantMessage:
    blocks: list[TextContent | ImageContent] = []
    for block in message.content_as_list:
        match block:
            case mcp.TextContent(text=text):
                blocks.append(TextContent(text=text))
            case mcp.ImageContent(data=data, mime_type=mime):
                blocks.append(ImageContent(data=data, mime_type=mime))
            case _:
                raise _Refused(f"{block.type} content in sampling messages is not supported")
    if message.role == "user":
        return UserMessage(content=list(blocks))
    texts = [TextContent(text=b.text) for b in blocks if isinstance(b, TextContent)]
    return AssistantMessage(
        content=list(texts), api=model.api, provider=model.provider, model=model.id
    )
