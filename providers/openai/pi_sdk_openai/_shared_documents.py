"""OpenAI document parts, from pi-sdk's :class:`pi_sdk.DocumentContent` (Chat and Responses).

OpenAI "File inputs" (platform docs): a PDF goes to Chat Completions as a ``file`` content part,
``{"type": "file", "file": {"file_data": "data:application/pdf;base64,...", "filename"}}`` or
``{"file": {"file_id"}}`` (no URL); to Responses as an ``input_file`` part with ``file_data`` +
``filename``, ``file_url`` or ``file_id``, in a user message or a ``function_call_output``. Files
are at most 50 MB per request. A Chat tool message takes only text, so documents of tool results
go, as images do, in one user message after the results.
"""

from __future__ import annotations

from typing import Any

import pi_sdk

__all__ = [
    "CHAT_DOCUMENTS",
    "RESPONSES_DOCUMENTS",
    "attached_text",
    "chat_file_part",
    "chat_media_part",
    "input_file_part",
]

_LIMIT = "OpenAI file inputs: at most 50 MB per request"

CHAT_DOCUMENTS: Any = {
    "sources": ("data", "fileId"),
    "mime_types": ("application/pdf",),
    "max_bytes": 50 * 1024 * 1024,
    "vision": True,
    "limit_source": _LIMIT,
}
"""What Chat Completions takes as a document (``documents=`` of ``transform_messages``)."""

RESPONSES_DOCUMENTS: Any = {
    "sources": ("data", "url", "fileId"),
    "mime_types": ("application/pdf",),
    "url_schemes": ("https", "http"),
    "max_bytes": 50 * 1024 * 1024,
    "vision": True,
    "limit_source": _LIMIT,
}
"""What Responses takes as a document (``documents=`` of ``transform_messages``)."""


def _filename(document: pi_sdk.DocumentContent) -> str:
    if document.name:
        return document.name
    subtype = (document.mime_type or "").split(";", 1)[0].rsplit("/", 1)[-1].strip()
    return f"document.{subtype or 'bin'}"


def _data_url(document: pi_sdk.DocumentContent) -> str:
    mime = (document.mime_type or "").split(";", 1)[0].strip().lower()
    return f"data:{mime};base64,{document.data}"


def chat_file_part(document: pi_sdk.DocumentContent) -> dict[str, Any]:
    """The Chat Completions ``file`` part of ``document`` (data or file id)."""
    if document.file_id is not None:
        return {"type": "file", "file": {"file_id": document.file_id}}
    file = {"file_data": _data_url(document), "filename": _filename(document)}
    return {"type": "file", "file": file}


def input_file_part(document: pi_sdk.DocumentContent) -> dict[str, Any]:
    """The Responses ``input_file`` part of ``document`` (data, URL or file id)."""
    if document.file_id is not None:
        return {"type": "input_file", "file_id": document.file_id}
    if document.url is not None:
        return {"type": "input_file", "file_url": document.url}
    return {"type": "input_file", "file_data": _data_url(document), "filename": _filename(document)}


def chat_media_part(block: pi_sdk.ImageContent | pi_sdk.DocumentContent) -> dict[str, Any]:
    """The Chat Completions part of an image (``image_url``) or a document (``file``)."""
    if isinstance(block, pi_sdk.DocumentContent):
        return chat_file_part(block)
    return {
        "type": "image_url",
        "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"},
    }


def attached_text(media: list[pi_sdk.ImageContent | pi_sdk.DocumentContent]) -> str:
    """A tool message's text when its images or documents follow in a user message."""
    if any(isinstance(b, pi_sdk.ImageContent) for b in media):
        return "(see attached image)"
    return "(see attached document)"
