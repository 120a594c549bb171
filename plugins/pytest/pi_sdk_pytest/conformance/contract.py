"""The event contract (pi-spec §2) as a list of violations, for any sequence of events.

``start`` first and only once; exactly one terminal ``done`` / ``error``, last; blocks opened in
order (``content_index`` 0, 1, 2...), each ``*_start`` -> ``*_delta``* -> ``*_end`` of one kind
(blocks may interleave, as parallel tool calls do); none open at ``done``; the final message has
one block per block opened, of that kind, and the deltas of a text or thinking block add up to
its final text. A ``done`` carries a success (``stop``, ``length``, ``toolUse``), an ``error``
a failure (``error``, ``aborted``) with an ``error_message``.

An abort may keep more than its events said: a provider decodes a vendor event into several
events at once (a block's start and its first text), and the abort can come between them. So
after an ``aborted`` error the final message may hold more blocks than were opened, and a
block's deltas need only begin its final text.
"""

from __future__ import annotations

from collections.abc import Sequence

from pi_sdk import AssistantMessage, AssistantMessageEvent

__all__ = ["contract_violations", "final_message"]

_KINDS = ("text", "thinking", "toolcall")
_CONTENT_TYPES = {"text": "text", "thinking": "thinking", "toolcall": "toolCall"}


def final_message(events: Sequence[AssistantMessageEvent]) -> AssistantMessage | None:
    """The message of the last terminal event, or ``None`` when there is none."""
    for event in reversed(events):
        if event.type == "done":
            return event.message
        if event.type == "error":
            return event.error
    return None


def contract_violations(events: Sequence[AssistantMessageEvent]) -> list[str]:
    """Every way ``events`` break the contract, one sentence each (empty: none)."""
    if not events:
        return ["no event at all"]
    problems: list[str] = []
    types = [event.type for event in events]
    if types[0] != "start":
        problems.append(f"the first event is {types[0]!r}, not 'start'")
    if types.count("start") > 1:
        problems.append(f"{types.count('start')} 'start' events, at {_at(types, 'start')}")
    terminal = [i for i, kind in enumerate(types) if kind in ("done", "error")]
    if not terminal:
        problems.append(f"no terminal 'done' or 'error' event (the last is {types[-1]!r})")
    elif len(terminal) > 1:
        problems.append(f"{len(terminal)} terminal events, at {terminal}")
    if terminal and terminal[0] != len(events) - 1:
        after = types[terminal[0] + 1 :]
        problems.append(
            f"{len(after)} event(s) after the terminal {types[terminal[0]]!r} at "
            f"{terminal[0]}: {after[:5]}"
        )
    end = terminal[0] if terminal else len(events)
    problems += _block_violations(events[:end])
    if terminal:
        problems += _terminal_violations(events[: terminal[0] + 1])
    return problems


def _at(types: list[str], kind: str) -> list[int]:
    return [i for i, t in enumerate(types) if t == kind]


def _block_violations(events: Sequence[AssistantMessageEvent]) -> list[str]:
    """Nesting and order of the blocks of the events before the terminal one."""
    problems: list[str] = []
    open_blocks: dict[int, str] = {}
    opened = 0
    for number, event in enumerate(events):
        kind, _, phase = event.type.partition("_")
        if kind not in _KINDS:
            continue
        index: int = getattr(event, "content_index", -1)
        if phase == "start":
            if index != opened:
                problems.append(
                    f"event {number} ({event.type}) opens block {index}; the next block is {opened}"
                )
            open_blocks[index] = kind
            opened = max(opened, index + 1)
        elif open_blocks.get(index) != kind:
            problems.append(
                f"event {number} ({event.type}) for block {index}, not an open {kind} block"
            )
        elif phase == "end":
            del open_blocks[index]
    return problems


def _terminal_violations(events: Sequence[AssistantMessageEvent]) -> list[str]:
    """The terminal event against the blocks and deltas before it."""
    last = events[-1]
    message = final_message(events)
    assert message is not None
    problems: list[str] = []
    if last.type == "done" and message.stop_reason not in ("stop", "length", "toolUse"):
        problems.append(f"'done' with stop_reason {message.stop_reason!r}")
    if last.type == "error":
        if message.stop_reason not in ("error", "aborted"):
            problems.append(f"'error' with stop_reason {message.stop_reason!r}")
        if not message.error_message:
            problems.append("'error' without an error_message")
    kinds: dict[int, str] = {}
    deltas: dict[int, list[str]] = {}
    closed: set[int] = set()
    for event in events[:-1]:
        kind, _, phase = event.type.partition("_")
        index: int = getattr(event, "content_index", -1)
        if phase == "start":
            kinds.setdefault(index, kind)
        elif phase == "delta" and kind != "toolcall":
            deltas.setdefault(index, []).append(getattr(event, "delta", ""))
        elif phase == "end":
            closed.add(index)
    if last.type == "done" and set(kinds) - closed:
        problems.append(f"'done' with block(s) {sorted(set(kinds) - closed)} still open")
    aborted = message.stop_reason == "aborted"
    if len(message.content) < len(kinds) or (len(message.content) > len(kinds) and not aborted):
        problems.append(
            f"the final message has {len(message.content)} block(s); {len(kinds)} were opened"
        )
    for index, kind in sorted(kinds.items()):
        if index >= len(message.content):
            continue
        block = message.content[index]
        if block.type != _CONTENT_TYPES[kind]:
            problems.append(f"block {index} was opened as {kind}; the message has {block.type}")
            continue
        text = getattr(block, "text", None) if kind == "text" else getattr(block, "thinking", None)
        joined = "".join(deltas.get(index, []))
        if kind != "toolcall" and joined != text and not (aborted and str(text).startswith(joined)):
            problems.append(f"the {kind} deltas of block {index} do not add up to its final {kind}")
    return problems
