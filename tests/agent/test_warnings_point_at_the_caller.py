"""Each warning pi-sdk gives a caller points at the caller's own line (``stacklevel``).

A ``DeprecationWarning`` is read where Python shows it: ``file:line: DeprecationWarning``. It
must name the line in the application that did the deprecated thing, not a line inside
pi-sdk, or the user cannot find what to change (and ``-W error::DeprecationWarning`` filters
by module would miss it).
"""

from __future__ import annotations

import inspect
import warnings

import pytest

import pi_sdk
from pi_sdk import Agent, UserMessage


def _here() -> int:
    """The line number of the caller's next line."""
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return frame.f_back.f_lineno + 1


def _the_one(caught: list[warnings.WarningMessage]) -> warnings.WarningMessage:
    [warning] = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    return warning


def test_should_stop_after_turn_warns_at_the_agent_construction() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = _here()
        Agent(should_stop_after_turn=lambda context: False)
    warning = _the_one(caught)
    assert "should_stop_after_turn is deprecated" in str(warning.message)
    assert (warning.filename, warning.lineno) == (__file__, line)


def test_setting_the_prompt_mid_conversation_warns_at_the_assignment() -> None:
    agent = Agent()
    agent.messages = [UserMessage(content="hi")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = _here()
        agent.system_prompt = "Be brief."
    warning = _the_one(caught)
    assert "append a pi_sdk.SystemMessage" in str(warning.message)
    assert (warning.filename, warning.lineno) == (__file__, line)


def test_a_deprecated_kit_name_warns_where_it_is_read() -> None:
    import pi_sdk.provider as kit

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = _here()
        found = kit.tune_gc_for_streams
    warning = _the_one(caught)
    assert found is pi_sdk.tune_gc_for_streams
    assert (warning.filename, warning.lineno) == (__file__, line)


@pytest.mark.parametrize("before", [[], [pi_sdk.SystemMessage(content="old")]])
def test_setting_the_prompt_before_the_conversation_does_not_warn(before: list) -> None:
    agent = Agent()
    agent.messages = list(before)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent.system_prompt = "Be brief."
    assert agent.system_prompt == "Be brief."
