"""Bad workflow input is refused on the client, with the reason, before anything starts."""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_temporal import AgentRunInput, prompt_input, start_agent


class NoClient:
    """A client that fails the test if the workflow is started."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the client was used ({name}) for an input that cannot run")


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"thinking_level": "huge"}, "thinking_level must be one of off, minimal"),
        ({"tool_execution": "threads"}, "tool_execution must be one of sequential, parallel"),
        ({"options": {"api_key": "sk-secret"}}, "options api_key cannot be sent"),
        ({"options": {"headers": {"x-api-key": "k"}}}, "options headers cannot be sent"),
        ({"options": {"temprature": 0.2}}, "unknown options temprature; valid: temperature"),
        ({"options": {"reasoning": "huge"}}, "options: unknown reasoning level 'huge'"),
        ({"messages": [{"role": "wizard"}]}, "messages[0] is not a pi message"),
    ],
)
async def test_bad_input_is_refused_before_the_workflow_starts(
    fields: dict[str, Any], reason: str
) -> None:
    with pytest.raises(ValueError) as caught:
        await start_agent(NoClient(), prompt_input("a", "hi", **fields), id="x", task_queue="q")  # type: ignore[arg-type]
    assert reason in str(caught.value)
    assert "sk-secret" not in str(caught.value)


async def test_an_empty_model_name_is_refused() -> None:
    with pytest.raises(ValueError, match="model must name a model"):
        await start_agent(NoClient(), AgentRunInput(model=""), id="x", task_queue="q")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"tool_steering": "now"}, "tool_steering must be one of "),
        ({"steering_mode": "many"}, "steering_mode must be one of all, one-at-a-time; got 'many'"),
        (
            {"follow_up_mode": "many"},
            "follow_up_mode must be one of all, one-at-a-time; got 'many'",
        ),
        (
            {"options": {"headers": {}, "api_key": "k", "temperature": 1}},
            "options api_key, headers cannot be sent: the workflow history would keep them;",
        ),
        ({"options": {"b_opt": 1, "a_opt": 2}}, "unknown options a_opt, b_opt; valid: "),
        ({"prompt": [{"role": "user", "content": "ok"}, {"role": "user"}]}, "prompt[1] is not"),
        ({"messages": [{"role": "user", "content": "ok"}, {"role": "x"}]}, "messages[1] is not"),
    ],
)
def test_each_field_is_checked_and_named(fields: dict[str, Any], reason: str) -> None:
    from pi_sdk_temporal._check import check_input

    with pytest.raises(ValueError) as caught:
        check_input(AgentRunInput(model="a", **fields))
    assert reason in str(caught.value)


def test_an_input_with_every_field_valid_passes() -> None:
    from pi_sdk_temporal._check import check_input

    check_input(
        AgentRunInput(
            model="a",
            prompt=[{"role": "user", "content": "hi"}],
            messages=[{"role": "user", "content": "before"}],
            thinking_level="high",
            tool_execution="sequential",
            tool_steering="wait",
            steering_mode="all",
            follow_up_mode="all",
            options={"temperature": 0.5, "max_tokens": 10, "session_id": "s"},
        )
    )
