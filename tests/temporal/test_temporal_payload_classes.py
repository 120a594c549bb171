"""The payload classes of ``pi_sdk_temporal._wire``: keyword-only, and round trips through
Temporal's default data converter unchanged.

The module doc: every payload is plain JSON, and every payload class is keyword-only (built by
field name, as Temporal's converter builds it, so a field can be added anywhere). Each class of
the module is listed here with a filled value; a new class must be added.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest
from pi_sdk_temporal import _wire
from temporalio.converter import DataConverter

TEXT = {"type": "text", "text": "hi"}
SPEC = _wire.ToolSpec(
    name="look", description="Looks.", parameters={"type": "object"}, label="Look",
    execution_mode="sequential",
)  # fmt: skip
SAMPLES: dict[str, Any] = {
    "ActivitySettings": _wire.ActivitySettings(model_timeout_s=60.0, max_attempts=2),
    "Continued": _wire.Continued(
        resume=True,
        steering=[{"role": "user", "content": [TEXT]}],
        events_before=7,
        previous_runs=1,
        model="fast",
        base_tools=[{"name": "look"}],
    ),  # fmt: skip
    "AgentRunInput": _wire.AgentRunInput(
        model="fast",
        prompt=[{"role": "user", "content": [TEXT]}],
        tools=["look"],
        options={"temperature": 0.5},
        keep_open=True,
        activities=_wire.ActivitySettings(tool_timeout_s=9.0),
        history_max_events=100,
        continued=_wire.Continued(resume=False, prompts=[[{"role": "user", "content": "x"}]]),
    ),  # fmt: skip
    "AgentRunResult": _wire.AgentRunResult(
        messages=[{"role": "user", "content": "x"}], aborted=True
    ),
    "AgentRunState": _wire.AgentRunState(
        model="fast",
        messages=[],
        is_streaming=True,
        pending_tool_calls=["t1"],
        error=None,
        events=3,
    ),  # fmt: skip
    "ToolSpec": SPEC,
    "WorkerCatalog": _wire.WorkerCatalog(models={"fast": {"id": "m"}}, tools=[SPEC]),
    "ModelCall": _wire.ModelCall(model="fast", context={"messages": []}, options={"a": 1}),
    "ToolRun": _wire.ToolRun(tool="look", tool_call_id="t1", args={"q": "x"}),
    "ToolOutcome": _wire.ToolOutcome(
        content=[TEXT], details={"n": 1}, terminate=True, error="boom"
    ),
}


def test_every_payload_class_of_the_module_is_listed() -> None:
    classes = {name for name in _wire.__all__ if dataclasses.is_dataclass(getattr(_wire, name))}
    assert classes == set(SAMPLES)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_payload_class_is_built_by_name_only(name: str) -> None:
    cls = type(SAMPLES[name])
    first = dataclasses.fields(cls)[0]
    with pytest.raises(TypeError, match="positional argument"):
        cls(getattr(SAMPLES[name], first.name))
    assert cls.__match_args__ == ()  # no positional class pattern either


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_payload_round_trips_through_temporal_s_default_converter(name: str) -> None:
    sample = SAMPLES[name]
    converter = DataConverter.default
    encoded = asyncio.run(converter.encode([sample]))
    (decoded,) = asyncio.run(converter.decode(encoded, [type(sample)]))
    assert decoded == sample and type(decoded) is type(sample)
