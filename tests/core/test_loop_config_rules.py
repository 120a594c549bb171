"""The agent loop's configuration: its defaults and its keyword-only shape (issue 34).

pi-agent-core 1.6 ``AgentLoopConfig``: tools run in parallel, steering waits for the batch,
an aborted tool gets 2 s, every hook is off; the per-turn records take keywords only.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from pi_sdk import Model, StreamOptions
from pi_sdk._wire.loop_config import (
    AgentLoopConfig,
    AgentLoopTurnUpdate,
    AgentRequestUpdate,
    AgentTurnContext,
    PrepareRequestContext,
)

MODEL = Model(id="m", api="loop-api", provider="p")

DEFAULTS: dict[str, Any] = {
    "convert_to_llm": None,
    "transform_context": None,
    "get_api_key": None,
    "get_steering_messages": None,
    "get_follow_up_messages": None,
    "tool_execution": "parallel",
    "tool_abort_grace_ms": 2000,
    "tool_steering": "wait",
    "before_tool_call": None,
    "after_tool_call": None,
    "prepare_request": None,
    "prepare_next_turn": None,
    "finish_turn": None,
    "should_stop_after_turn": None,
    "retry": None,
    "usage_limits": None,
}


@pytest.mark.parametrize(("name", "default"), DEFAULTS.items())
def test_each_loop_setting_has_pi_agent_cores_default(name: str, default: Any) -> None:
    assert getattr(AgentLoopConfig(model=MODEL), name) == default


def test_the_loop_config_is_stream_options_and_takes_keywords_only() -> None:
    config = AgentLoopConfig(model=MODEL, max_tokens=9)
    assert isinstance(config, StreamOptions) and config.max_tokens == 9
    assert config.model is MODEL
    with pytest.raises(TypeError):
        AgentLoopConfig(MODEL)  # type: ignore[misc]


@pytest.mark.parametrize("record", [AgentRequestUpdate, AgentLoopTurnUpdate])
def test_updates_change_nothing_by_default(record: type) -> None:
    update = record()
    assert all(getattr(update, f.name) is None for f in dataclasses.fields(update))
    assert {f.name for f in dataclasses.fields(update)} >= {"context", "model", "thinking_level"}


@pytest.mark.parametrize(
    "record", [AgentRequestUpdate, AgentLoopTurnUpdate, AgentTurnContext, PrepareRequestContext]
)
def test_per_turn_records_take_keywords_only_and_no_stray_attributes(record: type) -> None:
    fields = dataclasses.fields(record)
    assert all(f.kw_only for f in fields)
    assert "__slots__" in vars(record)
