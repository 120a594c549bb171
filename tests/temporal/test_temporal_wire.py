"""Pieces of the durable runs that need no server: the tool call's context outside a durable
run, and the verbatim encoding of large transcripts."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from pi_sdk_temporal import AgentRunResult, durable_tool_call, idempotency_key
from pi_sdk_temporal._tool_call import DurableToolCall, executing
from pi_sdk_temporal._wire import verbatim
from temporalio.converter import DataConverter


def test_outside_a_durable_tool_there_is_no_call_and_no_key() -> None:
    assert durable_tool_call() is None
    with pytest.raises(LookupError, match="only known inside a tool executed by a durable run"):
        idempotency_key()


def test_the_key_is_the_run_and_the_call_on_every_attempt() -> None:
    def call(attempt: int) -> DurableToolCall:
        return DurableToolCall(
            workflow_id="chat-1", run_id="run-9", tool_call_id="toolu_1", tool_name="charge",
            attempt=attempt,
        )  # fmt: skip

    keys = []
    for attempt in (1, 2):
        with executing(call(attempt)):
            keys.append(idempotency_key())
            assert durable_tool_call() == call(attempt)
    assert keys == ["run-9/toolu_1", "run-9/toolu_1"]
    assert durable_tool_call() is None  # reset after the block


def test_a_verbatim_transcript_encodes_as_the_plain_one_without_a_deep_copy() -> None:
    transcript = [
        {"role": "user", "content": [{"type": "text", "text": f"m{i}"}]} for i in range(50)
    ]
    wrapped = AgentRunResult(messages=verbatim(transcript))
    assert dataclasses.asdict(wrapped)["messages"] is wrapped.messages  # not walked, not copied
    converter = DataConverter.default
    plain = asyncio.run(converter.encode([AgentRunResult(messages=transcript)]))
    assert asyncio.run(converter.encode([wrapped])) == plain
    (decoded,) = asyncio.run(converter.decode(plain, [AgentRunResult]))
    assert decoded.messages == transcript and type(decoded.messages) is list


def test_the_durable_call_is_a_read_only_value_built_by_keyword() -> None:
    """A tool cannot change the call it runs (its key stays the one Temporal retries with); two
    attempts' records of a call are equal values, usable as keys."""
    fields = {
        "workflow_id": "chat-1",
        "run_id": "run-9",
        "tool_call_id": "toolu_1",
        "tool_name": "charge",
        "attempt": 1,
    }
    call = DurableToolCall(**fields)
    with pytest.raises(TypeError, match="positional argument"):
        DurableToolCall(*fields.values())  # pyright: ignore[reportCallIssue]
    for name in fields:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(call, name, "changed")
    assert dataclasses.asdict(call) == fields and call.idempotency_key == "run-9/toolu_1"
    seen = {call: "charged"}
    assert seen[DurableToolCall(**fields)] == "charged"
    assert call != DurableToolCall(**(fields | {"attempt": 2}))
