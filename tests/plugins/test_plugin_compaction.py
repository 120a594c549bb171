"""pi-sdk-compaction: a long scripted session stays under a small window, offline.

The main model is a ScriptedProvider playing a vendor: it counts the request's tokens its own
way (3.6 characters per token, harsher than the estimate's 4), reports that count as usage, and
answers an oversized request with Anthropic's overflow error. Each turn the model reads a file
(a tool call and its result) and answers. The summary model is scripted too, with a small
window of its own.
"""

from __future__ import annotations

import json
import logging
import math

import pi_sdk_compaction
import pytest
from _support.messages import reply as assistant_reply
from pi_sdk_compaction import (
    CompactionError,
    CompactionSummary,
    Compactor,
    choose_cut,
    serialize_conversation,
    summary_to_messages,
)

from pi_sdk import (
    Agent,
    AssistantMessage,
    Context,
    Model,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    default_convert_to_llm,
    get_message_types,
    is_context_overflow,
    load_session,
    save_session,
    tool,
)
from pi_sdk.testing import ScriptedCall, ScriptedProvider, ScriptedReply

WINDOW = 3000
SUMMARY_WINDOW = 2500
FILLER = "The quarterly report lists revenue, costs and the open questions for the board. "


def vendor_tokens(context: Context) -> int:
    """The scripted vendor's count: every character it reads, 3.6 per token, 5 per message."""
    chars = len(context.system_prompt or "")
    for t in context.tools or ():
        chars += len(t.name) + len(t.description) + len(json.dumps(t.parameters))
    for m in context.messages:
        if isinstance(m, UserMessage):
            chars += len(m.text)
        elif isinstance(m, AssistantMessage):
            chars += len(m.text) + sum(
                len(b.name) + len(json.dumps(b.arguments))
                for b in m.content
                if isinstance(b, ToolCall)
            )
        else:
            chars += sum(len(b.text) for b in m.content if isinstance(b, TextContent))
    return math.ceil(chars / 3.6) + 5 * len(context.messages)


class Vendor:
    """The main model's behaviour; ``inject_overflow_at`` fails that call with an overflow."""

    def __init__(self, inject_overflow_at: int | None = None) -> None:
        self.sizes: list[int] = []
        self.inject_overflow_at = inject_overflow_at
        self.provider = ScriptedProvider([self.answer] * 400)
        self.provider.model.context_window = WINDOW

    def answer(self, call: ScriptedCall) -> ScriptedReply:
        tokens = vendor_tokens(call.context)
        self.sizes.append(tokens)
        if tokens > WINDOW or len(self.sizes) == self.inject_overflow_at:
            return ScriptedReply.failure(f"prompt is too long: {tokens} tokens > {WINDOW} maximum")
        usage = Usage(input=tokens, output=25, total_tokens=tokens + 25)
        last = call.context.messages[-1]
        if isinstance(last, ToolResultMessage):
            return ScriptedReply.text(
                f"{last.tool_name} gave me what I needed. {FILLER}", usage=usage
            )
        turn = last.text.split(":")[0] if isinstance(last, UserMessage) else "again"
        return ScriptedReply.tool_call("read", {"path": f"/data/{turn}.txt"}, usage=usage)


class Summarizer:
    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.requests: list[str] = []
        self.provider = ScriptedProvider([self.answer] * 400)
        self.provider.model.context_window = SUMMARY_WINDOW

    def answer(self, call: ScriptedCall) -> ScriptedReply:
        self.sizes.append(vendor_tokens(call.context) + 400)  # + its max_tokens
        request = call.context.messages[-1].text
        self.requests.append(request)
        return ScriptedReply.text(f"## Goal\nRead the files. (summary {len(self.requests)})")


@tool
async def read(path: str) -> str:
    """Read a file.

    Args:
        path: The file's path.
    """
    return f"{path}: " + FILLER * 4


def _pairs_whole(messages: list) -> bool:
    """Every tool result follows its call in the same request, and every call has its result."""
    calls: set[str] = set()
    answered: set[str] = set()
    for m in messages:
        if isinstance(m, AssistantMessage) and m.stop_reason not in ("error", "aborted"):
            calls |= {b.id for b in m.content if isinstance(b, ToolCall)}
        elif isinstance(m, ToolResultMessage):
            if m.tool_call_id not in calls:
                return False
            answered.add(m.tool_call_id)
    return calls == answered


def _agent(vendor: Vendor, summarizer: Summarizer, **settings) -> tuple[Agent, Compactor]:
    agent = Agent(model=vendor.provider.model, system_prompt="You read files.", tools=[read])
    compactor = Compactor(
        summarizer.provider.model,
        stream_fn=summarizer.provider.stream_fn,
        summary_max_tokens=400,
        **{"threshold": 0.8, "keep_recent_tokens": 600, **settings},
    )
    compactor.attach(agent)
    return agent, compactor


async def test_a_60_turn_session_never_exceeds_the_window_and_survives_an_overflow(plugin_manager):
    plugin_manager.register(pi_sdk_compaction, name="compaction")
    vendor = Vendor(inject_overflow_at=75)
    summarizer = Summarizer()
    agent, compactor = _agent(vendor, summarizer)

    overflows = 0
    for turn in range(1, 61):
        await agent.prompt(f"turn{turn}: read the next file and tell me what it says. {FILLER}")
        last = agent.state.messages[-1]
        if is_context_overflow(last, agent.model.context_window):
            overflows += 1
            assert (
                last.error_message
                == f"prompt is too long: {vendor.sizes[-1]} tokens > 3000 maximum"
            )
            before = len(compactor.history)
            await agent.continue_()  # compacts (forced), then retries the call
            assert len(compactor.history) == before + 1 and compactor.history[-1].forced
        final = agent.state.messages[-1]
        assert final.stop_reason == "stop", final.error_message
        assert final.text.startswith("read gave me")

    assert overflows == 1
    assert len(vendor.sizes) == 121  # 2 calls a turn, plus the retry
    assert max(vendor.sizes) <= WINDOW, max(vendor.sizes)
    assert max(summarizer.sizes) <= SUMMARY_WINDOW, max(summarizer.sizes)
    assert len(compactor.history) >= 5
    for call in vendor.provider.calls:
        assert _pairs_whole(call.context.messages)
    # The latest turn is always sent verbatim: its prompt, the call and the result.
    last_call = vendor.provider.calls[-1].context.messages
    assert last_call[-3].text.startswith("turn60: read the next file")
    assert isinstance(last_call[-1], ToolResultMessage) and "/data/turn60.txt" in last_call[-1].text
    # A compacted request starts with the summary, read by the model as a user message.
    first = last_call[0]
    assert isinstance(first, UserMessage)
    assert first.text.startswith("Earlier turns of this conversation were replaced")
    assert f"(summary {len(summarizer.requests)})" in first.text
    # Later summaries update the earlier one; the transcript itself kept everything.
    assert "<previous-summary>" in summarizer.requests[-1]
    assert sum(1 for m in agent.state.messages if isinstance(m, UserMessage)) == 60


async def test_the_estimate_uses_the_reported_usage(plugin_manager):
    plugin_manager.register(pi_sdk_compaction, name="compaction")
    vendor, summarizer = Vendor(), Summarizer()
    agent, compactor = _agent(vendor, summarizer, keep_recent_tokens=50)
    await agent.prompt("turn1: read it")
    assert compactor.history == []
    # The vendor now claims the last reply's request was nearly the whole window.
    reply = agent.state.messages[-1]
    assert isinstance(reply, AssistantMessage)
    reply.usage = Usage(input=2600, output=20, total_tokens=2620)
    await agent.prompt("turn2: read it")
    assert len(compactor.history) == 1 and compactor.history[0].tokens_before > 2620


async def test_a_compaction_is_reported_to_the_pi_sdk_compaction_logger(plugin_manager, caplog):
    # The logger is looked up at the first report (discovery does not import logging).
    caplog.set_level(logging.INFO, logger="pi_sdk_compaction")
    plugin_manager.register(pi_sdk_compaction, name="compaction")
    vendor, summarizer = Vendor(), Summarizer()
    agent, compactor = _agent(vendor, summarizer, keep_recent_tokens=50)
    await agent.prompt("turn1: read it")
    reply = agent.state.messages[-1]
    assert isinstance(reply, AssistantMessage)
    reply.usage = Usage(input=2600, output=20, total_tokens=2620)
    await agent.prompt("turn2: read it")
    [record] = compactor.history
    reports = [r for r in caplog.records if r.name == "pi_sdk_compaction"]
    assert [(r.levelname, r.getMessage()) for r in reports] == [
        (
            "INFO",
            f"compacted {record.summarized} messages:"
            f" ~{record.tokens_before} -> ~{record.tokens_after} tokens",
        )
    ]


async def test_apply_writes_the_summary_into_the_transcript_and_a_session_keeps_it(
    plugin_manager, tmp_path
):
    plugin_manager.register(pi_sdk_compaction, name="compaction")
    assert get_message_types()["compactionSummary"] is CompactionSummary
    vendor, summarizer = Vendor(), Summarizer()
    agent, compactor = _agent(vendor, summarizer)
    assert compactor.apply() is False
    for turn in range(1, 15):
        await agent.prompt(f"turn{turn}: read the next file. {FILLER}")
    assert compactor.history
    kept = compactor.history[-1].kept
    assert compactor.apply() is True
    messages = list(agent.state.messages)
    assert isinstance(messages[0], CompactionSummary) and len(messages) <= kept + 5
    assert _pairs_whole(messages[1:])
    assert compactor.apply() is False  # already compacted

    path = tmp_path / "session.jsonl"
    save_session(path, messages)
    line = json.loads(path.read_text().splitlines()[1])
    assert line["role"] == "compactionSummary" and line["summarizedMessages"] > 0
    loaded = load_session(path).messages
    assert isinstance(loaded[0], CompactionSummary) and loaded[0].summary == messages[0].summary

    # A new agent and compactor continue from the loaded transcript, summary first.
    vendor2 = Vendor()
    agent2, compactor2 = _agent(vendor2, summarizer)
    agent2.messages = loaded
    await agent2.prompt("turn15: read the next file.")
    sent = vendor2.provider.calls[0].context.messages
    assert sent[0].text.startswith("Earlier turns") and loaded[0].summary in sent[0].text
    assert compactor2.summary is loaded[0]
    # The summary stands for itself once: then the loaded turns after it, then the prompt.
    assert [getattr(m, "text", None) for m in sent].count(sent[0].text) == 1
    assert sent[1:-1] == default_convert_to_llm(loaded[1:])
    assert sent[-1].text == "turn15: read the next file."


async def test_a_failed_summary_ends_the_run_with_a_clear_error(plugin_manager):
    plugin_manager.register(pi_sdk_compaction, name="compaction")
    vendor = Vendor()
    failing = ScriptedProvider([ScriptedReply.failure("529 Overloaded")])
    agent = Agent(model=vendor.provider.model, tools=[read])
    compactor = Compactor(failing.model, stream_fn=failing.stream_fn, keep_recent_tokens=50)
    compactor.attach(agent)
    agent.messages = [UserMessage(content=FILLER * 120), *[UserMessage(content=FILLER * 5)] * 3]
    await agent.prompt("go on")
    last = agent.state.messages[-1]
    assert last.stop_reason == "error"
    assert last.error_message == "compaction failed: the summary model said: 529 Overloaded"
    assert vendor.provider.calls == []  # nothing oversized was sent
    assert issubclass(CompactionError, Exception)


async def test_attach_keeps_an_existing_transform_context_and_attaching_twice_is_harmless():
    seen: list[int] = []

    def count(messages, signal):
        seen.append(len(messages))
        return messages

    vendor, summarizer = Vendor(), Summarizer()
    agent = Agent(model=vendor.provider.model, tools=[read], transform_context=count)
    compactor = Compactor(summarizer.provider.model, stream_fn=summarizer.provider.stream_fn)
    compactor.attach(agent)
    compactor.attach(agent)
    await agent.prompt("turn1: read it")
    assert seen == [1, 3]  # the app's own hook ran before each call, once
    assert agent.transform_context == compactor.transform_context


def test_settings_are_checked():
    model = ScriptedProvider().model
    for bad in ({"threshold": 0}, {"threshold": 1.5}, {"keep_recent_tokens": 0}):
        with pytest.raises(ValueError):
            Compactor(model, **bad)


def test_the_cut_keeps_tool_results_with_their_call():
    # user, assistant(call), result, result, user, assistant(call), result
    tokens = [10, 10, 50, 50, 10, 10, 50]
    cut_points = [True, True, False, False, True, True, False]
    assert choose_cut(tokens, cut_points, start=0, keep_tokens=50) == 5  # not 6 (a result)
    assert choose_cut(tokens, cut_points, start=0, keep_tokens=120) == 4  # not 3 (a result)
    assert choose_cut(tokens, cut_points, start=0, keep_tokens=130) == 4  # past both results
    assert choose_cut(tokens, cut_points, start=0, keep_tokens=180) == 1
    assert choose_cut(tokens, cut_points, start=0, keep_tokens=1000) is None
    assert choose_cut(tokens, cut_points, start=4, keep_tokens=60) == 5
    assert choose_cut(tokens, cut_points, start=5, keep_tokens=60) is None  # nothing before


def test_the_summary_message_and_the_serialized_conversation():
    [message] = summary_to_messages(CompactionSummary(summary="## Goal\nx", timestamp=7))
    assert isinstance(message, UserMessage) and message.timestamp == 7
    assert message.text.endswith("<summary>\n## Goal\nx\n</summary>")
    call = ToolCall(id="c1", name="read", arguments={"path": "/a"})
    model = Model(id="m", api="x", provider="x")
    turn = assistant_reply(model, TextContent(text="Reading."), call, stop_reason="stop")
    result = ToolResultMessage(
        tool_call_id="c1", tool_name="read", content=[TextContent(text="z" * 3000)]
    )
    text = serialize_conversation([UserMessage(content="hi"), turn, result])
    assert text.startswith('User: hi\n\nAssistant: Reading.\n\nAssistant called: read(path="/a")')
    assert "Tool result (read): " + "z" * 2000 + "\n[... 1000 more characters cut]" in text


def test_call_arguments_of_every_json_kind_are_written_as_json_with_their_own_characters():
    # The summary model reads the arguments as the main model wrote them: "café", not
    # "caf\\u00e9" (a path or a search term in another script must stay readable and short).
    arguments = {
        "path": "/données/café.txt",
        "query": "東京 🚀",
        "count": 3,
        "ratio": 0.5,
        "deep": True,
        "none": None,
        "tags": ["ä", 1],
        "where": {"city": "Zürich"},
    }
    call = ToolCall(id="c1", name="find", arguments=arguments)
    model = Model(id="m", api="x", provider="x")
    text = serialize_conversation([assistant_reply(model, call, stop_reason="toolUse")])
    assert text == (
        'Assistant called: find(path="/données/café.txt", query="東京 🚀", count=3, ratio=0.5,'
        ' deep=true, none=null, tags=["ä", 1], where={"city": "Zürich"})'
    )


def test_a_prompt_change_mid_conversation_is_part_of_the_serialized_conversation():
    from pi_sdk import SystemMessage

    update = SystemMessage(content="Answer in French.", sections={"old": None})
    text = serialize_conversation([UserMessage(content="hi"), update, SystemMessage()])
    assert text == ('User: hi\n\nSystem: Answer in French.\n\nRemoved system prompt section "old".')
