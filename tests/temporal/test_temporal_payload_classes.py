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


def _defaults(cls: type) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
    return out


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_payload_without_its_defaulted_fields_decodes_to_the_documented_defaults(
    name: str,
) -> None:
    # A payload written before a field was added (a workflow history, a running worker of the
    # previous release) lacks it: the field takes its default, which is part of the contract.
    sample = SAMPLES[name]
    cls = type(sample)
    defaults = _defaults(cls)
    required = {f.name: getattr(sample, f.name) for f in dataclasses.fields(cls)
                if f.name not in defaults}  # fmt: skip
    converter = DataConverter.default
    encoded = asyncio.run(converter.encode([cls(**required)]))
    payload = encoded[0]
    import json

    data = json.loads(payload.data)
    for field in defaults:
        data.pop(field, None)
    payload.data = json.dumps(data).encode()
    (decoded,) = asyncio.run(converter.decode([payload], [cls]))
    assert {k: getattr(decoded, k) for k in defaults} == defaults
    assert decoded == cls(**required)


SETTINGS = {"model_timeout_s": 1800.0, "tool_timeout_s": 3600.0, "heartbeat_timeout_s": 30.0,
            "max_attempts": 5, "retry_initial_interval_s": 1.0}  # fmt: skip
DEFAULTS: dict[str, dict[str, Any]] = {
    "ActivitySettings": SETTINGS,
    "AgentRunInput": {
        "prompt": [], "messages": [], "system_prompt": "", "tools": [], "thinking_level": "off",
        "tool_execution": "parallel", "tool_steering": "wait", "steering_mode": "one-at-a-time",
        "follow_up_mode": "one-at-a-time", "tool_abort_grace_ms": 2000, "options": {},
        "keep_open": False, "activities": _wire.ActivitySettings(**SETTINGS),
        "history_max_events": None, "history_max_bytes": None, "continued": None,
    },
    "AgentRunResult": {"aborted": False},
    "AgentRunState": {},
    "Continued": {"steering": [], "follow_up": [], "prompts": [], "events_before": 0,
                  "previous_runs": 0, "model": "", "base_tools": None},
    "ModelCall": {},
    "ToolOutcome": {"content": [], "details": None, "terminate": False, "error": None},
    "ToolRun": {},
    "ToolSpec": {"execution_mode": None},
    "WorkerCatalog": {},
}  # fmt: skip
"""Each payload field's default, as documented (pi-agent-core's defaults where it has them):
what a payload missing the field decodes to."""


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_documented_defaults(name: str) -> None:
    assert _defaults(getattr(_wire, name)) == DEFAULTS[name]
