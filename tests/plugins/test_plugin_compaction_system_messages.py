"""pi-sdk-compaction keeps what the transcript's system messages declare (pi-ai 1.6).

A prompt update or a tool announcement made inside the range a compaction replaces must still
hold afterwards: the prompt and tools replayed from the compacted transcript are the ones
replayed from the whole transcript, whether the transcript declares its own leading system
message or the agent folds its ``system_prompt`` and tools in front of it.
"""

from __future__ import annotations

from pi_sdk_compaction import CompactionSummary, Compactor

from pi_sdk import (
    AbortController,
    Agent,
    AgentMessage,
    AssistantMessage,
    Context,
    SystemMessage,
    TextContent,
    Tool,
    UserMessage,
    current_system_prompt,
    current_tools,
    tool,
)
from pi_sdk.testing import ScriptedCall, ScriptedProvider, ScriptedReply

FILLER = "The quarterly report lists revenue, costs and the open questions for the board. " * 3
LOOKUP = Tool(name="lookup", description="Look a word up.", parameters={"type": "object"})
TRANSLATE = Tool(name="translate", description="Translate.", parameters={"type": "object"})


def _summarizer() -> ScriptedProvider:
    return ScriptedProvider([lambda call: ScriptedReply.text("## Goal\nTalk.")] * 50)


def _turn(n: int) -> list[AgentMessage]:
    return [
        UserMessage(content=f"question {n}: {FILLER}"),
        AssistantMessage(
            api="scripted",
            provider="scripted",
            model="m",
            content=[TextContent(text=f"answer {n}: {FILLER}")],
            stop_reason="stop",
        ),
    ]


def _transcript(lead: bool) -> list[AgentMessage]:
    messages: list[AgentMessage] = []
    if lead:
        messages.append(SystemMessage(content="You help.", tools_added=[LOOKUP], timestamp=0))
    messages += _turn(1)
    messages.append(SystemMessage(content="Answer in French.", tools_added=[TRANSLATE]))
    messages += _turn(2)
    messages.append(SystemMessage(sections={"tone": "brief"}, tools_removed=[{"name": "lookup"}]))
    for n in range(3, 12):
        messages += _turn(n)
    return messages


def _declared(messages: list[AgentMessage]) -> tuple[str, list[str]]:
    llm = [m for m in messages if not isinstance(m, CompactionSummary)]
    return current_system_prompt(llm), [t.name for t in current_tools(llm)]  # type: ignore[arg-type]


async def _compacted(
    messages: list[AgentMessage],
) -> tuple[ScriptedProvider, list[AgentMessage]]:
    """``(the summary model, the view)`` of one compacting call over ``messages``."""
    summarizer = _summarizer()
    compactor = Compactor(
        summarizer.model,
        context_window=1200,
        keep_recent_tokens=300,
        stream_fn=summarizer.stream_fn,
    )
    view = await compactor.transform_context(list(messages), AbortController().signal)
    assert compactor.history, "the transcript was meant to be compacted"
    return summarizer, view


async def test_a_leading_system_message_and_later_updates_survive_a_compaction():
    messages = _transcript(lead=True)
    _, view = await _compacted(messages)
    assert view[0] is messages[0]  # the transcript still declares its own prompt and tools
    assert isinstance(view[1], CompactionSummary)
    assert (
        _declared(view)
        == _declared(messages)
        == ("You help.\n\nAnswer in French.\n\nbrief", ["translate"])
    )
    assert len(view) < len(messages)


async def test_updates_without_a_leading_system_message_follow_the_summary():
    messages = _transcript(lead=False)
    _, view = await _compacted(messages)
    assert isinstance(view[0], CompactionSummary)  # the agent's shorthand still leads
    updates = [m for m in view if isinstance(m, SystemMessage)]
    assert updates == [m for m in messages if isinstance(m, SystemMessage)]
    assert _declared(view) == _declared(messages)


async def test_the_summary_model_is_not_asked_to_summarize_the_system_messages():
    summarizer, _ = await _compacted(_transcript(lead=True))
    [request] = [c.context.messages[-1].text for c in summarizer.calls]
    assert "question 1" in request
    assert "Answer in French" not in request and "You help." not in request


async def test_an_agent_keeps_its_prompt_update_and_added_tool_through_compaction_and_apply():
    requests: list[Context] = []

    def answer(call: ScriptedCall) -> ScriptedReply:
        requests.append(call.context)
        return ScriptedReply.text(f"answer {len(requests)}: {FILLER}")

    vendor = ScriptedProvider([answer] * 40)
    vendor.model.context_window = 800

    @tool
    async def lookup(word: str) -> str:
        """Look a word up.

        Args:
            word: The word.
        """
        return word

    @tool
    async def translate(text: str) -> str:
        """Translate.

        Args:
            text: The text.
        """
        return text

    agent = Agent(model=vendor.model, system_prompt="You help.", tools=[lookup])
    summarizer = _summarizer()
    compactor = Compactor(summarizer.model, keep_recent_tokens=200, stream_fn=summarizer.stream_fn)
    compactor.attach(agent)
    await agent.prompt(f"question 1: {FILLER}")
    agent.messages = [*agent.messages, SystemMessage(content="Answer in French.")]
    agent.tools = [lookup, translate]  # announced as a system message before the next request
    for n in range(2, 9):
        await agent.prompt(f"question {n}: {FILLER}")
    assert compactor.history, "the session was meant to outgrow the window"
    last = requests[-1]
    assert current_system_prompt(last) == "You help.\n\nAnswer in French."
    assert [t.name for t in current_tools(last)] == ["lookup", "translate"]
    announcements = [m for m in agent.messages if isinstance(m, SystemMessage) and m.tools_added]
    assert len(announcements) == 1  # never announced again

    assert compactor.apply()
    assert isinstance(agent.messages[0], CompactionSummary)
    assert not compactor.apply()  # already applied: nothing changes
    await agent.prompt("one more")
    assert current_system_prompt(requests[-1]) == "You help.\n\nAnswer in French."
    assert [t.name for t in current_tools(requests[-1])] == ["lookup", "translate"]
    announcements = [m for m in agent.messages if isinstance(m, SystemMessage) and m.tools_added]
    assert len(announcements) == 1
