"""Vendor-neutral building blocks for tool-call id normalizers.

Each wire API accepts tool-call ids of its own shape (allowed characters, maximum length), and a
history moved from one model to another carries ids minted elsewhere.
:func:`pi_sdk.provider.transform_messages` takes a normalizer (``normalize_tool_call_id=``) from the
provider adapter that sends the history, applies it to each foreign tool call and the same
mapping to its result, and fills empty or duplicated ids itself. The core knows no vendor: each
provider package defines the normalizer of its API from the primitives here (pi-spec §5;
pi-mono's per-provider ``normalizeToolCallId``).

Every normalizer should follow one rule, so that ids stay distinct after normalization: an id the
target already accepts is returned **unchanged**; any other id becomes its sanitized, truncated
form followed by ``_`` and a short hash of the **original** id (:func:`short_hash`,
:func:`fit_id`). Two long ids that share their first 64 characters, or two ids that sanitize to
the same string (``a.b`` / ``a:b``), therefore stay different. :func:`sanitize_tool_call_id`
implements the rule for the common "allowed characters + maximum length" shape.

A normalizer has the signature ``normalize(id, target_model, source_message) -> str``
(:data:`ToolCallIdNormalizer`).
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from typing import TypeAlias

from pi_sdk.types import AssistantMessage, Model

__all__ = [
    "DEFAULT_ALLOWED",
    "ToolCallIdNormalizer",
    "fit_id",
    "sanitize_tool_call_id",
    "short_hash",
]

ToolCallIdNormalizer: TypeAlias = Callable[[str, Model, AssistantMessage], str]
"""``normalize(id, target_model, source_message) -> id`` valid for the target API."""

DEFAULT_ALLOWED = "a-zA-Z0-9_-"
"""The character class (regex syntax, without brackets) most APIs accept in ids."""

_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"
_HASH_LEN = 10
_MIN_LEN = 12


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


@functools.lru_cache(maxsize=32)
def _patterns(allowed: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    return re.compile(f"[{allowed}]+"), re.compile(f"[^{allowed}]")


def sanitize_tool_call_id(
    tool_call_id: str, *, max_len: int, allowed: str = DEFAULT_ALLOWED
) -> str:
    """Return ``tool_call_id`` made of ``allowed`` characters and at most ``max_len`` long.

    An id that already fits is returned unchanged; any other has each disallowed character
    replaced by ``_`` and goes through :func:`fit_id` (cut, plus a hash of the original), so
    distinct ids stay distinct.

    Args:
        tool_call_id: The stored id.
        max_len: The target's maximum length in characters (at least 12).
        allowed: A regex character class without the brackets, e.g. ``"a-zA-Z0-9_-"``
            (:data:`DEFAULT_ALLOWED`); it must allow ``_`` and the base-36 digits.

    Raises:
        ValueError: ``max_len`` is below 12 (no room for the hash suffix).

    Example:
        ```python
        sanitize_tool_call_id("call_1|fc_2", max_len=64)  # -> "call_1_fc_2_<hash>"
        ```
    """
    if max_len < _MIN_LEN:
        raise ValueError(f"max_len must be at least {_MIN_LEN}, got {max_len}")
    valid, invalid = _patterns(allowed)
    if valid.fullmatch(tool_call_id) and len(tool_call_id) <= max_len:
        return tool_call_id
    return fit_id(tool_call_id, invalid.sub("_", tool_call_id), max_len)
