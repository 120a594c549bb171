"""The policy's records are keyword-only and read-only (issue 34).

A :class:`Rule` compiles its patterns when built: one changed afterwards would match with the
old patterns, so a rule refuses every assignment. A :class:`Decision` and the
:class:`ApprovalRequest` an approver gets are the policy's answer and question: read-only too.
All three are built with keywords only (fields may be added or reordered).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from pi_sdk_tool_policy import ApprovalRequest, Decision, Rule, ToolPolicy

from pi_sdk import AgentContext, AssistantMessage, BeforeToolCallContext, ToolCall


def _context() -> BeforeToolCallContext:
    call = ToolCall(id="c1", name="bash", arguments={"command": "ls"})
    return BeforeToolCallContext(
        assistant_message=AssistantMessage(api="a", provider="p", model="m", content=[call]),
        tool_call=call,
        args=call.arguments,
        context=AgentContext(),
    )


RULE = Rule(action="deny", tool="bash", args={"command": "rm *"}, reason="no deletes")
DECISION = Decision(action="deny", rule=RULE, index=0)
REQUEST = ApprovalRequest(
    tool_name="bash",
    tool_call_id="c1",
    args={"command": "ls"},
    decision=DECISION,
    context=_context(),
)
RECORDS: list[tuple[Any, dict[str, Any]]] = [
    (RULE, {"action": "deny", "tool": "bash", "args": {"command": "rm *"}, "reason": "no deletes"}),
    (DECISION, {"action": "deny", "rule": RULE, "index": 0}),
    (
        REQUEST,
        {
            "tool_name": "bash",
            "tool_call_id": "c1",
            "args": {"command": "ls"},
            "decision": DECISION,
            "context": REQUEST.context,
        },
    ),
]


@pytest.mark.parametrize(("record", "fields"), RECORDS, ids=["rule", "decision", "request"])
def test_a_record_is_built_by_keyword_only_and_equals_its_copy(
    record: Any, fields: dict[str, Any]
) -> None:
    kind = type(record)
    with pytest.raises(TypeError, match="positional argument"):
        kind(*fields.values())
    assert kind(**fields) == record


@pytest.mark.parametrize(("record", "fields"), RECORDS, ids=["rule", "decision", "request"])
def test_a_record_refuses_every_assignment(record: Any, fields: dict[str, Any]) -> None:
    for name in fields:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, name, None)
    assert {name: getattr(record, name) for name in fields} == fields


def test_a_rule_keeps_matching_what_it_was_built_for() -> None:
    policy = ToolPolicy([RULE])
    with pytest.raises(dataclasses.FrozenInstanceError):
        RULE.tool = "read"  # pyright: ignore[reportAttributeAccessIssue]
    assert policy.decide("bash", {"command": "rm -rf /"}) == DECISION
    assert policy.decide("read", {"command": "rm -rf /"}).rule is None
