"""Where to cut: the newest messages worth ``keep_tokens`` stay, tool results stay with calls.

pi-coding-agent 0.73.1 ``findCutPoint``: walk back from the newest message adding up estimated
tokens until the budget is reached, then cut at the first valid cut point at or after that
message. A valid cut point is any message but a tool result, so a tool result is never
separated from the assistant message that called it: cutting at an assistant message keeps its
results (they follow it), and a cut never lands between a call and its result.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["choose_cut"]


def choose_cut(
    tokens: Sequence[int], cut_points: Sequence[bool], *, start: int, keep_tokens: int
) -> int | None:
    """Return the index of the first kept message, or ``None`` when nothing can be cut.

    Args:
        tokens: Estimated tokens of each message.
        cut_points: ``cut_points[i]``: message ``i`` may start the kept part (it is not a tool
            result).
        start: The first message that may be summarized (after an earlier summary).
        keep_tokens: The newest messages worth at least this many tokens are kept.

    Returns:
        ``c`` with ``start < c < len(tokens)`` and ``cut_points[c]``: messages ``start..c-1``
        are summarized, ``c..`` kept. ``None`` if the messages after ``start`` are worth less
        than ``keep_tokens`` or no valid cut point leaves something to summarize.
    """
    total = 0
    for index in range(len(tokens) - 1, start - 1, -1):
        total += tokens[index]
        if total < keep_tokens:
            continue
        later = next((c for c in range(index, len(tokens)) if cut_points[c]), None)
        if later is None:  # only tool results after it: keep a little more instead
            later = next((c for c in range(index - 1, start, -1) if cut_points[c]), None)
        return later if later is not None and later > start else None
    return None
