"""Anthropic image, document and ``tool_result`` blocks (pi-mono ``convertMessages``).

An image is a ``base64`` ``image`` block; a document is :mod:`._documents`'s ``document`` block;
a tool result is a ``tool_result`` whose ``content`` is its text, or, with images or documents,
a list of text and media blocks (headed by "(see attached image)" / "(see attached document)"
when the result has no text).
"""

from __future__ import annotations

from typing import Any

import pi_sdk
from pi_sdk import provider as kit

from ._documents import document_block

__all__ = ["media_block", "tool_result_block"]

_SEE_IMAGE_TEXT = "(see attached image)"
_SEE_DOCUMENT_TEXT = "(see attached document)"


def _image_block(image: pi_sdk.ImageContent) -> dict[str, Any]:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": image.mime_type, "data": image.data},
    }


def media_block(block: pi_sdk.ImageContent | pi_sdk.DocumentContent) -> dict[str, Any]:
    if isinstance(block, pi_sdk.ImageContent):
        return _image_block(block)
    return document_block(block)


def tool_result_block(message: pi_sdk.ToolResultMessage) -> dict[str, Any]:
    texts = [b.text for b in message.content if isinstance(b, pi_sdk.TextContent)]
    media = [b for b in message.content if not isinstance(b, pi_sdk.TextContent)]
    content: str | list[dict[str, Any]]
    if not media:
        content = kit.sanitize_surrogates("\n".join(texts))
    else:
        parts: list[dict[str, Any]] = []
        if not texts:
            images = any(isinstance(b, pi_sdk.ImageContent) for b in media)
            parts.append(
                {"type": "text", "text": _SEE_IMAGE_TEXT if images else _SEE_DOCUMENT_TEXT}
            )
        for block in message.content:
            if isinstance(block, pi_sdk.TextContent):
                parts.append({"type": "text", "text": kit.sanitize_surrogates(block.text)})
            else:
                parts.append(media_block(block))
        content = parts
    return {
        "type": "tool_result",
        "tool_use_id": message.tool_call_id,
        "content": content,
        "is_error": message.is_error,
    }
