"""A run's transcript converted once per entry, not once per turn (issue 16, item 4).

Before every model call the loop turns the whole transcript into LLM messages
(:func:`pi_sdk.default_convert_to_llm`). Done from scratch, that is work in the length of the
history on every turn, so a long run costs more per turn the longer it gets. A run's working
transcript is a :class:`TrackedMessages` list: appending (what the loop does) leaves what was
converted valid, and any other change (an item set, deleted, inserted, the list sorted or
cleared, by the loop or by a hook holding ``context.messages``) records the lowest index it
touched, from which :class:`Conversion` converts again. LLM messages pass through by reference
(so a hook's in-place edit of one is seen as it is); a custom message is converted again on
every call (its converter may read fields a hook edited, and the registry may have changed);
replacing ``context.messages`` by another list falls back to converting everything each turn.
"""

from __future__ import annotations

import sys
from typing import Any, SupportsIndex

from pi_sdk._agent.messages import LLM_EXACT_TYPES, LLM_TYPES, convert_message_to_llm
from pi_sdk._wire.agent_types import AgentMessage
from pi_sdk.types import Message

__all__ = ["Conversion", "TrackedMessages"]

_UNCHANGED = sys.maxsize


class TrackedMessages(list[AgentMessage]):
    """A list that remembers the lowest index changed other than by appending.

    ``changed_from`` is :data:`sys.maxsize` until something other than ``append`` / ``extend``
    / ``+=`` changes the list; :meth:`take_changes` reads and resets it.
    """

    changed_from: int = _UNCHANGED

    def take_changes(self) -> int:
        """The lowest index changed since the last call (``sys.maxsize``: none)."""
        changed, self.changed_from = self.changed_from, _UNCHANGED
        return changed

    def _mark(self, index: int) -> None:
        self.changed_from = min(self.changed_from, max(index, 0))

    def _mark_index(self, index: SupportsIndex | slice) -> None:
        if isinstance(index, slice):
            start, _stop, step = index.indices(len(self))
            self._mark(start if step == 1 else 0)
            return
        position = index.__index__()
        self._mark(position + len(self) if position < 0 else position)

    def __setitem__(self, index: Any, value: Any) -> None:
        self._mark_index(index)
        super().__setitem__(index, value)

    def __delitem__(self, index: SupportsIndex | slice) -> None:
        self._mark_index(index)
        super().__delitem__(index)

    def insert(self, index: SupportsIndex, value: AgentMessage) -> None:  # noqa: D102
        position = index.__index__()
        self._mark(min(position + len(self) if position < 0 else position, len(self)))
        super().insert(index, value)

    def pop(self, index: SupportsIndex = -1) -> AgentMessage:  # noqa: D102
        self._mark_index(index)
        return super().pop(index)

    def remove(self, value: AgentMessage) -> None:  # noqa: D102
        self._mark(self.index(value))
        super().remove(value)

    def clear(self) -> None:  # noqa: D102
        self._mark(0)
        super().clear()

    def sort(self, *args: Any, **kwargs: Any) -> None:  # noqa: D102
        self._mark(0)
        super().sort(*args, **kwargs)

    def reverse(self) -> None:  # noqa: D102
        self._mark(0)
        super().reverse()

    def __imul__(self, count: SupportsIndex) -> TrackedMessages:
        self._mark(0 if count.__index__() < 1 else len(self))
        return super().__imul__(count)


class Conversion:
    """:func:`pi_sdk.default_convert_to_llm` of a :class:`TrackedMessages`, kept up to date.

    The converted transcript is held as runs of LLM messages (by reference) separated by the
    custom entries, which :meth:`convert` converts again each time; ``plain`` says whether the
    result holds exactly user, assistant and tool-result messages (no subclass), which a
    :class:`pi_sdk.Context` can take without validating them again.
    """

    __slots__ = ("_custom", "_done", "_runs", "_subclassed", "source")

    def __init__(self, source: TrackedMessages) -> None:
        """Convert ``source`` from its first entry on the first :meth:`convert`."""
        self.source = source
        """The transcript converted."""
        self._reset()

    def _reset(self) -> None:
        self._done = 0  # entries of the source taken in
        self._runs: list[list[Message]] = [[]]  # LLM messages, one run per custom gap
        self._custom: list[AgentMessage] = []  # the custom entry after runs[i]
        self._subclassed = False  # an LLM message of a subclass was taken in

    def convert(self) -> tuple[list[Message], bool]:
        """The LLM messages of the whole source now, and whether they are plain.

        Converts the entries appended since the last call (all of them after a change other
        than appending); custom entries go through their converter every time.
        """
        source = self.source
        if source.take_changes() < self._done:
            self._reset()  # a change behind the end (a hook's edit, rare): start again
        runs, custom = self._runs, self._custom
        exact = LLM_EXACT_TYPES
        run = runs[-1]
        for index in range(self._done, len(source)):
            message = source[index]
            kind = type(message)
            if kind in exact:
                run.append(message)  # pyright: ignore[reportArgumentType]
            elif isinstance(message, LLM_TYPES):
                run.append(message)
                self._subclassed = True
            else:
                custom.append(message)
                run = list[Message]()
                runs.append(run)
        self._done = len(source)
        out: list[Message] = list(runs[0])
        plain = not self._subclassed
        for entry, following in zip(custom, runs[1:], strict=True):
            converted = convert_message_to_llm(entry)
            if plain and not LLM_EXACT_TYPES.issuperset(map(type, converted)):
                plain = False
            out.extend(converted)
            out.extend(following)
        return out, plain
