"""Tool-call id normalizers: make a stored tool-call id acceptable to a target wire API.

Each vendor mints ids in its own shape and each rejects some of the others' shapes:

* ``anthropic-messages``, ``bedrock-converse-stream``: ``^[a-zA-Z0-9_-]+$``, at most 64
  characters (:func:`normalize_anthropic_id`);
* ``openai-responses`` (and Azure, Codex): a ``call_id`` of ``[a-zA-Z0-9_-]``, at most 64; a
  foreign ``|fc_…`` item id is never replayed (:func:`normalize_openai_responses_id`);
* ``openai-completions``: at most 40 characters for OpenAI
  (:func:`normalize_openai_completions_id`);
* ``google-*``: optional for Gemini; ``claude-`` / ``gpt-oss-`` models on Vertex need the Anthropic
  shape (:func:`normalize_google_id`);
* ``mistral-conversations``: exactly 9 alphanumeric characters (:func:`normalize_mistral_id`).

Sources: pi-spec §4.1/4.2/4.3/4.7/4.12 and §5 (pi-mono ``normalizeToolCallId`` of each provider).

Every normalizer follows one rule, so that ids stay distinct after normalization: an id the target
already accepts is returned **unchanged**; any other id becomes its sanitized, truncated form
followed by ``_`` and a short hash of the **original** id (:func:`short_hash`). Two long ids that
share their first 64 characters, or two ids that sanitize to the same string (``a.b`` / ``a:b``),
therefore stay different. :func:`pi_sdk.transform_messages` applies one normalizer to each foreign
tool call and the same mapping to its result, and fills empty or duplicated ids itself (see there).

A normalizer has the signature ``normalize(id, target_model, source_message) -> str``
(:data:`ToolCallIdNormalizer`); :func:`normalizer_for_api` returns the default one for an API.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import TypeAlias

from .types import AssistantMessage, Model

__all__ = [
    "ToolCallIdNormalizer",
    "fit_id",
    "normalize_anthropic_id",
    "normalize_google_id",
    "normalize_mistral_id",
    "normalize_openai_completions_id",
    "normalize_openai_responses_id",
    "normalizer_for_api",
    "short_hash",
]

ToolCallIdNormalizer: TypeAlias = Callable[[str, Model, AssistantMessage], str]
"""``normalize(id, target_model, source_message) -> id`` valid for the target API."""

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_SAFE_ID = re.compile(r"[a-zA-Z0-9_-]+")
_ALNUM9 = re.compile(r"[a-zA-Z0-9]{9}")
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"
_HASH_LEN = 10


def short_hash(text: str, length: int = _HASH_LEN) -> str:
    """Return a deterministic base-36 digest of ``text``, ``length`` characters (default 10).

    BLAKE2b over the UTF-8 bytes (lone surrogates passed through), so the same id always maps to
    the same digest across processes and Python versions. 10 base-36 characters carry ~51 bits.
    Not byte-compatible with pi-mono's ``shortHash`` (only determinism and spread matter here).
    """
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    number = int.from_bytes(digest, "big")
    chars: list[str] = []
    for _ in range(length):
        number, rem = divmod(number, 36)
        chars.append(_B36[rem])
    return "".join(chars)


def fit_id(original: str, candidate: str, max_len: int) -> str:
    """Return ``candidate`` if it equals ``original`` and fits, else a distinct shortened form.

    Args:
        original: The id as stored in the history.
        candidate: ``original`` already sanitized for the target (any characters replaced).
        max_len: The target's maximum id length, in characters (at least 12).

    Returns:
        ``original`` unchanged when ``candidate == original`` and ``len(original) <= max_len``;
        otherwise ``candidate`` cut so that ``candidate[:n] + "_" + short_hash(original)`` has at
        most ``max_len`` characters. The hash is of the original id, so distinct originals give
        distinct results even when their sanitized prefixes agree.
    """
    if candidate == original and len(original) <= max_len:
        return original
    suffix = "_" + short_hash(original)
    head = candidate[: max(0, max_len - len(suffix))].rstrip("_")
    return (head + suffix) if head else ("id" + suffix)[:max_len]


def _sanitized(original: str, max_len: int) -> str:
    if _SAFE_ID.fullmatch(original) and len(original) <= max_len:
        return original
    return fit_id(original, _UNSAFE.sub("_", original), max_len)


def normalize_anthropic_id(tool_call_id: str, model: Model, source: AssistantMessage) -> str:
    """Anthropic Messages / Bedrock: ``^[a-zA-Z0-9_-]+$``, at most 64 characters.

    An OpenAI Responses id ``call_…|fc_…`` keeps both parts (``|`` becomes ``_``) plus the hash.
    """
    del model, source
    return _sanitized(tool_call_id, 64)


def normalize_google_id(tool_call_id: str, model: Model, source: AssistantMessage) -> str:
    """Gemini / Vertex: same shape as Anthropic (``claude-`` models on Vertex require it).

    Gemini itself matches function responses by name and order; the id is optional there.
    """
    del model, source
    return _sanitized(tool_call_id, 64)


def normalize_openai_responses_id(tool_call_id: str, model: Model, source: AssistantMessage) -> str:
    """OpenAI Responses (and Azure, Codex): the ``call_id`` part only, ``[a-zA-Z0-9_-]`` ≤ 64.

    pi-sdk stores a Responses tool call id as ``"<call_id>|<function_call item id>"``. A
    normalizer only sees calls from *another* model, and an ``fc_…`` item id minted elsewhere is
    never replayed (OpenAI pairs ``fc_`` items with reasoning items of the same response, which a
    foreign turn does not carry; pi-mono drops it for a different model of the same provider), so
    the item part is dropped and the adapter sends the call without an item ``id``. The result
    never contains ``|``.
    """
    del model, source
    call_part, sep, _ = tool_call_id.partition("|")
    if not sep:
        return _sanitized(tool_call_id, 64)
    return fit_id(tool_call_id, _UNSAFE.sub("_", call_part), 64)


def normalize_openai_completions_id(
    tool_call_id: str, model: Model, source: AssistantMessage
) -> str:
    """OpenAI Chat Completions and compatible servers: ``[a-zA-Z0-9_-]``, at most 40 characters.

    OpenAI rejects ``tool_call_id`` values longer than 40 characters (pi-spec §4.2, §4.13); a
    Responses ``call|item`` id keeps its call part. Applied to every compatible server: the shape
    is accepted everywhere and the mapping is applied to the results too.
    """
    del model, source
    call_part, sep, _ = tool_call_id.partition("|")
    if not sep:
        return _sanitized(tool_call_id, 40)
    return fit_id(tool_call_id, _UNSAFE.sub("_", call_part), 40)


def normalize_mistral_id(tool_call_id: str, model: Model, source: AssistantMessage) -> str:
    """Mistral: exactly 9 alphanumeric characters (pi-spec §4.12); others become a 9-char hash."""
    del model, source
    if _ALNUM9.fullmatch(tool_call_id):
        return tool_call_id
    return short_hash(tool_call_id, 9)


_BY_API: dict[str, ToolCallIdNormalizer] = {
    "anthropic-messages": normalize_anthropic_id,
    "bedrock-converse-stream": normalize_anthropic_id,
    "openai-responses": normalize_openai_responses_id,
    "azure-openai-responses": normalize_openai_responses_id,
    "openai-codex-responses": normalize_openai_responses_id,
    "openai-completions": normalize_openai_completions_id,
    "google-generative-ai": normalize_google_id,
    "google-vertex": normalize_google_id,
    "google-gemini-cli": normalize_google_id,
    "mistral-conversations": normalize_mistral_id,
}


def normalizer_for_api(api: str) -> ToolCallIdNormalizer | None:
    """Return the default normalizer for wire API ``api``, or ``None`` (ids kept) if unknown."""
    return _BY_API.get(api)
