"""A mode setting that is none of its names is refused, named, before it can act.

pi-mono types ``toolExecution``, ``toolSteering``, ``steeringMode``, ``followUpMode`` and a
tool's ``executionMode`` as string unions, checked by TypeScript before the program runs. Here
the check is at run time: a typo (``"serial"``) used to run silently as the default. Refused
where the setting is given (``AgentLoopConfig``, ``Agent``, ``AgentTool``) and, since an
Agent's settings are public attributes, again when ``prompt()`` or ``continue_()`` starts a
run: the transcript is untouched and no request is made.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.agent import config, isolated_plugins, user  # noqa: F401 - autouse fixture

import pi_sdk
from pi_sdk.testing import ScriptedProvider

EXECUTION = "valid values are 'sequential', 'parallel'"
STEERING = "valid values are 'wait', 'skip'"
QUEUE = "valid values are 'all', 'one-at-a-time'"

# (setting, a wrong value, the valid-values part of the message)
LOOP_SETTINGS = [
    ("tool_execution", "serial", EXECUTION),
    ("tool_execution", "Sequential", EXECUTION),
    ("tool_execution", None, EXECUTION),
    ("tool_steering", "Skip", STEERING),
    ("tool_steering", "interrupt", STEERING),
]
AGENT_SETTINGS = [
    *LOOP_SETTINGS,
    ("steering_mode", "All", QUEUE),
    ("steering_mode", "one", QUEUE),
    ("follow_up_mode", "al", QUEUE),
    ("follow_up_mode", None, QUEUE),
]


@pytest.mark.parametrize(("setting", "value", "valid"), LOOP_SETTINGS)
def test_a_loop_config_refuses_a_wrong_tool_mode(setting: str, value: Any, valid: str) -> None:
    with pytest.raises(ValueError) as info:
        config(ScriptedProvider(), **{setting: value})
    assert str(info.value) == f"unknown {setting} {value!r}: {valid}"


@pytest.mark.parametrize(("setting", "value", "valid"), AGENT_SETTINGS)
def test_an_agent_refuses_a_wrong_mode_when_built(setting: str, value: Any, valid: str) -> None:
    with pytest.raises(ValueError) as info:
        pi_sdk.Agent(model=ScriptedProvider().model, **{setting: value})
    assert str(info.value) == f"unknown {setting} {value!r}: {valid}"


@pytest.mark.parametrize(("setting", "value", "valid"), AGENT_SETTINGS)
async def test_a_mode_changed_to_a_wrong_value_refuses_the_next_run(
    setting: str, value: Any, valid: str
) -> None:
    provider = ScriptedProvider(["first", "second"])
    agent = pi_sdk.Agent(model=provider.model)
    await agent.prompt("hello")
    before = list(agent.state.messages)
    good = getattr(agent, setting)
    setattr(agent, setting, value)
    for start in (lambda: agent.prompt("again"), agent.continue_):
        with pytest.raises(ValueError) as info:
            await start()
        assert str(info.value) == f"unknown {setting} {value!r}: {valid}"
    assert agent.state.messages == before
    assert len(provider.calls) == 1
    setattr(agent, setting, good)
    await agent.prompt("again")
    assert [m.role for m in agent.state.messages] == ["user", "assistant", "user", "assistant"]


@pytest.mark.parametrize(
    ("setting", "values"),
    [
        ("tool_execution", ["sequential", "parallel"]),
        ("tool_steering", ["wait", "skip"]),
        ("steering_mode", ["all", "one-at-a-time"]),
        ("follow_up_mode", ["all", "one-at-a-time"]),
    ],
)
def test_an_agent_takes_every_valid_mode(setting: str, values: list[str]) -> None:
    for value in values:
        agent = pi_sdk.Agent(model=ScriptedProvider().model, **{setting: value})
        assert getattr(agent, setting) == value


@pytest.mark.parametrize("value", ["serial", "Parallel", ""])
def test_a_tool_refuses_a_wrong_execution_mode(value: str) -> None:
    with pytest.raises(ValueError) as info:
        pi_sdk.AgentTool(name="t", execution_mode=value)  # pyright: ignore[reportArgumentType]
    assert str(info.value) == f"unknown execution_mode {value!r}: {EXECUTION} or None"


@pytest.mark.parametrize("value", [None, "sequential", "parallel"])
def test_a_tool_takes_every_valid_execution_mode(value: Any) -> None:
    assert pi_sdk.AgentTool(name="t", execution_mode=value).execution_mode == value


def test_a_loop_config_still_checks_the_stream_options() -> None:
    with pytest.raises(ValueError) as info:
        config(ScriptedProvider(), cache_retention="forever")
    assert str(info.value) == (
        "unknown cache_retention 'forever': valid values are 'none', 'short', 'long' or None"
    )
