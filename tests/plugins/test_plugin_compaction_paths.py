"""Each way the Compactor reaches its window, its summary model and its converter, and each refusal.

``transform_context`` called directly, one path at a time: the window from ``context_window``
or from the attached agent's model (and the error when there is neither); the summary model
called through ``stream_fn`` (sync or async) or through :func:`pi_sdk.stream` when there is
none; a sync or async ``convert_to_llm``; a summary model that writes only whitespace; a
transcript too short to cut (logged, sent as it is); ``apply`` during a run; and the summary
message type registered by hand when the plugin's entry point was not loaded.
"""

from __future__ import annotations

import logging
from typing import Any

import pi_sdk_compaction
import pytest
from _support.compaction import TURNS, WORDS
from pi_sdk_compaction import CompactionError, CompactionSummary, Compactor

from pi_sdk import (
    AbortController,
    Agent,
    AgentMessage,
    ConfigurationError,
    Message,
    UserMessage,
    default_convert_to_llm,
    get_message_types,
    tool,
)
from pi_sdk.testing import ScriptedProvider, ScriptedReply


def transcript() -> list[AgentMessage]:
    return list(TURNS)


async def compact(compactor: Compactor, messages: list[AgentMessage]) -> list[AgentMessage]:
    return await compactor.transform_context(messages, AbortController().signal)


def summary_writer(text: str = "## Goal\nRead the reports.") -> ScriptedProvider:
    return ScriptedProvider([text] * 5)


def _summarized(result: list[AgentMessage], compactor: Compactor) -> None:
    """The result is the summary, then the newest turns kept verbatim."""
    assert isinstance(result[0], CompactionSummary) and result[0] is compactor.summary
    assert result[0].summary == "## Goal\nRead the reports."
    kept = result[1:]
    assert kept and all(a is b for a, b in zip(kept, TURNS[len(TURNS) - len(kept) :], strict=True))
    assert len(compactor.history) == 1


async def test_without_a_window_or_an_agent_it_says_what_it_needs() -> None:
    writer = summary_writer()
    compactor = Compactor(writer.model, stream_fn=writer.stream_fn)
    with pytest.raises(ConfigurationError) as caught:
        await compact(compactor, transcript())
    assert str(caught.value) == (
        "Compactor needs context_window=... or an attached Agent with a model"
    )


@pytest.mark.parametrize(("window", "compacted"), [(1500, True), (100_000, False)])
async def test_the_window_is_the_attached_agents_models(window: int, compacted: bool) -> None:
    writer = summary_writer()
    main = ScriptedProvider()
    main.model.context_window = window
    compactor = Compactor(writer.model, stream_fn=writer.stream_fn, keep_recent_tokens=500)
    compactor.attach(Agent(model=main.model))
    result = await compact(compactor, transcript())
    if compacted:
        _summarized(result, compactor)
    else:
        assert (result, compactor.history) == (transcript(), [])


@pytest.mark.parametrize("kind", ["sync", "async", "none"])
async def test_the_summary_model_is_called_through_stream_fn_or_pi_stream(kind: str) -> None:
    writer = summary_writer()

    async def async_stream_fn(model: Any, context: Any, options: Any) -> Any:
        return writer.stream_fn(model, context, options)

    stream_fn = {"sync": writer.stream_fn, "async": async_stream_fn, "none": None}[kind]
    compactor = Compactor(
        writer.model, stream_fn=stream_fn, context_window=1500, keep_recent_tokens=500
    )
    _summarized(await compact(compactor, transcript()), compactor)
    (call,) = writer.calls
    assert call.options.max_tokens == 4096
    assert call.messages[0].text.count("turn0: ") == 1


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_a_sync_or_async_converter_gives_the_same_request(kind: str) -> None:
    seen: list[int] = []

    def sync_convert(messages: list[AgentMessage]) -> list[Message]:
        seen.append(len(messages))
        return default_convert_to_llm(messages)

    async def async_convert(messages: list[AgentMessage]) -> list[Message]:
        return sync_convert(messages)

    writer = summary_writer()
    compactor = Compactor(
        writer.model,
        stream_fn=writer.stream_fn,
        context_window=1500,
        keep_recent_tokens=500,
        convert_to_llm=sync_convert if kind == "sync" else async_convert,
    )
    _summarized(await compact(compactor, transcript()), compactor)
    assert seen and set(seen) == {1}  # one message at a time
    plain = summary_writer()
    reference = Compactor(
        plain.model, stream_fn=plain.stream_fn, context_window=1500, keep_recent_tokens=500
    )
    await compact(reference, transcript())
    assert writer.calls[0].messages[0].text == plain.calls[0].messages[0].text


@pytest.mark.parametrize("text", ["", "  \n\t "])
async def test_a_summary_model_that_writes_no_text_fails_the_compaction(text: str) -> None:
    writer = ScriptedProvider([text])
    compactor = Compactor(
        writer.model, stream_fn=writer.stream_fn, context_window=1500, keep_recent_tokens=500
    )
    with pytest.raises(CompactionError) as caught:
        await compact(compactor, transcript())
    assert str(caught.value) == "compaction failed: the summary model wrote no text"
    assert (compactor.history, compactor.summary) == ([], None)


async def test_a_transcript_that_cannot_be_cut_is_sent_as_it_is(
    caplog: pytest.LogCaptureFixture,
) -> None:
    writer = summary_writer()
    compactor = Compactor(
        writer.model, stream_fn=writer.stream_fn, context_window=1000, keep_recent_tokens=500
    )
    alone = [UserMessage(content=WORDS * 60)]  # one message over the budget: nothing before it
    with caplog.at_level(logging.WARNING, logger="pi_sdk_compaction"):
        assert await compact(compactor, alone) == alone
    assert [r.getMessage() for r in caplog.records] == [
        "context at ~1204 tokens but nothing can be compacted"
    ]
    assert (writer.calls, compactor.history) == ([], [])


async def test_apply_during_a_run_is_refused() -> None:
    errors: list[str] = []
    main = ScriptedProvider([ScriptedReply.tool_call("check", {}), "done"])
    compactor = Compactor(summary_writer().model, context_window=100_000)

    @tool
    async def check() -> str:
        """Try to apply the compaction now."""
        try:
            compactor.apply(agent)
        except RuntimeError as error:
            errors.append(str(error))
        return "checked"

    agent = Agent(model=main.model, tools=[check])
    await agent.prompt("go")
    assert errors == ["Compactor.apply cannot change the transcript during a run"]


async def test_the_summary_type_is_registered_when_the_plugin_was_not_loaded(plugin_manager):
    assert "compactionSummary" not in get_message_types()  # a fresh manager: no plugin loaded
    writer = summary_writer()
    compactor = Compactor(
        writer.model, stream_fn=writer.stream_fn, context_window=1500, keep_recent_tokens=500
    )
    result = await compact(compactor, transcript())
    assert get_message_types()["compactionSummary"] is CompactionSummary
    # ... so the summary reaches the model: converted, not dropped
    converted = default_convert_to_llm(result)
    assert converted[0].text.startswith("Earlier turns of this conversation were replaced")
    assert pi_sdk_compaction.Compactor is Compactor
