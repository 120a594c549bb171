"""Gemini's thought signatures on its OpenAI-compatible endpoint: read from a chunk, sent back.

Google, "Thought signatures" (OpenAI compatibility): ``extra_content.google.thought_signature``
on a tool call, message or delta; it must come back where it was sent.
"""

from __future__ import annotations

from typing import Any

from .._shared_json import as_dict

__all__ = ["google_signature", "google_thought_signature"]


def google_signature(signature: str) -> dict[str, Any]:
    """Gemini's OpenAI-compatible endpoint takes a thought signature back where it sent it."""
    return {"google": {"thought_signature": signature}}


def google_thought_signature(fields: dict[str, Any]) -> str | None:
    """Return ``extra_content.google.thought_signature`` of a delta, message or tool call.

    Gemini's OpenAI-compatible endpoint (``generativelanguage.googleapis.com/v1beta/openai``)
    sends the thought signature there: on each tool call (function calling: it must come back on
    the same call, or the next request fails with 400) and on the message or delta with the
    answer's text (Google, "Thought signatures", OpenAI compatibility). ``None`` when absent.
    pi-ai 0.73.1 reads neither.
    """
    google = as_dict(as_dict(fields.get("extra_content")).get("google"))
    signature = google.get("thought_signature")
    return signature if isinstance(signature, str) and signature else None
