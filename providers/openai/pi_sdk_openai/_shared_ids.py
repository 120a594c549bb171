"""Tool-call id rules of the two OpenAI wire APIs (pi-spec §4.2, §4.3, §4.13).

pi-sdk stores a Responses tool call id as ``"<call_id>|<function_call item id>"``; a Chat
Completions id is the server's id. Both normalizers are the
:data:`pi_sdk.provider.ToolCallIdNormalizer` each API passes to
:func:`pi_sdk.provider.transform_messages`: they
only see calls from *another* model.
"""

from __future__ import annotations

import re

from pi_sdk import AssistantMessage, Model
from pi_sdk.provider import fit_id, sanitize_tool_call_id

__all__ = ["normalize_completions_tool_call_id", "normalize_responses_tool_call_id"]

_UNSAFE_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def _normalize_call_id(tool_call_id: str, max_len: int) -> str:
    call_part, sep, _ = tool_call_id.partition("|")
    if not sep:
        return sanitize_tool_call_id(tool_call_id, max_len=max_len)
    # Always hashed: the dropped item part may be all that told two ids apart.
    return fit_id(tool_call_id, _UNSAFE_ID_CHARS.sub("_", call_part), max_len)


def normalize_responses_tool_call_id(
    tool_call_id: str, model: Model, source: AssistantMessage
) -> str:
    """Make another model's tool-call id a valid Responses ``call_id``: ``[a-zA-Z0-9_-]``, ≤ 64.

    An ``fc_…`` item id minted elsewhere is never replayed (OpenAI pairs ``fc_`` items with
    reasoning items of the same response, which a foreign turn does not carry; pi-mono drops it
    for a different model of the same provider), so the item part is dropped and the adapter
    sends the call without an item ``id``. The result never contains ``|``; distinct ids stay
    distinct (:func:`pi_sdk.provider.fit_id`).
    """
    del model, source
    return _normalize_call_id(tool_call_id, 64)


def normalize_completions_tool_call_id(
    tool_call_id: str, model: Model, source: AssistantMessage
) -> str:
    """Make another model's tool-call id valid for Chat Completions: ``[a-zA-Z0-9_-]``, ≤ 40.

    OpenAI rejects ``tool_call_id`` values longer than 40 characters (pi-spec §4.2, §4.13); a
    Responses ``call|item`` id keeps its call part. Applied to every compatible server: the shape
    is accepted everywhere and the mapping is applied to the results too.
    """
    del model, source
    return _normalize_call_id(tool_call_id, 40)
