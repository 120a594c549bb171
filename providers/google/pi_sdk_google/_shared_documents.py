"""Gemini document parts, from pi-sdk's :class:`pi_sdk.DocumentContent` (Gemini API, Vertex).

Gemini "Document understanding" (ai.google.dev) and Vertex "Document understanding": a document
is a part, ``{"inlineData": {"mimeType", "data"}}`` (base64 bytes; a request with inline data is
at most 20 MB) or ``{"fileData": {"mimeType", "fileUri"}}``: a Files API URI
(``https://generativelanguage.googleapis.com/v1beta/files/...``) or a public ``https://`` URL on
the Gemini API, a ``gs://`` or ``https://`` URI on Vertex. A file id is sent as the
``fileUri`` (the Files API names a file by its URI).
"""

from __future__ import annotations

from typing import Any

import pi_sdk

__all__ = ["document_part", "document_rules"]

_MIME_TYPES = (
    "application/pdf",
    "text/plain",
    "text/html",
    "text/css",
    "text/csv",
    "text/xml",
    "text/rtf",
    "text/javascript",
    "text/x-python",
)
_LIMIT = "Gemini document understanding: inline data at most 20 MB per request"

_GEMINI: Any = {
    "sources": ("data", "url", "fileId"),
    "mime_types": _MIME_TYPES,
    "url_schemes": ("https",),
    "max_bytes": 20 * 1024 * 1024,
    "limit_source": _LIMIT,
}
_VERTEX: Any = {**_GEMINI, "url_schemes": ("https", "gs")}


def document_rules(model: pi_sdk.Model) -> Any:
    """What ``model``'s API takes as a document (``documents=`` of ``transform_messages``)."""
    return _VERTEX if model.api == "google-vertex" else _GEMINI


def document_part(document: pi_sdk.DocumentContent) -> dict[str, Any]:
    """The ``inlineData`` or ``fileData`` part of ``document``."""
    mime = (document.mime_type or "").split(";", 1)[0].strip().lower()
    if document.data is not None:
        return {"inlineData": {"mimeType": mime, "data": document.data}}
    file: dict[str, Any] = {"fileUri": document.url or document.file_id}
    if mime:
        file["mimeType"] = mime
    return {"fileData": file}
