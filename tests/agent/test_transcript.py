"""Each transcript entry converted once per run, edits by hooks still seen (issue 16, item 4)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Literal

import pytest
from _support.agent import collect, config, isolated_plugins, text_of, user  # noqa: F401
from pydantic import BaseModel

import pi_sdk
from pi_sdk import AgentContext, agent_loop
from pi_sdk._agent.transcript import Conversion, TrackedMessages
from pi_sdk.testing import ScriptedProvider, ScriptedReply


class Note(BaseModel):
    role: Literal["note"] = "note"
    text: str


class LoudUser(pi_sdk.UserMessage):
    pass


@pi_sdk.tool
async def ping() -> str:
    """Answer pong."""
    return "pong"


def tool_turns(count: int) -> list[Any]:
    return [*(ScriptedReply.tool_call("ping", {}, id=f"c{i}") for i in range(count)), "done"]


def sent(provider: ScriptedProvider, call: int) -> list[str]:
    return [f"{m.role}:{text_of(m)}" for m in provider.calls[call].context.messages]


class CountingMessages(TrackedMessages):
    """Counts the entries read by index (what a conversion reads)."""

    reads = 0

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, int):
            self.reads += 1
        return super().__getitem__(index)


def test_conversion_reads_only_the_entries_added_since_the_last_call():
    messages = CountingMessages([user("a"), user("b")])
    conversion = Conversion(messages)
    assert [text_of(m) for m in conversion.convert()[0]] == ["a", "b"]
    assert messages.reads == 2
    messages.append(user("c"))
    messages.extend([user("d")])
    messages += [user("e")]
    out, plain = conversion.convert()
    assert [text_of(m) for m in out] == ["a", "b", "c", "d", "e"] and plain
    assert messages.reads == 5  # three more, not five again


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda m: m.__setitem__(1, user("B")), ["a", "B", "c"]),
        (lambda m: m.__setitem__(slice(0, 1), [user("A"), user("A2")]), ["A", "A2", "b", "c"]),
        (lambda m: m.__delitem__(0), ["b", "c"]),
        (lambda m: m.insert(0, user("z")), ["z", "a", "b", "c"]),
        (lambda m: m.pop(0), ["b", "c"]),
        (lambda m: m.remove(m[1]), ["a", "c"]),
        (lambda m: m.reverse(), ["c", "b", "a"]),
        (lambda m: m.sort(key=text_of, reverse=True), ["c", "b", "a"]),
        (lambda m: m.clear(), []),
        (lambda m: m.__imul__(2), ["a", "b", "c", "a", "b", "c"]),
    ],
)
def test_any_change_other_than_appending_is_converted_again(
    edit: Callable[[TrackedMessages], object], expected: list[str]
):
    messages = TrackedMessages([user("a"), user("b"), user("c")])
    conversion = Conversion(messages)
    conversion.convert()
    edit(messages)
    assert [text_of(m) for m in conversion.convert()[0]] == expected


def test_custom_entries_are_converted_on_every_call_and_subclasses_are_not_plain():
    seen: list[str] = []

    def convert(note: Note) -> list[pi_sdk.Message]:
        seen.append(note.text)
        return [user(f"[note] {note.text}")]

    pi_sdk.register_message_type(Note, convert)
    try:
        note = Note(text="one")
        messages = TrackedMessages([user("a"), note, user("b")])
        conversion = Conversion(messages)
        out, plain = conversion.convert()
        assert [text_of(m) for m in out] == ["a", "[note] one", "b"] and plain
        note.text = "two"  # edited in place, as a hook may
        out, plain = conversion.convert()
        assert [text_of(m) for m in out] == ["a", "[note] two", "b"] and plain
        assert seen == ["one", "two"]
        messages.append(LoudUser(content="loud"))
        out, plain = conversion.convert()
        assert [text_of(m) for m in out][-1] == "loud" and not plain
    finally:
        pi_sdk.unregister_message_type(Note)


async def test_a_hook_editing_the_transcript_in_place_is_seen_by_the_next_call():
    def before(ctx: Any, signal: Any) -> None:
        messages = ctx.context.messages
        if len(messages) == 2:  # first turn: [prompt, assistant]
            messages[0] = user("edited")
        else:
            del messages[1:3]  # second turn: drop the first call and its result

    provider = ScriptedProvider(tool_turns(2))
    stream = agent_loop(
        [user("first")], AgentContext(tools=[ping]), config(provider, before_tool_call=before)
    )
    await collect(stream)
    assert sent(provider, 1) == ["user:edited", "assistant:", "toolResult:pong"]
    assert sent(provider, 2) == ["user:edited", "assistant:", "toolResult:pong"]
    assert len(provider.calls) == 3


async def test_a_hook_replacing_the_transcript_list_is_followed():
    def before(ctx: Any, signal: Any) -> None:
        ctx.context.messages = [user("replaced"), *ctx.context.messages[1:]]

    provider = ScriptedProvider(tool_turns(2))
    stream = agent_loop(
        [user("first")], AgentContext(tools=[ping]), config(provider, before_tool_call=before)
    )
    await collect(stream)
    assert sent(provider, 2)[0] == "user:replaced"
    assert len(sent(provider, 2)) == 5


async def test_hooks_see_the_full_list_on_every_call():
    lengths: list[tuple[int, int]] = []

    def transform(messages: list[Any], signal: Any) -> list[Any]:
        lengths.append((len(messages), -1))
        return messages

    def convert(messages: list[Any]) -> list[Any]:
        lengths.append((-1, len(messages)))
        return pi_sdk.default_convert_to_llm(messages)

    provider = ScriptedProvider(tool_turns(2))
    hooks = config(provider, transform_context=transform, convert_to_llm=convert)
    await collect(agent_loop([user("q")], AgentContext(tools=[ping]), hooks))
    assert lengths == [(1, -1), (-1, 1), (3, -1), (-1, 3), (5, -1), (-1, 5)]


def _five() -> TrackedMessages:
    return TrackedMessages([user(t) for t in "abcde"])


@pytest.mark.parametrize(
    ("edit", "changed_from"),
    [
        (lambda m: m.append(user("f")), sys.maxsize),  # appending changes nothing converted
        (lambda m: m.extend([user("f")]), sys.maxsize),
        (lambda m: m.__iadd__([user("f")]), sys.maxsize),
        (lambda m: m.__setitem__(3, user("x")), 3),
        (lambda m: m.__setitem__(-2, user("x")), 3),  # negative: counted from the end
        (lambda m: m.__setitem__(slice(1, 3), [user("x")]), 1),
        (lambda m: m.__setitem__(slice(-2, None), [user("x")]), 3),
        (lambda m: m.__setitem__(slice(None, None, 2), [user(t) for t in "xyz"]), 0),
        (lambda m: m.__setitem__(slice(3, None, 1), [user("x")]), 3),  # step 1: a plain slice
        (lambda m: m.__delitem__(4), 4),
        (lambda m: m.__delitem__(-1), 4),
        (lambda m: m.__delitem__(slice(2, None)), 2),
        (lambda m: m.__delitem__(slice(4, 0, -1)), 0),  # a stepped slice: from the start
        (lambda m: m.insert(2, user("x")), 2),
        (lambda m: m.insert(-1, user("x")), 4),
        (lambda m: m.insert(99, user("x")), 5),  # past the end: an append at the end
        (lambda m: m.insert(-99, user("x")), 0),
        (lambda m: m.pop(), 4),
        (lambda m: m.pop(1), 1),
        (lambda m: m.pop(-3), 2),
        (lambda m: m.remove(m[3]), 3),
        (lambda m: m.clear(), 0),
        (lambda m: m.sort(key=text_of), 0),
        (lambda m: m.reverse(), 0),
        (lambda m: m.__imul__(0), 0),
        (lambda m: m.__imul__(1), 5),  # repeating appends: the first five stay
        (lambda m: m.__imul__(2), 5),
        (lambda m: m.__imul__(-1), 0),
    ],
)
def test_each_change_records_the_lowest_index_it_touched(
    edit: Callable[[TrackedMessages], object], changed_from: int
):
    messages = _five()
    assert messages.take_changes() == sys.maxsize
    edit(messages)
    assert messages.take_changes() == changed_from
    assert messages.take_changes() == sys.maxsize  # read once, then reset


def test_of_several_changes_the_lowest_index_is_kept():
    messages = _five()
    messages[3] = user("x")
    messages[1] = user("y")
    messages[4] = user("z")
    assert messages.take_changes() == 1


@pytest.mark.parametrize(
    ("edit", "reads"),
    [
        (lambda m: m.__setitem__(4, user("x")), 5),
        (lambda m: m.__setitem__(0, user("x")), 5),
        (lambda m: m.insert(99, user("x")), 1),  # at the converted end: only the new one read
    ],
)
def test_a_change_behind_the_end_converts_everything_again(
    edit: Callable[[TrackedMessages], object], reads: int
):
    messages = CountingMessages([user(t) for t in "abcde"])
    conversion = Conversion(messages)
    conversion.convert()
    messages.reads = 0
    edit(messages)
    expected = [text_of(m) for m in messages]
    messages.reads = 0
    assert [text_of(m) for m in conversion.convert()[0]] == expected
    assert messages.reads == reads


def test_a_custom_entry_converted_to_a_subclass_makes_the_result_not_plain():
    pi_sdk.register_message_type(Note, lambda note: [LoudUser(content=note.text)])
    try:
        messages = TrackedMessages([user("a"), Note(text="loud")])
        out, plain = Conversion(messages).convert()
        assert [text_of(m) for m in out] == ["a", "loud"] and not plain
        assert type(out[1]) is LoudUser
    finally:
        pi_sdk.unregister_message_type(Note)
    assert Conversion(TrackedMessages([user("a")])).convert()[1]  # plain types only: plain
