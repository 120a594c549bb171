"""``Agent(output=..., output_repairs=n)``: a typed final answer and the opt-in repair turn."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

import pi_sdk
from pi_sdk import AssistantMessage, StreamOptions, UserMessage, tool
from pi_sdk._agent.output_repair import REPAIR_PREFIX
from pi_sdk.options import Output, StructuredOutput
from pi_sdk.testing import ScriptedProvider, ScriptedReply


class Forecast(BaseModel):
    city: str
    rain: bool


GOOD = '{"city": "Oslo", "rain": true}'


def roles(agent: pi_sdk.Agent) -> list[str]:
    return [m.role for m in agent.state.messages]  # type: ignore[union-attr]


async def test_the_final_answer_is_a_validated_object() -> None:
    provider = ScriptedProvider([GOOD])
    agent = pi_sdk.Agent(model=provider.model, output=Forecast)
    await agent.prompt("Rain in Oslo?")
    assert agent.final_output is not None
    assert agent.final_output.value == Forecast(city="Oslo", rain=True)
    assert isinstance(provider.calls[0].options.output, Output)


async def test_tools_run_first_then_the_answer_is_parsed() -> None:
    ran: list[str] = []

    @tool
    def radar(city: str) -> str:
        """Rain radar for a city."""
        ran.append(city)
        return "rain"

    provider = ScriptedProvider([ScriptedReply.tool_call("radar", {"city": "Oslo"}), GOOD])
    agent = pi_sdk.Agent(model=provider.model, tools=[radar], output=Forecast)
    await agent.prompt("Rain in Oslo?")
    assert ran == ["Oslo"]
    assert roles(agent) == ["user", "assistant", "toolResult", "assistant"]
    assert agent.final_output is not None and agent.final_output.ok


async def test_a_forced_answer_tool_is_never_run_as_a_tool() -> None:
    provider = ScriptedProvider(
        [ScriptedReply.tool_call("final_answer", {"city": "Oslo", "rain": False})]
    )
    agent = pi_sdk.Agent(model=provider.model, output=Output(Forecast, mode="tool"))
    await agent.prompt("Rain in Oslo?")
    assert roles(agent) == ["user", "assistant"]  # no tool result, no second call
    assert len(provider.calls) == 1
    assert agent.final_output is not None
    assert agent.final_output.value == Forecast(city="Oslo", rain=False)


async def test_without_repairs_a_failure_is_data_and_the_run_ends() -> None:
    provider = ScriptedProvider(['{"city": "Oslo"}'])
    agent = pi_sdk.Agent(model=provider.model, output=Forecast)
    await agent.prompt("Rain in Oslo?")
    output = agent.final_output
    assert output is not None and not output.ok
    assert output.raw == '{"city": "Oslo"}' and output.error is not None and "/rain" in output.error
    assert len(provider.calls) == 1


async def test_a_repair_turn_names_the_problem_and_the_model_answers_again() -> None:
    provider = ScriptedProvider(['{"city": "Oslo"}', GOOD])
    agent = pi_sdk.Agent(model=provider.model, output=Forecast, output_repairs=1)
    new = await agent.prompt("Rain in Oslo?")
    assert roles(agent) == ["user", "assistant", "user", "assistant"]
    repair = agent.state.messages[2]
    assert isinstance(repair, UserMessage)
    text = repair.content[0].text  # type: ignore[union-attr]
    assert text.startswith(REPAIR_PREFIX) and "/rain: Field required" in text
    assert provider.calls[1].messages[-1].content == repair.content  # the model saw it
    assert agent.final_output is not None and agent.final_output.value.city == "Oslo"
    assert new[-1] is agent.state.messages[-1]


async def test_repairs_stop_at_the_limit() -> None:
    provider = ScriptedProvider(["no", "still no", "never"])
    agent = pi_sdk.Agent(model=provider.model, output=Forecast, output_repairs=2)
    await agent.prompt("Rain?")
    assert len(provider.calls) == 3
    assert agent.final_output is not None and not agent.final_output.ok
    assert agent.final_output.raw == "never"


async def test_the_repair_count_is_per_run() -> None:
    provider = ScriptedProvider(["bad", GOOD, "bad again", GOOD])
    agent = pi_sdk.Agent(model=provider.model, output=Forecast, output_repairs=1)
    await agent.prompt("first")
    await agent.prompt("second")
    assert len(provider.calls) == 4
    assert agent.final_output is not None and agent.final_output.ok


async def test_an_error_is_not_repaired() -> None:
    provider = ScriptedProvider([ScriptedReply(error="overloaded")])
    agent = pi_sdk.Agent(model=provider.model, output=Forecast, output_repairs=3)
    await agent.prompt("Rain?")
    assert len(provider.calls) == 1
    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "error"


async def test_output_from_the_stream_options_template_works_too() -> None:
    provider = ScriptedProvider([GOOD])
    agent = pi_sdk.Agent(model=provider.model, stream_options=StreamOptions(output=Forecast))
    await agent.prompt("Rain?")
    assert agent.final_output is not None and agent.final_output.ok


def test_bad_agent_settings_fail_at_once() -> None:
    with pytest.raises(ValueError, match="output_repairs must be 0 or more"):
        pi_sdk.Agent(output=Forecast, output_repairs=-1)
    bad: Any = object()
    with pytest.raises(TypeError, match="output must be"):
        pi_sdk.Agent(output=bad)


def test_no_output_means_no_final_output() -> None:
    assert pi_sdk.Agent().final_output is None


async def test_a_valid_answer_with_repairs_left_ends_the_run() -> None:
    provider = ScriptedProvider(["bad", GOOD, "never asked"])
    agent = pi_sdk.Agent(model=provider.model, output=Forecast, output_repairs=3)
    await agent.prompt("Rain?")
    assert len(provider.calls) == 2
    assert roles(agent) == ["user", "assistant", "user", "assistant"]
    assert agent.final_output is not None and agent.final_output.ok


def _answer(stop: str, output: StructuredOutput | None) -> AssistantMessage:
    message = AssistantMessage(api="a", provider="p", model="m", stop_reason=stop)  # pyright: ignore
    message.set_output(output)
    return message


BAD = StructuredOutput(raw="{}", error="/rain: Field required")
OK = StructuredOutput(raw=GOOD, value={"city": "Oslo", "rain": True})


@pytest.mark.parametrize(
    ("messages", "repaired"),
    [
        ([], False),
        ([UserMessage(content="Rain?")], False),
        ([_answer("stop", BAD)], True),
        ([_answer("length", BAD)], True),  # a cut answer is asked again too
        ([_answer("error", BAD)], False),
        ([_answer("aborted", BAD)], False),
        ([_answer("toolUse", BAD)], False),
        ([_answer("stop", OK)], False),
        ([_answer("stop", None)], False),
        ([_answer("stop", BAD), UserMessage(content="and?")], False),  # only the last counts
    ],
)
def test_only_a_normal_last_answer_that_failed_to_validate_is_repaired(
    messages: list[Any], repaired: bool
) -> None:
    from pi_sdk._agent.output_repair import repair_prompt

    repair = repair_prompt(messages)
    if not repaired:
        assert repair is None
        return
    assert repair is not None
    assert repair.content[0].text == (  # type: ignore[union-attr]
        f"{REPAIR_PREFIX} /rain: Field required. Reply again with only the corrected answer,"
        " as JSON that follows the schema."
    )
