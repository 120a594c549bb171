"""The agent's prompt and tools live in the transcript, as in pi-agent-core 1.6 (issue 27).

A tool change is announced in a system message before the next request; a transcript that
starts with a system message (pi 1.6's) declares its own prompt and tools; the current prompt
is replayed from the transcript; ``reset()`` keeps it.
"""

from __future__ import annotations

import warnings

import pytest

import pi_sdk
from pi_sdk import Context, SystemMessage, UserMessage
from pi_sdk.testing import ScriptedProvider


@pi_sdk.tool
def alpha(q: str) -> str:
    """Alpha tool."""
    return q


@pi_sdk.tool
def beta(q: str) -> str:
    """Beta tool."""
    return q


def names(context: Context) -> list[str]:
    return [t.name for t in pi_sdk.current_tools(context)]


async def test_a_tool_change_is_announced_before_the_next_request() -> None:
    provider = ScriptedProvider(["one", "two"])
    agent = pi_sdk.Agent(model=provider.model, system_prompt="Be brief.", tools=[alpha])
    await agent.prompt("hi")
    first = provider.calls[0].context
    assert pi_sdk.current_system_prompt(first) == "Be brief."
    assert names(first) == ["alpha"]
    assert not any(isinstance(m, SystemMessage) for m in agent.messages)  # shorthand: unchanged

    agent.tools = [beta]
    await agent.prompt("again")
    announced = [m for m in agent.messages if isinstance(m, SystemMessage)]
    assert len(announced) == 1
    change = announced[0]
    assert [t.name for t in change.tools_added or []] == ["beta"]
    assert [r.name for r in change.tools_removed or []] == ["alpha"]
    second = provider.calls[1].context
    assert names(second) == ["beta"]
    assert pi_sdk.current_system_prompt(second) == "Be brief."
    # The announcement sits in the history the model saw, before the reply it made.
    roles = [m.role for m in provider.calls[1].messages]
    assert roles == ["user", "assistant", "user", "system"]


async def test_no_announcement_without_a_change() -> None:
    provider = ScriptedProvider(["one", "two"])
    agent = pi_sdk.Agent(model=provider.model, tools=[alpha])
    await agent.prompt("hi")
    agent.tools = [alpha]  # the same declaration
    await agent.prompt("again")
    assert not any(isinstance(m, SystemMessage) for m in agent.messages)


async def test_a_pi_1_6_transcript_declares_its_own_prompt_and_tools() -> None:
    provider = ScriptedProvider(["ok"])
    lead = SystemMessage(content="From pi.", tools_added=[alpha.to_tool()], timestamp=0)
    agent = pi_sdk.Agent(
        model=provider.model,
        system_prompt="ignored",
        tools=[alpha],
        messages=[lead, UserMessage(content="hi")],
    )
    assert agent.system_prompt == "From pi."
    await agent.continue_()
    sent = provider.calls[0].context
    assert pi_sdk.current_system_prompt(sent) == "From pi."
    assert names(sent) == ["alpha"]
    assert agent.messages[0] is lead

    agent.messages = [*agent.messages, SystemMessage(content="Also be kind.")]
    assert agent.system_prompt == "From pi.\n\nAlso be kind."
    with pytest.warns(DeprecationWarning, match="append a pi_sdk.SystemMessage"):
        agent.system_prompt = "Rewritten."
    first = agent.messages[0]
    assert isinstance(first, SystemMessage) and first.content == "Rewritten."
    assert first.tools_added == lead.tools_added


async def test_the_prompt_setter_before_a_conversation_does_not_warn() -> None:
    agent = pi_sdk.Agent(system_prompt="a")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent.system_prompt = "b"
    assert agent.system_prompt == "b"


async def test_reset_keeps_the_replayed_prompt() -> None:
    provider = ScriptedProvider(["one"])
    agent = pi_sdk.Agent(model=provider.model, system_prompt="Base.", tools=[alpha])
    await agent.prompt("hi")
    agent.messages = [*agent.messages, SystemMessage(content="More.")]
    agent.tools = [beta]
    agent.reset()
    assert agent.messages == []
    assert agent.system_prompt == "Base.\n\nMore."
    assert agent.state.base_tools == [beta.to_tool()]


async def test_each_reply_records_the_level_the_loop_asked_for_and_its_duration() -> None:
    provider = ScriptedProvider(["one", "two"])
    agent = pi_sdk.Agent(model=provider.model)
    await agent.prompt("hi")
    agent.thinking_level = "high"
    await agent.prompt("again")
    replies = [m for m in agent.messages if isinstance(m, pi_sdk.AssistantMessage)]
    assert [r.thinking_level for r in replies] == ["off", "high"]
    assert all(isinstance(r.duration_ms, int) and r.duration_ms >= 0 for r in replies)


def _tool(name: str, description: str = "") -> pi_sdk.Tool:
    return pi_sdk.Tool(name=name, description=description or name, parameters={"type": "object"})


A, B, C = _tool("a"), _tool("b"), _tool("c")
LEAD = SystemMessage(content="From the transcript.", tools_added=[C], timestamp=0)


@pytest.mark.parametrize(
    ("messages", "prompt", "tools", "folded"),
    [
        ([UserMessage(content="q")], "Be brief.", [A], ("Be brief.", ["a"])),
        ([UserMessage(content="q")], "", [], (None, None)),  # empty: nothing folded
        ([], "Be brief.", [], ("Be brief.", None)),
        ([LEAD, UserMessage(content="q")], "Be brief.", [A], (None, None)),  # its own wins
        ([UserMessage(content="q"), LEAD], "Be brief.", [A], ("Be brief.", ["a"])),  # not first
    ],
)
def test_the_shorthand_is_folded_unless_the_transcript_starts_with_a_system_message(
    messages: list[object], prompt: str, tools: list[pi_sdk.Tool], folded: tuple[object, object]
) -> None:
    from pi_sdk._agent.tool_declarations import shorthand

    got_prompt, got_tools = shorthand(messages, prompt, tools)  # type: ignore[arg-type]
    assert (got_prompt, None if got_tools is None else [t.name for t in got_tools]) == folded


@pytest.mark.parametrize(
    ("messages", "baseline", "executable", "added", "removed"),
    [
        ([UserMessage(content="q")], [A, B], [A, B], None, None),  # no change: no message
        ([UserMessage(content="q")], [A], [A, B], ["b"], None),
        ([UserMessage(content="q")], [A, B], [B], None, ["a"]),
        ([UserMessage(content="q")], [A], [_tool("a", "new words")], ["a"], ["a"]),  # redefined
        ([UserMessage(content="q")], [], [A], ["a"], None),
        # a transcript led by its own system message declares its tools, not the baseline
        ([LEAD, UserMessage(content="q")], [A], [C], None, None),
        ([LEAD, UserMessage(content="q")], [A], [A, C], ["a"], None),
        # a system message later in the transcript adds to the baseline
        (
            [UserMessage(content="q"), SystemMessage(tools_added=[B], timestamp=0)],
            [A],
            [A, B],
            None,
            None,
        ),
    ],
)
def test_a_tool_change_is_announced_against_what_the_transcript_declares(
    messages: list[object],
    baseline: list[pi_sdk.Tool],
    executable: list[pi_sdk.Tool],
    added: list[str] | None,
    removed: list[str] | None,
) -> None:
    from pi_sdk._agent.tool_declarations import tool_change_message

    change = tool_change_message(messages, baseline, executable)  # type: ignore[arg-type]
    if added is None and removed is None:
        assert change is None
        return
    assert change is not None
    names = [t.name for t in change.tools_added] if change.tools_added is not None else None
    assert names == added
    gone = [r.name for r in change.tools_removed] if change.tools_removed is not None else None
    assert gone == removed
