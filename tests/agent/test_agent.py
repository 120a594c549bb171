"""The stateful Agent (pi-spec §8.6), offline on the scripted provider."""

from __future__ import annotations

import asyncio
import logging
import runpy
from pathlib import Path
from typing import Any

import pytest
from _support.agent import isolated_plugins, roles, text_of, user  # noqa: F401 - autouse fixture
from _support.strings import built

import pi_sdk
from pi_sdk import AfterToolCallResult, Agent, AgentBusyError, AgentToolResult, BeforeToolCallResult
from pi_sdk.testing import ScriptedProvider, ScriptedReply

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "agent_example.py"


@pi_sdk.tool
async def ping() -> str:
    """Answer pong."""
    return "pong"


def two_pings() -> ScriptedReply:
    return ScriptedReply(
        content=[
            pi_sdk.ToolCall(id="tool-1", name="ping", arguments={}),
            pi_sdk.ToolCall(id="tool-2", name="ping", arguments={}),
        ]
    )


def agent_for(*replies, **options) -> tuple[Agent, ScriptedProvider]:
    provider = ScriptedProvider(replies)
    return Agent(model=provider.model, **options), provider


async def until(predicate, what: str) -> None:
    for _ in range(1000):
        if predicate():
            return
        await asyncio.sleep(0)
    raise AssertionError(f"never happened: {what}")


# --- state ---------------------------------------------------------------------------------------


async def test_plain_prompt_fills_the_transcript_and_returns_new_messages():
    agent, provider = agent_for("Hello!", system_prompt="Be brief.")
    new = await agent.prompt("hi")
    assert roles(new) == ["user", "assistant"]
    assert list(agent.state.messages) == new
    assert text_of(agent.state.messages[-1]) == "Hello!"
    assert provider.calls[0].context.system_prompt == "Be brief."
    assert not agent.state.is_streaming and agent.state.stream_message is None
    assert agent.state.error is None and not agent.is_running


async def test_lists_are_copied_on_assignment_and_snapshots_stay_put():
    tools = [ping]
    history = [user("old")]
    agent, _ = agent_for("answer", tools=tools, messages=history)
    tools.append(ping)
    history.append(user("leak"))
    assert len(agent.tools) == 1 and len(agent.messages) == 1
    snapshot = agent.state.messages
    await agent.prompt("new")
    assert len(snapshot) == 1  # a list read earlier is never changed
    assert len(agent.state.messages) == 3
    agent.state.messages = history
    history.clear()
    assert len(agent.messages) == 2


def test_runtime_fields_are_read_only():
    agent = Agent()
    for name in ("is_streaming", "stream_message", "pending_tool_calls", "error"):
        with pytest.raises(AttributeError):
            setattr(agent.state, name, None)
    agent.system_prompt = "x"
    agent.thinking_level = "high"
    assert (agent.state.system_prompt, agent.state.thinking_level) == ("x", "high")


async def test_prompt_accepts_text_with_images_a_message_or_a_list():
    agent, provider = agent_for("a", "b", "c")
    image = pi_sdk.ImageContent(data="aGk=", mime_type="image/png")
    await agent.prompt("look", images=[image])
    sent = provider.calls[0].context.messages[0]
    assert [b.type for b in sent.content] == ["text", "image"]
    await agent.prompt(user("single"))
    await agent.prompt([user("one"), user("two")])
    assert [text_of(m) for m in provider.calls[2].context.messages[-2:]] == ["one", "two"]


async def test_thinking_level_and_stream_options_reach_the_provider():
    options = pi_sdk.StreamOptions(session_id="s-1", temperature=0.1, max_tokens=99)
    agent, provider = agent_for("a", "b", thinking_level="medium", stream_options=options)
    await agent.prompt("x")
    agent.thinking_level = "off"
    await agent.prompt("y")
    first, second = (c.options for c in provider.calls)
    assert (first.reasoning, first.session_id, first.temperature, first.max_tokens) == (
        "medium", "s-1", 0.1, 99,
    )  # fmt: skip
    assert second.reasoning is None
    assert options.signal is None  # the template is not modified


async def test_no_model_is_a_clear_error():
    with pytest.raises(pi_sdk.ConfigurationError, match="No model configured"):
        await Agent().prompt("x")


# --- listeners -----------------------------------------------------------------------------------


async def test_listeners_run_in_order_awaited_with_state_already_reduced():
    agent, _ = agent_for(ScriptedReply.tool_call("ping"), "done", "again", tools=[ping])
    log: list[str] = []

    async def first(event, signal):
        assert isinstance(signal, pi_sdk.AbortSignal)
        if event.type == "message_end":
            # Reduced before listeners run: the message is already in the transcript.
            assert agent.state.messages[-1] is event.message
        if event.type == "tool_execution_start":
            assert event.tool_call_id in agent.state.pending_tool_calls
        await asyncio.sleep(0)  # awaited: the second listener waits for this one
        log.append(f"first:{event.type}")

    def second(event):  # the one-argument form works too
        log.append(f"second:{event.type}")

    agent.subscribe(first)
    unsubscribe = agent.subscribe(second)
    await agent.prompt("x")
    assert log[:4] == [
        "first:agent_start",
        "second:agent_start",
        "first:turn_start",
        "second:turn_start",
    ]
    pairs = list(zip(log[::2], log[1::2], strict=True))
    assert all(a == "first:" + b.removeprefix("second:") for a, b in pairs)
    assert log[-1] == "second:agent_end"
    unsubscribe()
    before = len(log)
    await agent.prompt("y")
    assert log[before:] and all(entry.startswith("first:") for entry in log[before:])


async def test_a_raising_listener_is_logged_and_the_run_completes(caplog):
    agent, _ = agent_for(ScriptedReply.tool_call("ping"), "done", tools=[ping])
    seen: list[str] = []

    def broken(event, signal):
        raise RuntimeError("ui crashed")

    agent.subscribe(broken)
    agent.subscribe(lambda event, signal: seen.append(event.type))
    with caplog.at_level(logging.ERROR, logger="pi_sdk._agent.agent"):
        await agent.prompt("x")
    assert roles(agent.state.messages) == ["user", "assistant", "toolResult", "assistant"]
    assert seen[-1] == "agent_end"
    assert "ui crashed" in caplog.text and "the run continues" in caplog.text


async def test_a_listener_failing_on_every_event_logs_one_traceback_per_run(caplog):
    agent, _ = agent_for(
        ScriptedReply.tool_call("ping"), "a long answer, many deltas", "again", tools=[ping]
    )
    events: list[str] = []

    def broken(event, signal):
        raise RuntimeError(f"ui crashed on {event.type}")

    failed: list[str] = []

    def fails_once(event):
        if event.type == "turn_start" and not failed:
            failed.append(event.type)
            raise KeyError("only once")

    agent.subscribe(broken)
    agent.subscribe(fails_once)
    agent.subscribe(lambda event: events.append(event.type))

    def records(level: int, name: str) -> list[logging.LogRecord]:
        return [r for r in caplog.records if r.levelno == level and name in r.getMessage()]

    with caplog.at_level(logging.DEBUG, logger="pi_sdk._agent.agent"):
        await agent.prompt("x")
    later = len(events) - 1
    assert later > 10  # deltas included: the case that flooded the log

    traced = records(logging.ERROR, "broken")
    assert len(traced) == 1 and traced[0].exc_info is not None
    assert "raised on agent_start" in traced[0].getMessage()
    assert "ui crashed on agent_start" in caplog.text  # the traceback's last line
    one_liners = records(logging.DEBUG, "broken")
    assert len(one_liners) == later and all(r.exc_info is None for r in one_liners)
    assert "raised again on message_update: ui crashed on message_update" in caplog.text
    (summary,) = records(logging.WARNING, "broken")
    assert f"raised {later} more times in this run" in summary.getMessage()
    counts = {t: events.count(t) - (t == "agent_start") for t in set(events)}
    for event_type, count in counts.items():
        if count:
            assert f"{event_type} x{count}" in summary.getMessage()
    assert summary.getMessage().endswith("last error: RuntimeError: ui crashed on agent_end")
    # The summary comes after the agent_end listeners ran.
    assert caplog.records[-1] is summary

    # A listener that failed once: its traceback, and no summary line.
    assert len(records(logging.ERROR, "fails_once")) == 1
    assert not records(logging.WARNING, "fails_once")

    # Per run: the next run logs the first failure with its traceback again.
    caplog.clear()
    await agent.prompt("y")
    assert len(records(logging.ERROR, "broken")) == 1
    assert len(records(logging.WARNING, "broken")) == 1


async def test_the_state_says_streaming_from_the_first_event_until_agent_end():
    agent, _ = agent_for(two_pings(), "done")
    seen: list[tuple[str, bool]] = []
    agent.subscribe(lambda event: seen.append((event.type, agent.state.is_streaming)))
    assert not agent.state.is_streaming
    await agent.prompt("x")
    during = [streaming for kind, streaming in seen if kind != "agent_end"]
    assert during == [True] * (len(seen) - 1) and len(seen) > 10  # every event of two turns
    assert seen[0] == ("agent_start", True) and seen[-1] == ("agent_end", False)
    assert not agent.state.is_streaming


async def test_wait_for_idle_resolves_after_agent_end_listeners_finished():
    agent, _ = agent_for("done")
    release = asyncio.Event()
    order: list[str] = []

    async def slow_end(event, signal):
        if event.type == "agent_end":
            assert not agent.state.is_streaming  # pi-mono: cleared on agent_end
            await release.wait()
            order.append("listener finished")

    agent.subscribe(slow_end)
    run = asyncio.create_task(agent.prompt("x"))
    await until(lambda: not agent.state.is_streaming and agent.is_running, "agent_end reached")

    async def waiter():
        await agent.wait_for_idle()
        order.append("idle")

    waiting = asyncio.create_task(waiter())
    for _ in range(10):
        await asyncio.sleep(0)
    assert order == [] and agent.is_running
    release.set()
    await waiting
    await run
    assert order == ["listener finished", "idle"]
    await agent.wait_for_idle()  # idle: returns at once


# --- busy, queues, continue ----------------------------------------------------------------------


async def test_prompt_and_continue_while_running_raise_with_guidance():
    agent, _ = agent_for(ScriptedReply.until_aborted())
    run = asyncio.create_task(agent.prompt("x"))
    await until(lambda: agent.state.stream_message is not None, "streaming")
    with pytest.raises(AgentBusyError, match=r"Use steer\(\) or follow_up\(\).*wait_for_idle"):
        await agent.prompt("again")
    with pytest.raises(AgentBusyError, match=r"wait_for_idle\(\)"):
        await agent.continue_()
    with pytest.raises(AgentBusyError, match=r"abort\(\)"):
        agent.reset()
    assert isinstance(AgentBusyError("x"), RuntimeError)
    agent.abort()
    await run
    assert roles(agent.state.messages) == ["user", "assistant"]


async def test_steering_during_tools_skips_the_rest_and_is_sent_next():
    agent, provider = agent_for(
        two_pings(),
        "ok, changing course",
        tools=[ping],
        tool_execution="sequential",
        tool_steering="skip",
    )

    def steer_after_first(event, signal):
        if event.type == "tool_execution_end" and event.tool_call_id == "tool-1":
            agent.steer("actually, stop")

    agent.subscribe(steer_after_first)
    await agent.prompt("ping twice")
    messages = agent.state.messages
    assert roles(messages) == ["user", "assistant", "toolResult", "toolResult", "user", "assistant"]
    assert not messages[2].is_error
    assert (
        messages[3].is_error
        and messages[3].content[0].text == "Skipped due to queued user message."
    )
    assert text_of(provider.calls[1].context.messages[-1]) == "actually, stop"
    assert not agent.has_queued_messages()


async def test_steering_in_parallel_mode_once_the_tools_run_skips_nothing():
    # docs/agent.md: parallel mode polls steering only while preparing the calls; a steer()
    # made while they execute lets every call finish and goes in after their results.
    release = asyncio.Event()
    ran: list[str] = []

    async def slow(call_id, args, signal, on_update):
        ran.append(call_id)
        await release.wait()
        return AgentToolResult.text(f"done {call_id}")

    agent, provider = agent_for(
        two_pings(), "ok", tools=[pi_sdk.AgentTool(name="ping", execute=slow)]
    )
    run = asyncio.create_task(agent.prompt("ping twice"))
    await until(lambda: len(ran) == 2, "both tools running")
    agent.steer("actually, stop")
    release.set()
    await run
    messages = agent.state.messages
    assert roles(messages) == ["user", "assistant", "toolResult", "toolResult", "user", "assistant"]
    assert [text_of(m) for m in messages[2:4]] == ["done tool-1", "done tool-2"]
    assert not messages[2].is_error and not messages[3].is_error
    assert text_of(provider.calls[1].context.messages[-1]) == "actually, stop"


async def test_a_model_assigned_during_a_run_is_used_from_the_next_run():
    # docs/agent.md: the run keeps the model it started with, tool loop included.
    second = ScriptedProvider(["from the second model"])

    async def switch(call_id, args, signal, on_update):
        agent.model = second.model
        return AgentToolResult.text("switched")

    agent, first = agent_for(
        ScriptedReply.tool_call("switch"),
        "from the first model",
        tools=[pi_sdk.AgentTool(name="switch", execute=switch)],
    )
    await agent.prompt("go")
    assert len(first.calls) == 2 and second.calls == []
    assert text_of(agent.messages[-1]) == "from the first model"
    assert agent.model is second.model
    await agent.prompt("again")
    assert len(first.calls) == 2 and len(second.calls) == 1
    assert text_of(agent.messages[-1]) == "from the second model"


@pytest.mark.parametrize(("mode", "calls"), [("one-at-a-time", 3), ("all", 2)])
async def test_follow_up_queue_modes(mode, calls):
    agent, provider = agent_for("a", "b", "c", follow_up_mode=mode)
    agent.follow_up("second")
    agent.follow_up(user("third"))
    await agent.prompt("first")
    assert len(provider.calls) == calls
    assert [text_of(m) for m in agent.state.messages if m.role == "user"] == [
        "first",
        "second",
        "third",
    ]


async def test_steering_mode_all_takes_every_queued_message_at_once():
    agent, provider = agent_for("a", steering_mode=built("all"))
    agent.steer("s1")
    agent.steer("s2")
    await agent.prompt("p")
    assert [text_of(m) for m in provider.calls[0].context.messages] == ["p", "s1", "s2"]


async def test_continue_from_an_assistant_tail_with_queued_messages():
    agent, provider = agent_for("first", "after s1", "after s2", "after follow-up", "after later")
    await agent.prompt("hello")
    agent.steer("s1")
    agent.steer("s2")
    agent.follow_up("follow-up")
    await agent.continue_()
    # One steering message per poll, and the initial poll is skipped (s1 was just dequeued).
    assert [text_of(m) for m in provider.calls[1].context.messages] == ["hello", "first", "s1"]
    assert text_of(provider.calls[2].context.messages[-1]) == "s2"
    # Follow-ups only when the agent would stop.
    assert text_of(provider.calls[3].context.messages[-1]) == "follow-up"
    assert [text_of(m) for m in agent.state.messages] == [
        "hello", "first", "s1", "after s1", "s2", "after s2", "follow-up", "after follow-up",
    ]  # fmt: skip
    assert not agent.has_queued_messages()
    agent.follow_up("later")
    await agent.continue_()
    assert text_of(provider.calls[4].context.messages[-1]) == "later"
    assert text_of(agent.state.messages[-1]) == "after later"


async def test_continue_validation_errors():
    agent, _ = agent_for("x")
    with pytest.raises(pi_sdk.ConfigurationError, match="No messages to continue from"):
        await agent.continue_()
    await agent.prompt("q")
    with pytest.raises(
        pi_sdk.ConfigurationError, match="Cannot continue from message role: assistant"
    ):
        await agent.continue_()
    agent.messages = [*agent.messages, user("new question")]
    agent.model = None
    with pytest.raises(pi_sdk.ConfigurationError, match="No model"):
        await agent.continue_()


async def test_continue_from_a_user_or_tool_result_tail():
    agent, provider = agent_for("answer", messages=[user("pending question")])
    new = await agent.continue_()
    assert roles(new) == ["assistant"]
    assert text_of(provider.calls[0].context.messages[0]) == "pending question"


# --- failures and recovery -----------------------------------------------------------------------


async def test_a_failed_call_lands_in_the_transcript_and_continue_retries_it():
    agent, provider = agent_for(ScriptedReply.failure("overloaded"), "second try worked")
    await agent.prompt("question")
    failed = agent.state.messages[-1]
    assert failed.stop_reason == "error" and failed.error_message == "overloaded"
    assert agent.state.error == "overloaded"
    await agent.continue_()
    assert roles(agent.state.messages) == ["user", "assistant", "assistant"]  # nothing lost
    assert text_of(agent.state.messages[-1]) == "second try worked"
    assert agent.state.error is None
    assert roles(provider.calls[1].messages) == ["user"]  # the failed turn is not sent again


async def test_a_raising_callback_becomes_an_error_message_and_continue_recovers():
    broken = True

    def convert(messages):
        if broken:
            raise ValueError("converter bug")
        return pi_sdk.default_convert_to_llm(messages)

    agent, provider = agent_for("recovered", convert_to_llm=convert)
    await agent.prompt("x")
    assert agent.state.messages[-1].error_message == "converter bug"
    assert provider.calls == []
    broken = False
    await agent.continue_()
    assert text_of(agent.state.messages[-1]) == "recovered"


async def test_a_failure_outside_the_loop_still_ends_in_an_error_message(monkeypatch):
    import pi_sdk._agent.loop as loop_module  # the Agent imports the loop when a run starts

    async def explode(*args, **kwargs):
        raise RuntimeError("internal")

    monkeypatch.setattr(loop_module, "run_agent_loop", explode)
    agent, _ = agent_for("x")
    events: list[str] = []
    agent.subscribe(lambda e, s: events.append(e.type))
    new = await agent.prompt("hi")
    assert events == ["agent_end"]  # pi-mono: only agent_end for this path
    assert new[0].stop_reason == "error" and new[0].error_message == "internal"
    assert agent.state.messages[-1] is new[0] and agent.state.error == "internal"
    assert not agent.is_running


async def test_abort_mid_stream_keeps_the_partial_and_continue_works():
    partial = [pi_sdk.TextContent(text="Once upon a time")]
    agent, provider = agent_for(ScriptedReply.until_aborted(partial), "The end.")

    def abort_when_text_arrived(event, signal):
        if event.type == "message_update" and event.assistant_message_event.type == "text_end":
            agent.abort()

    agent.subscribe(abort_when_text_arrived)
    await agent.prompt("tell a story")
    last = agent.state.messages[-1]
    assert last.stop_reason == "aborted" and text_of(last) == "Once upon a time"
    assert not agent.is_running and not agent.state.is_streaming
    assert agent.state.pending_tool_calls == frozenset()
    await agent.continue_()
    assert text_of(agent.state.messages[-1]) == "The end."


async def test_abort_mid_tool_reaches_the_tool_and_continue_works():
    started = asyncio.Event()

    @pi_sdk.tool
    async def long_job(signal: pi_sdk.AbortSignal) -> str:
        """Run for a long time."""
        started.set()
        await signal.wait()
        return "stopped early"

    agent, provider = agent_for(ScriptedReply.tool_call("long_job"), "resumed", tools=[long_job])
    run = asyncio.create_task(agent.prompt("go"))
    await asyncio.wait_for(started.wait(), timeout=5)
    assert agent.state.pending_tool_calls == {"call_1"}
    agent.abort()
    await run
    assert roles(agent.state.messages) == ["user", "assistant", "toolResult", "assistant"]
    assert agent.state.messages[2].content[0].text == "stopped early"
    assert agent.state.messages[3].stop_reason == "aborted"
    assert len(provider.calls) == 1 and not agent.is_running
    await agent.continue_()
    assert text_of(agent.state.messages[-1]) == "resumed"
    assert roles(provider.calls[1].messages) == ["user", "assistant", "toolResult"]


async def test_cancelling_the_prompt_task_aborts_the_run_cleanly():
    agent, _ = agent_for(ScriptedReply.until_aborted([pi_sdk.TextContent(text="partial")]))
    run = asyncio.create_task(agent.prompt("x"))
    await until(lambda: agent.state.stream_message is not None, "streaming")
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    last = agent.state.messages[-1]
    assert last.stop_reason == "aborted" and text_of(last) == "partial"
    assert not agent.is_running


def test_reset_clears_transcript_queues_and_error_but_keeps_model_and_tools():
    agent, _ = agent_for(ScriptedReply.failure("x"), tools=[ping], system_prompt="sp")
    agent.prompt_sync("q")
    agent.steer("s")
    agent.follow_up("f")
    assert agent.state.error == "x"
    agent.reset()
    assert agent.messages == [] and agent.state.error is None and not agent.has_queued_messages()
    state = agent.state
    assert (state.is_streaming, state.stream_message, state.pending_tool_calls) == (
        False,
        None,
        frozenset(),
    )
    assert agent.model is not None and agent.tools == [ping] and agent.system_prompt == "sp"


# --- sync convenience, hooks, docs ------------------------------------------------------------


def test_prompt_sync_runs_from_synchronous_code():
    agent, _ = agent_for("sync answer", "again")
    new = agent.prompt_sync("hi")
    assert text_of(new[-1]) == "sync answer"
    agent.messages = [*agent.messages, user("more")]
    assert text_of(agent.continue_sync()[-1]) == "again"


async def test_prompt_sync_refuses_inside_a_running_loop():
    agent, provider = agent_for("x")
    with pytest.raises(RuntimeError, match=r"await agent.prompt\(\)"):
        agent.prompt_sync("hi")
    with pytest.raises(RuntimeError, match=r"await agent.continue_\(\)"):
        agent.continue_sync()
    assert provider.calls == [] and agent.messages == []


async def test_agent_before_and_after_tool_call_callables():
    def before(ctx, signal):
        if ctx.tool_call.id == "tool-2":
            return BeforeToolCallResult(block=True, reason="only one ping allowed")
        return None

    async def after(ctx, signal):
        return AfterToolCallResult(details={"checked": True}, terminate=True)

    agent, provider = agent_for(
        two_pings(), "never", tools=[ping], before_tool_call=before, after_tool_call=after
    )
    await agent.prompt("x")
    first, second = agent.state.messages[2:4]
    assert first.content[0].text == "pong" and first.details == {"checked": True}
    assert second.is_error and second.content[0].text == "only one ping allowed"
    assert len(provider.calls) == 2  # the blocked call did not ask to terminate: the loop goes on


async def test_every_tool_asking_to_terminate_stops_the_agent():
    @pi_sdk.tool
    async def finish(summary: str) -> AgentToolResult:
        """Finish the task."""
        return AgentToolResult.text(summary, terminate=True)

    agent, provider = agent_for(
        ScriptedReply.tool_call("finish", {"summary": "all done"}), tools=[finish]
    )
    await agent.prompt("work")
    assert roles(agent.state.messages) == ["user", "assistant", "toolResult"]
    assert len(provider.calls) == 1 and not agent.is_running


def test_the_documented_example_runs_and_prints_the_event_stream(capsys):
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out
    assert "agent_start" in out and "agent_end" in out
    assert "tool_execution_start get_weather {'city': 'Paris'}" in out
    assert "tool_execution_end get_weather -> Paris: 21°C, sunny" in out
    assert "It is 21°C and sunny in Paris." in out


async def test_a_task_started_from_an_agent_end_listener_runs_after_the_run():
    agent, provider = agent_for("first", "second")
    tasks: list[asyncio.Task] = []

    def chain(event, signal):
        if event.type == "agent_end" and len(provider.calls) == 1:
            tasks.append(asyncio.create_task(agent.prompt("next")))

    agent.subscribe(chain)
    await agent.prompt("start")
    await tasks[0]
    assert [text_of(m) for m in agent.state.messages] == ["start", "first", "next", "second"]


class _NoSignature:
    """A callable whose signature cannot be read: called with the signal too."""

    __signature__ = "unreadable"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, *args: Any) -> None:
        self.calls.append(len(args))


def _event_only(event: Any) -> None: ...


def _event_and_signal(event: Any, signal: Any) -> None: ...


def _star(*args: Any) -> None: ...


def _event_and_keyword(event: Any, *, signal: Any = None) -> None: ...


def _event_and_default(event: Any, signal: Any = None) -> None: ...


@pytest.mark.parametrize(
    ("listener", "with_signal"),
    [
        (_event_only, False),
        (_event_and_signal, True),
        (_star, True),
        (_event_and_keyword, False),  # a keyword-only parameter is never passed
        (_event_and_default, True),
        (_NoSignature(), True),  # inspect.signature raises TypeError
        (max, True),  # a builtin without a signature: ValueError
    ],
)
def test_a_listener_gets_the_signal_when_it_takes_a_second_positional_argument(
    listener: Any, with_signal: bool
) -> None:
    from pi_sdk._agent.listeners import takes_signal

    assert takes_signal(listener) is with_signal


async def test_a_listener_without_a_readable_signature_is_called_with_the_signal():
    listener = _NoSignature()
    provider = ScriptedProvider(["hi"])
    agent = Agent(model=provider.model, stream_fn=provider.stream_fn)
    agent.subscribe(listener)
    await agent.prompt("x")
    assert listener.calls and set(listener.calls) == {2}


def test_an_agent_s_documented_defaults() -> None:
    agent = Agent()
    assert (agent.model, agent.system_prompt, agent.thinking_level) == (None, "", "off")
    assert (agent.steering_mode, agent.follow_up_mode) == ("one-at-a-time", "one-at-a-time")
    assert (agent.tool_execution, agent.tool_steering) == ("parallel", "wait")
    assert agent.tool_abort_grace_ms == 2000 and agent.output_repairs == 0
    assert agent.convert_to_llm is pi_sdk.default_convert_to_llm
    assert agent.stream_options == pi_sdk.StreamOptions() and agent.fallback is None


@pytest.mark.parametrize(("level", "reasoning"), [("off", None), ("high", "high")])
async def test_every_loop_setting_and_stream_option_reaches_the_run_config(
    level: Any, reasoning: Any
) -> None:
    from pi_sdk._agent.agent import _LOOP_SETTINGS  # pyright: ignore[reportPrivateUsage]
    from pi_sdk._agent.state import ActiveRun

    provider = ScriptedProvider([])
    agent = Agent(
        model=provider.model,
        thinking_level=level,
        stream_options=pi_sdk.StreamOptions(temperature=0.25, max_tokens=77, session_id="s"),
    )
    checked = {"tool_execution": "sequential", "tool_steering": "skip"}  # names, not defaults
    sentinels = {name: checked.get(name, object()) for name in _LOOP_SETTINGS}
    for name, value in sentinels.items():
        setattr(agent, name, value)
    run = ActiveRun(pi_sdk.AbortController(), asyncio.get_running_loop().create_future())
    cfg = agent._config(run, provider.model)  # pyright: ignore[reportPrivateUsage]
    assert {name: getattr(cfg, name) for name in _LOOP_SETTINGS} == sentinels
    assert cfg.model is provider.model and cfg.reasoning == reasoning
    assert cfg.signal is run.controller.signal
    assert (cfg.temperature, cfg.max_tokens, cfg.session_id) == (0.25, 77, "s")


@pytest.mark.parametrize(
    ("failures", "said"),
    [
        (["boom"], None),  # the first failure is traced: nothing to count after the run
        (["boom", "again"], "raised 1 more time in this run (turn_end x1)"),
        (["boom", "again", "and again"], "raised 2 more times in this run (turn_end x2)"),
    ],
)
def test_the_count_after_a_run_says_time_or_times(
    caplog: pytest.LogCaptureFixture, failures: list[str], said: str | None
) -> None:
    from pi_sdk._agent.listeners import log_listener_failure, log_repeated_listener_failures

    def listener(event: Any) -> None: ...

    by_listener: dict[int, Any] = {}
    with caplog.at_level(logging.DEBUG, logger="pi_sdk._agent.agent"):
        for text in failures:
            log_listener_failure(by_listener, listener, "turn_end", ValueError(text))
        caplog.clear()
        log_repeated_listener_failures(by_listener)
    assert by_listener == {}  # the next run counts afresh
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    if said is None:
        assert warnings == []
    else:
        [warning] = warnings
        assert said in warning and warning.endswith(f"last error: ValueError: {failures[-1]}")
