"""Anthropic ``document`` blocks, from pi-sdk's :class:`pi_sdk.DocumentContent`.

Anthropic Messages takes a document in a user message or a ``tool_result`` as
``{"type": "document", "source": ..., "title"?}`` (Anthropic docs, "PDF support" and "Files
API"): ``source`` is ``{"type": "base64", "media_type": "application/pdf", "data"}``, a plain
text ``{"type": "text", "media_type": "text/plain", "data": <the text>}``, ``{"type": "url",
"url"}`` (a PDF the API fetches) or ``{"type": "file", "file_id"}`` (an upload of the Files API,
which needs the ``files-api-2025-04-14`` beta header: :func:`uses_file_ids`). A request is at most
32 MB.
"""

from __future__ import annotations

import base64
from typing import Any

import pi_sdk

__all__ = ["DOCUMENTS", "document_block", "uses_file_ids"]

DOCUMENTS: Any = {
    "sources": ("data", "url", "fileId"),
    "mime_types": ("application/pdf", "text/plain"),
    "url_schemes": ("https", "http"),
    "max_bytes": 32 * 1024 * 1024,
    "vision": True,
    "limit_source": "Anthropic PDF support: a request is at most 32 MB",
}
"""What Anthropic Messages takes as a document (``documents=`` of ``transform_messages``)."""


def document_block(document: pi_sdk.DocumentContent) -> dict[str, Any]:
    """The ``document`` block of ``document`` (already checked by ``transform_messages``)."""
    source: dict[str, Any]
    if document.data is not None:
        mime = (document.mime_type or "").split(";", 1)[0].strip().lower()
        if mime == "text/plain":
            text = base64.b64decode(document.data).decode("utf-8")
            source = {"type": "text", "media_type": "text/plain", "data": text}
        else:
            source = {"type": "base64", "media_type": mime, "data": document.data}
    elif document.url is not None:
        source = {"type": "url", "url": document.url}
    else:
        source = {"type": "file", "file_id": document.file_id}
    block: dict[str, Any] = {"type": "document", "source": source}
    if document.name:
        block["title"] = document.name
    return block


def uses_file_ids(context: pi_sdk.Context) -> bool:
    """Whether any message of ``context`` holds a document given by Files API id."""
    for message in context.messages:
        content = getattr(message, "content", None)
        if isinstance(content, list):
            for block in content:  # pyright: ignore[reportUnknownVariableType]
                if isinstance(block, pi_sdk.DocumentContent) and block.file_id is not None:
                    return True
    return False
