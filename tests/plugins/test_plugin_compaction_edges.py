"""The Compactor's edges: the budget's boundary, whose usage counts, chunk limits, the prompt.

A request estimated at exactly the budget is sent as it is; one token more compacts. After a
compaction the replies it kept verbatim carry usage of the longer request that came before, so
only replies that arrive after it may anchor the estimate. Chunks for the summary model are
capped at 60% of its window less the summary's tokens, 1,000 tokens at least, 4 characters a
token; a message that fills a chunk to exactly the limit stays in it. The serialized
conversation labels every part (thinking, text, calls, results and errors), and each summary
request asks for a first summary or an update, with the caller's focus last.
"""

from __future__ import annotations

import logging

import pytest
from _support.compaction import TURNS, WORDS, SummaryWriter
from _support.messages import reply as assistant_reply
from pi_sdk_compaction import CompactionSummary, Compactor, serialize_conversation
from pi_sdk_compaction.prompt import TOOL_RESULT_MAX_CHARS, summary_request

from pi_sdk import (
    AbortController,
    AgentMessage,
    AssistantMessage,
    ImageContent,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    default_convert_to_llm,
)
from pi_sdk.agent import estimate_context_tokens, estimate_tokens


async def compact(compactor: Compactor, messages: list[AgentMessage]) -> list[AgentMessage]:
    return await compactor.transform_context(messages, AbortController().signal)


@pytest.mark.parametrize(("extra", "compacted"), [(0, False), (-1, True)])
async def test_a_request_at_the_budget_is_sent_and_one_token_over_compacts(
    extra: int, compacted: bool
) -> None:
    estimate = estimate_context_tokens(list(TURNS)).tokens
    writer = SummaryWriter()
    compactor = writer.compactor(context_window=estimate + extra, threshold=1.0)
    result = await compact(compactor, list(TURNS))
    assert (len(compactor.history) == 1) is compacted
    assert (result == TURNS) is not compacted


@pytest.mark.parametrize("budget_tokens", [1500, 2000])
async def test_what_is_kept_is_worth_half_the_budget_when_that_is_less(budget_tokens: int):
    """keep_recent_tokens is capped at half of threshold x window: the newest turns worth it."""
    writer = SummaryWriter()
    compactor = writer.compactor(context_window=budget_tokens * 2, threshold=0.5)
    messages = list(TURNS)
    result = await compact(compactor, messages)
    keep = budget_tokens // 2
    sizes = [estimate_tokens(m) for m in messages]
    kept, total = 0, 0
    while total < keep:
        kept += 1
        total += sizes[-kept]
    assert result[1:] == messages[-kept:]
    record = compactor.history[0]
    assert (record.summarized, record.kept, record.forced) == (6 - kept, kept, False)
    assert record.summary.summarized_messages == 6 - kept
    assert record.tokens_before == estimate_context_tokens(messages).tokens


def _reply(text: str, total_tokens: int) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)],
        api="x",
        provider="x",
        model="m",
        usage=Usage(input=total_tokens, total_tokens=total_tokens),
    )


async def test_only_replies_after_a_compaction_anchor_the_estimate(
    caplog: pytest.LogCaptureFixture,
) -> None:
    writer = SummaryWriter()
    compactor = writer.compactor(context_window=10_000, threshold=0.5, keep_recent_tokens=500)
    stale = _reply("Noted. " + WORDS * 20, 9000)  # usage of the long request before compaction
    messages: list[AgentMessage] = [*TURNS[:4], stale, UserMessage(content="and now?")]
    first = await compact(compactor, messages)
    assert len(compactor.history) == 1 and first[-2:] == messages[-2:]
    assert compactor.history[0].tokens_before == 9000 + estimate_tokens(messages[-1])

    # The same transcript again: the kept reply's usage is stale, the view fits.
    with caplog.at_level(logging.WARNING, logger="pi_sdk_compaction"):
        assert await compact(compactor, messages) == first
    assert len(compactor.history) == 1
    assert caplog.records == []  # not even "nothing can be compacted"

    # A reply after the compaction reports usage: it counts, with what follows it.
    fresh = _reply("ok", 4900)
    question = UserMessage(content=WORDS * 5)
    messages += [fresh, question]
    await compact(compactor, messages)
    assert len(compactor.history) == 2
    assert compactor.history[1].tokens_before == 4900 + estimate_tokens(question)


def _overflow() -> AssistantMessage:
    return AssistantMessage(
        content=[],
        api="anthropic-messages",
        provider="anthropic",
        model="m",
        stop_reason="error",
        error_message="prompt is too long: 250000 tokens > 200000 maximum",
    )


async def test_an_overflow_forces_one_compaction_keeping_a_quarter_of_the_estimate() -> None:
    writer = SummaryWriter()
    compactor = writer.compactor(context_window=100_000, keep_recent_tokens=20_000)
    turns = [UserMessage(content=f"turn{n}: " + WORDS * 20) for n in range(10)]
    messages: list[AgentMessage] = [*turns, _overflow()]
    estimate = estimate_context_tokens(messages).tokens
    await compact(compactor, messages)
    [record] = compactor.history
    assert record.forced
    sizes = [estimate_tokens(m) for m in messages]

    def kept_for(tokens: int) -> int:
        kept, total = 0, 0
        while total < tokens:
            kept += 1
            total += sizes[-kept]
        return kept

    assert record.kept == kept_for(estimate // 4) < len(messages) - 1
    assert kept_for(estimate // 4) not in (kept_for(estimate // 3), kept_for(estimate // 5))
    # The same overflow again is not a new one: the compacted view fits and is sent.
    again = await compact(compactor, messages)
    assert len(compactor.history) == 1 and isinstance(again[0], CompactionSummary)


@pytest.mark.parametrize(
    "error",
    [
        "overloaded: try again later",  # an error reply that is not an overflow
        "",  # a reply that failed without a message
    ],
)
async def test_only_an_overflow_forces_a_compaction_not_any_failed_reply(error: str) -> None:
    """A failed reply last in the transcript (a retry continues from it) is not an overflow:
    a request within the budget is sent as it is."""
    writer = SummaryWriter()
    compactor = writer.compactor(context_window=100_000, keep_recent_tokens=20_000)
    failed = _overflow().model_copy(update={"error_message": error or None})
    messages: list[AgentMessage] = [UserMessage(content="hi"), failed]
    assert await compact(compactor, messages) == messages
    assert compactor.history == []


def test_the_summary_request_asks_for_a_first_summary_or_an_update_with_the_focus_last():
    first = summary_request("User: hi")
    assert first.startswith("<conversation>\nUser: hi\n</conversation>\n\nThe text in")
    assert "<previous-summary>" not in first and "Also focus on" not in first
    assert "Write a structured checkpoint summary" in first
    update = summary_request("User: hi", "## Goal\nx", "the API keys")
    assert "<previous-summary>\n## Goal\nx\n</previous-summary>\n\nThe text in" in update
    assert "Update that summary" in update and "Write a structured" not in update
    assert update.endswith("\n\nAlso focus on: the API keys")
    assert summary_request("c", "") == summary_request("c")


def test_every_part_of_the_conversation_is_labelled_and_long_results_are_clipped():
    model = Model(id="m", api="x", provider="x")
    turn = assistant_reply(
        model,
        ThinkingContent(thinking="plan"),
        ThinkingContent(thinking=""),
        TextContent(text="a"),
        TextContent(text="b"),
        ToolCall(id="c1", name="ls", arguments={}),
        ToolCall(id="c2", name="cat", arguments={"p": "x", "n": 2}),
        stop_reason="toolUse",
    )
    exact = "y" * TOOL_RESULT_MAX_CHARS
    messages = [
        UserMessage(
            content=[
                TextContent(text="look "),
                ImageContent(data="", mime_type="image/png"),
                TextContent(text="here"),
            ]
        ),
        turn,
        ToolResultMessage(tool_call_id="c1", tool_name="ls", content=[TextContent(text=exact)]),
        ToolResultMessage(
            tool_call_id="c2",
            tool_name="cat",
            content=[TextContent(text=exact + "z")],
            is_error=True,
        ),
        ToolResultMessage(tool_call_id="c3", tool_name="rm", content=[]),
        assistant_reply(model, TextContent(text="gone"), stop_reason="aborted"),
    ]
    assert serialize_conversation(messages).split("\n\n") == [
        "User: look here",
        "Assistant (thinking): plan",
        "Assistant: a\nb",
        'Assistant called: ls(); cat(p="x", n=2)',
        f"Tool result (ls): {exact}",
        f"Tool error (cat): {exact}\n[... 1 more characters cut]",
    ]


async def test_a_chunk_holds_messages_up_to_exactly_its_limit_and_cuts_a_longer_one():
    # Summary window 1,000: 600 - 400 is under the floor, so 1,000 tokens = 4,000 characters.
    writer = SummaryWriter(window=1000)
    compactor = writer.compactor(
        context_window=4000, threshold=0.5, keep_recent_tokens=1, summary_max_tokens=400
    )
    half = UserMessage(content="h" * (1999 - len("User: ")))  # serializes to 1,999 characters
    long = UserMessage(content="l" * 9000)
    messages: list[AgentMessage] = [long, half, half, UserMessage(content="last")]
    await compact(compactor, messages)
    cut, both = writer.conversations()
    assert cut == ("User: " + "l" * 9000)[:4000]
    assert both == f"User: {half.content}\n\nUser: {half.content}"  # 1,999 + 2 + 1,999


async def test_a_reply_right_after_a_loaded_summary_anchors_the_estimate(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A transcript that starts from a summary: the first reply after it reports usage."""
    writer = SummaryWriter()
    compactor = writer.compactor(context_window=10_000, threshold=0.5)
    loaded: list[AgentMessage] = [CompactionSummary(summary="## Goal\nRead.")]
    assert await compact(compactor, loaded) == loaded
    question = UserMessage(content="and now?")
    with caplog.at_level(logging.WARNING, logger="pi_sdk_compaction"):
        await compact(compactor, [*loaded, _reply("ok", 9000), question])
    estimate = 9000 + estimate_tokens(question)
    assert [r.getMessage() for r in caplog.records] == [
        f"context at ~{estimate} tokens but nothing can be compacted"
    ]


async def test_after_apply_the_kept_replies_stay_stale_and_new_ones_anchor(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from pi_sdk import Agent

    writer = SummaryWriter()
    compactor = writer.compactor(context_window=10_000, threshold=0.5, keep_recent_tokens=500)
    stale = _reply("Noted. " + WORDS * 20, 9000)
    original: list[AgentMessage] = [*TURNS[:4], stale, UserMessage(content="and now?")]
    agent = Agent(messages=original)
    await compact(compactor, list(agent.messages))
    assert compactor.apply(agent) is True
    applied = list(agent.messages)
    kept = compactor.history[0].kept
    assert isinstance(applied[0], CompactionSummary) and applied[1:] == original[-kept:]
    assert stale in applied
    with caplog.at_level(logging.WARNING, logger="pi_sdk_compaction"):
        assert await compact(compactor, applied) == applied
    assert caplog.records == [] and len(compactor.history) == 1
    question = UserMessage(content=WORDS * 5)
    await compact(compactor, [*applied, _reply("ok", 4900), question])
    assert len(compactor.history) == 2
    assert compactor.history[1].tokens_before == 4900 + estimate_tokens(question)


async def test_apply_keeps_a_reply_that_came_after_the_compaction_fresh() -> None:
    from pi_sdk import Agent

    writer = SummaryWriter()
    compactor = writer.compactor(context_window=10_000, threshold=0.5, keep_recent_tokens=500)
    stale = _reply("Noted. " + WORDS * 20, 9000)
    first: list[AgentMessage] = [*TURNS[:4], stale, UserMessage(content="and now?")]
    await compact(compactor, first)
    fresh, small = _reply("ok", 4900), UserMessage(content="go on")
    agent = Agent(messages=[*first, fresh, small])
    await compact(compactor, list(agent.messages))  # 4,900 + a little: under the budget
    assert len(compactor.history) == 1
    assert compactor.apply(agent) is True
    question = UserMessage(content=WORDS * 5)
    await compact(compactor, [*agent.messages, question])
    assert len(compactor.history) == 2  # the reply after the compaction still anchors
    assert compactor.history[1].tokens_before == (
        4900 + estimate_tokens(small) + estimate_tokens(question)
    )


def _hiding(messages: list[AgentMessage]) -> list[Message]:
    """A ``convert_to_llm`` that hides user messages saying ``(hidden)`` from the model."""
    shown = [m for m in messages if not (isinstance(m, UserMessage) and m.content == "(hidden)")]
    return default_convert_to_llm(shown)


async def test_what_is_kept_is_worth_at_least_a_token_when_half_the_budget_is_none() -> None:
    """A one-token budget keeps at least one token's worth: a newest message the model never
    sees is not all that is kept (half the budget rounds down to nothing)."""
    writer = SummaryWriter()
    compactor = writer.compactor(context_window=1, threshold=1.0, convert_to_llm=_hiding)
    big, small, hidden = (
        UserMessage(content=WORDS * 20),
        UserMessage(content="small"),
        UserMessage(content="(hidden)"),
    )
    result = await compact(compactor, [big, small, hidden])
    assert result[1:] == [small, hidden]
    [record] = compactor.history
    assert (record.summarized, record.kept, record.forced) == (1, 2, False)


async def test_a_forced_compaction_of_nothing_the_model_sees_compacts_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Forced by an overflow, the request estimated at no tokens: a quarter of it rounds down
    to nothing, and at least one token's worth is still to be kept, so nothing is cut."""
    writer = SummaryWriter()
    compactor = writer.compactor(context_window=100_000, convert_to_llm=lambda messages: [])
    hidden = UserMessage(content="(hidden)")
    messages: list[AgentMessage] = [hidden, hidden, _overflow()]
    with caplog.at_level(logging.WARNING, logger="pi_sdk_compaction"):
        assert await compact(compactor, messages) == messages
    assert (compactor.history, writer.requests) == ([], [])
    assert [r.getMessage() for r in caplog.records] == [
        "context at ~0 tokens but nothing can be compacted"
    ]
