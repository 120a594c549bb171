"""Bedrock Converse ``document`` blocks, from pi-sdk's :class:`pi_sdk.DocumentContent`.

Converse ``DocumentBlock`` (Bedrock API reference): ``{"document": {"format", "name",
"source": {"bytes"} | {"s3Location": {"uri"}}}}`` in a user message or a ``toolResult``.
``format`` is one of ``pdf``, ``csv``, ``doc``, ``docx``, ``xls``, ``xlsx``, ``html``, ``txt``,
``md``; ``name`` is required and may hold only letters, digits, single spaces, hyphens,
parentheses and square brackets; a document is at most 4.5 MB. No https URL, no file id.
"""

from __future__ import annotations

import re
from typing import Any

import pi_sdk

__all__ = ["DOCUMENTS", "document_block"]

_FORMATS = {
    "application/pdf": "pdf",
    "text/csv": "csv",
    "application/msword": "doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.ms-excel": "xls",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "text/html": "html",
    "text/plain": "txt",
    "text/markdown": "md",
}
_EXTENSIONS = {fmt: fmt for fmt in _FORMATS.values()} | {"htm": "html", "markdown": "md"}

DOCUMENTS: Any = {
    "sources": ("data", "url"),
    "mime_types": tuple(_FORMATS),
    "url_schemes": ("s3",),
    "max_bytes": 4_500_000,
    "limit_source": "Bedrock Converse DocumentBlock: at most 4.5 MB per document",
}
"""What Converse takes as a document (``documents=`` of ``transform_messages``)."""

_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9\s()\[\]-]+")
_SPACES = re.compile(r"\s+")


def _name(document: pi_sdk.DocumentContent, position: int) -> str:
    name = _SPACES.sub(" ", _NOT_ALLOWED.sub("-", document.name or "")).strip(" -")
    return name or f"Document {position}"


def _format(document: pi_sdk.DocumentContent) -> str:
    mime = (document.mime_type or "").split(";", 1)[0].strip().lower()
    found = _FORMATS.get(mime)
    if found is None and document.url is not None:
        found = _EXTENSIONS.get(document.url.rsplit(".", 1)[-1].lower())
    if found is None:
        raise pi_sdk.ConfigurationError(
            f"Bedrock needs the format of document {document.url or document.name!r}: give its "
            f"mime_type (one of {', '.join(_FORMATS)})"
        )
    return found


def document_block(document: pi_sdk.DocumentContent, position: int = 1) -> dict[str, Any]:
    """The ``document`` block of ``document``; ``position`` numbers unnamed documents (1, 2...).

    Raises:
        ConfigurationError: an ``s3://`` document whose format is neither in its ``mime_type``
            nor in its URL's extension.
    """
    source: dict[str, Any]
    if document.data is not None:
        source = {"bytes": document.data}  # JSON blobs are base64 strings: sent as stored
    else:
        source = {"s3Location": {"uri": document.url}}
    fields = {"format": _format(document), "name": _name(document, position), "source": source}
    return {"document": fields}
