"""The Gemini API's decode: the shared one (:mod:`pi_sdk_google._shared_decode`).

``streamGenerateContent?alt=sse`` sends one ``GenerateContentResponse`` per event, the same
chunks Vertex AI sends, so both APIs read them with one decoder.
"""

from __future__ import annotations

from .._shared_decode import GeminiDecoder as Decoder

__all__ = ["Decoder"]
