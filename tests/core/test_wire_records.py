"""The wire layer's dataclass records keep their documented shape (stream events: see
``test_event_equality.py``).

Three promises a user's code leans on, each checked by what it does, not by reading flags:

* **frozen** records (a retry notice, a retry policy, usage limits, a typed answer, an output
  spec, a grammar, a context estimate) refuse an assignment: they are shared between calls;
* **slotted** records (hook contexts and results, agent events, per-turn updates, run usage)
  have no ``__dict__``: a misspelt attribute is an ``AttributeError``, not a silent new field;
* **keyword-only** records refuse positional arguments, so that a field added in a later pi
  version never shifts the meaning of an existing call.

Every dataclass the layer defines is in :data:`SHAPES`: a new one must say what it promises.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from typing import Any

import pytest

import pi_sdk._wire

FROZEN, SLOTTED, KEYWORDS = "frozen", "slotted", "keyword-only"

SHAPES: dict[str, set[str]] = {
    "pi_sdk.options.RetryNotice": {FROZEN, SLOTTED},
    "pi_sdk.options.StreamOptions": {KEYWORDS},
    "pi_sdk._wire.constrained_sampling.ToolGrammar": {FROZEN, SLOTTED},
    "pi_sdk._wire.estimate.ContextEstimate": {FROZEN},
    "pi_sdk._wire.output.Output": {FROZEN},
    "pi_sdk._wire.output.StructuredOutput": {FROZEN, KEYWORDS},
    "pi_sdk._wire.retry_policy.RetryPolicy": {FROZEN, KEYWORDS},
    "pi_sdk._wire.usage_limits.RunUsage": {SLOTTED, KEYWORDS},
    "pi_sdk._wire.usage_limits.UsageLimits": {FROZEN, SLOTTED, KEYWORDS},
    "pi_sdk._wire.loop_config.AgentLoopConfig": {KEYWORDS},
    **{
        f"pi_sdk._wire.loop_config.{name}": {SLOTTED, KEYWORDS}
        for name in (
            "AgentTurnContext",
            "ShouldStopAfterTurnContext",
            "PrepareRequestContext",
            "AgentRequestUpdate",
            "AgentLoopTurnUpdate",
        )
    },
    **{
        f"pi_sdk._wire.agent_types.{name}": {SLOTTED, KEYWORDS}
        for name in (
            "AgentToolResult",
            "AgentContext",
            "BeforeToolCallContext",
            "BeforeToolCallResult",
            "AfterToolCallContext",
            "AfterToolCallResult",
            "AgentStartEvent",
            "AgentEndEvent",
            "TurnStartEvent",
            "TurnEndEvent",
            "MessageStartEvent",
            "MessageUpdateEvent",
            "MessageEndEvent",
            "ToolExecutionStartEvent",
            "ToolExecutionUpdateEvent",
            "ToolExecutionEndEvent",
        )
    },
}

REQUIRED_VALUES: dict[str, dict[str, Any]] = {"pi_sdk._wire.output.Output": {"type": int}}
"""Values for records that check what they are given (the others take any placeholder)."""


def _records() -> dict[str, type]:
    modules = ["pi_sdk.types", "pi_sdk.errors", "pi_sdk.options"]
    modules += [f"pi_sdk._wire.{m.name}" for m in pkgutil.iter_modules(pi_sdk._wire.__path__)]
    found: dict[str, type] = {}
    for name in modules:
        for attr, value in vars(importlib.import_module(name)).items():
            if inspect.isclass(value) and value.__module__ == name:
                if dataclasses.is_dataclass(value):
                    found[f"{name}.{attr}"] = value
    return found


RECORDS = _records()


def _required(cls: type) -> list[str]:
    return [
        f.name
        for f in dataclasses.fields(cls)
        if f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]


def _build(name: str) -> Any:
    cls = RECORDS[name]
    given = REQUIRED_VALUES.get(name, {})
    return cls(**{field: given.get(field, object()) for field in _required(cls)})


def test_every_record_of_the_layer_says_what_it_promises() -> None:
    assert sorted(RECORDS) == sorted(SHAPES)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_frozen_record_refuses_assignment_and_only_it(name: str) -> None:
    record = _build(name)
    first = dataclasses.fields(record)[0].name
    if FROZEN in SHAPES[name]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, first, getattr(record, first))
    else:
        setattr(record, first, getattr(record, first))


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_slotted_record_has_no_room_for_a_misspelt_attribute(name: str) -> None:
    record = _build(name)
    assert hasattr(record, "__dict__") is (SLOTTED not in SHAPES[name])
    if SHAPES[name] & {SLOTTED, FROZEN} == {SLOTTED}:  # frozen: every assignment is refused
        with pytest.raises(AttributeError):
            record.misspelt_field = 1


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_keyword_only_record_refuses_positional_arguments(name: str) -> None:
    cls = RECORDS[name]
    given = REQUIRED_VALUES.get(name, {})
    values = [given.get(field, object()) for field in _required(cls)] or [object()]
    if KEYWORDS in SHAPES[name]:
        with pytest.raises(TypeError, match="positional argument"):
            cls(*values)
    else:
        cls(*values)
