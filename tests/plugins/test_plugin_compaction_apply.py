"""The Compactor's bookkeeping between calls: what ``apply`` writes, what a later call reuses.

``apply`` writes the compacted transcript whenever it differs from the agent's, including a
compaction that replaced exactly one message (the compacted transcript as long as the original,
one entry different). A transcript shorter than what the summary stands for (the agent was reset
or handed another conversation) is not that summary's: it is sent as it is. The estimate of an
attached agent's request counts its system prompt and its tools as well as the messages.
"""

from __future__ import annotations

import pytest
from _support.compaction import TURNS, WORDS, SummaryWriter
from pi_sdk_compaction import CompactionSummary, Compactor

from pi_sdk import (
    AbortController,
    Agent,
    AgentMessage,
    Context,
    UserMessage,
    default_convert_to_llm,
    tool,
)
from pi_sdk.agent import estimate_context_tokens, estimate_tokens


async def compact(compactor: Compactor, messages: list[AgentMessage]) -> list[AgentMessage]:
    return await compactor.transform_context(messages, AbortController().signal)


LONG = UserMessage(content="long: " + WORDS * 100)
"""A first turn worth more than the three after it (about 2,000 estimated tokens)."""
TRANSCRIPT: list[AgentMessage] = [LONG, *TURNS[:3]]


async def test_apply_writes_a_compaction_that_replaced_one_message() -> None:
    """Summary + three kept turns is as long as the four turns: still a change to write."""
    writer = SummaryWriter()
    compactor = writer.compactor(
        context_window=estimate_context_tokens(TRANSCRIPT).tokens - 1,
        threshold=1.0,
        keep_recent_tokens=sum(estimate_tokens(m) for m in TURNS[:3]),
    )
    agent = Agent(messages=TRANSCRIPT)
    result = await compact(compactor, list(agent.messages))
    summary = compactor.summary
    assert isinstance(summary, CompactionSummary) and summary.summary == "summary 1"
    assert result == [summary, *TURNS[:3]] and len(result) == len(TRANSCRIPT)
    assert compactor.history[0].summarized == 1

    assert compactor.apply(agent) is True
    assert list(agent.messages) == [summary, *TURNS[:3]]
    assert compactor.apply(agent) is False  # the transcript already holds it
    assert list(agent.messages) == [summary, *TURNS[:3]]


async def test_a_transcript_shorter_than_the_summary_covers_is_sent_as_it_is() -> None:
    """After a compaction, a new short conversation (agent reset) drops the old summary."""
    writer = SummaryWriter()
    compactor = writer.compactor(context_window=2000, threshold=1.0, keep_recent_tokens=500)
    await compact(compactor, list(TURNS))
    assert compactor.summary is not None and len(compactor.history) == 1
    short: list[AgentMessage] = [UserMessage(content="hello")]
    assert await compact(compactor, short) == short
    assert (compactor.summary, len(compactor.history)) == (None, 1)


@tool
async def lookup(word: str) -> str:
    """Look a word up in the quarterly glossary of the board.

    Args:
        word: The word to look up, as the report spells it.
    """
    return word


PROMPT = "You answer questions about the quarterly report, briefly and with figures. " * 8


@pytest.mark.parametrize(
    ("system_prompt", "tools"),
    [(PROMPT, [lookup]), (PROMPT, []), ("", [lookup])],
    ids=["prompt-and-tools", "prompt", "tools"],
)
async def test_the_estimate_counts_the_agents_system_prompt_and_tools(
    system_prompt: str, tools: list
) -> None:
    """``tokens_before`` and ``tokens_after`` are whole requests, prompt and tools included."""
    writer = SummaryWriter()
    compactor = writer.compactor(context_window=2000, threshold=1.0, keep_recent_tokens=500)
    compactor.attach(Agent(system_prompt=system_prompt, tools=tools))

    def request(messages: list[AgentMessage]) -> int:
        context = Context(
            system_prompt=system_prompt or None,
            messages=default_convert_to_llm(messages),
            tools=[t.to_tool() for t in tools] or None,
        )
        return estimate_context_tokens(context).tokens

    result = await compact(compactor, list(TURNS))
    record = compactor.history[0]
    assert record.tokens_before == request(list(TURNS))
    assert record.tokens_after == request(result)
    assert record.tokens_before > estimate_context_tokens(list(TURNS)).tokens
