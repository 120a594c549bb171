"""Vertex AI's decode: the shared one (:mod:`pi_sdk_google._shared_decode`).

Vertex AI's ``streamGenerateContent?alt=sse`` sends the Gemini API's ``GenerateContentResponse``
chunks (its usage metadata may also carry ``trafficType``), so both APIs read them with one
decoder.
"""

from __future__ import annotations

from .._shared_decode import GeminiDecoder as Decoder

__all__ = ["Decoder"]
