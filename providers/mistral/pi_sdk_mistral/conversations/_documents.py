"""Mistral document chunks, from pi-sdk's :class:`pi_sdk.DocumentContent`.

Mistral "Document QnA" (docs.mistral.ai): a document goes in a message's content as
``{"type": "document_url", "document_url": <https URL or data:application/pdf;base64,...>,
"document_name"?}``, or, uploaded beforehand, as ``{"type": "file", "file_id"}``. A document is
at most 50 MB.
"""

from __future__ import annotations

from typing import Any

import pi_sdk

__all__ = ["DOCUMENTS", "document_chunk"]

DOCUMENTS: Any = {
    "sources": ("data", "url", "fileId"),
    "mime_types": ("application/pdf",),
    "url_schemes": ("https", "http"),
    "max_bytes": 50 * 1024 * 1024,
    "vision": True,
    "limit_source": "Mistral Document QnA: at most 50 MB per document",
}
"""What Mistral chat takes as a document (``documents=`` of ``transform_messages``)."""


def document_chunk(document: pi_sdk.DocumentContent) -> dict[str, Any]:
    """The ``document_url`` (data or URL) or ``file`` (file id) chunk of ``document``."""
    if document.file_id is not None:
        return {"type": "file", "file_id": document.file_id}
    if document.url is not None:
        url = document.url
    else:
        mime = (document.mime_type or "").split(";", 1)[0].strip().lower()
        url = f"data:{mime};base64,{document.data}"
    chunk: dict[str, Any] = {"type": "document_url", "document_url": url}
    if document.name:
        chunk["document_name"] = document.name
    return chunk
