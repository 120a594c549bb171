"""pi-sdk-tool-policy: every decision's whole text, and every configuration error's.

The model reads the reason of a blocked call, and whoever writes a policy file reads its error:
each is asserted whole. Decisions: allow, deny with or without a reason, ask with no approver,
an approver that says yes, no, or why not, and an abort before or while it answers (with or
without a signal at all). Arguments are matched as a mapping, a pydantic model's dump, or the
raw call when the validated arguments are neither. Configuration: each rule of ``from_dict``.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest
from pi_sdk_tool_policy import Rule, ToolPolicy
from pydantic import BaseModel

from pi_sdk import (
    AbortController,
    AgentContext,
    AssistantMessage,
    BeforeToolCallContext,
    ConfigurationError,
    ToolCall,
)


def context(args: Any = None, name: str = "bash") -> BeforeToolCallContext:
    call = ToolCall(id="c1", name=name, arguments={"command": "rm -rf /"})
    return BeforeToolCallContext(
        assistant_message=AssistantMessage(api="a", provider="p", model="m", content=[call]),
        tool_call=call,
        args=call.arguments if args is None else args,
        context=AgentContext(),
    )


async def reason_of(policy: ToolPolicy, signal: Any = None, args: Any = None) -> str | None:
    result = await policy.before_tool_call(context(args), signal)
    if result is None:
        return None
    assert result.block is True
    return result.reason


DENY = Rule(action="deny", tool="bash", reason="no recursive deletes")
ASK = Rule(action="ask", tool="bash", reason="it deletes files")


@pytest.mark.parametrize(
    ("policy", "reason"),
    [
        (ToolPolicy([Rule(action="allow")]), None),
        (ToolPolicy(default="allow"), None),
        (
            ToolPolicy([DENY]),
            "Tool call 'bash' denied by policy (rule 0 (deny bash)): no recursive deletes",
        ),
        (
            ToolPolicy([Rule(action="allow", tool="read"), Rule(action="deny", tool="ba*")]),
            "Tool call 'bash' denied by policy (rule 1 (deny ba*))",
        ),
        (ToolPolicy(default="deny"), "Tool call 'bash' denied by policy (the default rule)"),
        (
            ToolPolicy([ASK]),
            "Tool call 'bash' needs approval (rule 0 (ask bash)): it deletes files;"
            " no approver is configured",
        ),
        (
            ToolPolicy(default="ask"),
            "Tool call 'bash' needs approval (the default rule); no approver is configured",
        ),
    ],
)
async def test_each_decision_without_an_approver(policy: ToolPolicy, reason: str | None) -> None:
    assert await reason_of(policy) == reason


NEEDS = "Tool call 'bash' needs approval (rule 0 (ask bash)): it deletes files"


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (True, None),
        (False, f"{NEEDS}; approval was refused"),
        (None, f"{NEEDS}; approval was refused"),
        ("", f"{NEEDS}; approval was refused"),
        ("the operator said no", "the operator said no"),
    ],
)
@pytest.mark.parametrize("with_signal", [True, False], ids=["signal", "no-signal"])
async def test_each_answer_of_the_approver(answer: Any, reason: str | None, with_signal: bool):
    asked: list[tuple[str, str, dict[str, Any], int | None]] = []

    async def approver(request: Any) -> Any:
        asked.append(
            (request.tool_name, request.tool_call_id, dict(request.args), request.decision.index)
        )
        return answer

    signal = AbortController().signal if with_signal else None
    assert await reason_of(ToolPolicy([ASK], approver=approver), signal) == reason
    assert asked == [("bash", "c1", {"command": "rm -rf /"}, 0)]


async def test_an_abort_before_the_approver_is_asked_never_starts_it() -> None:
    started: list[bool] = []

    async def approver(request: Any) -> bool:
        started.append(True)
        return True

    controller = AbortController()
    controller.abort()
    reason = await reason_of(ToolPolicy([ASK], approver=approver), controller.signal)
    assert reason == f"{NEEDS}; the run was aborted"
    assert started == []


async def test_an_abort_while_the_approver_thinks_cancels_it() -> None:
    cancelled: list[bool] = []
    asked = asyncio.Event()

    async def approver(request: Any) -> bool:
        asked.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return True

    controller = AbortController()
    pending = asyncio.ensure_future(
        reason_of(ToolPolicy([ASK], approver=approver), controller.signal)
    )
    await asyncio.wait_for(asked.wait(), 5)
    controller.abort()
    assert await pending == f"{NEEDS}; the run was aborted"
    await asyncio.sleep(0)
    assert cancelled == [True]


class Command(BaseModel):
    command: str


class Opaque:
    """Validated arguments that are neither a mapping nor a pydantic model."""


@pytest.mark.parametrize(
    "args",
    [{"command": "rm -rf /"}, Command(command="rm -rf /"), Opaque()],
    ids=["mapping", "pydantic", "opaque-the-raw-call"],
)
async def test_arguments_are_matched_in_every_form(args: Any) -> None:
    policy = ToolPolicy([Rule(action="deny", args={"command": "rm *"})])
    assert await reason_of(policy, args=args) == (
        "Tool call 'bash' denied by policy (rule 0 (deny *))"
    )


def test_a_policy_describes_itself() -> None:
    policy = ToolPolicy([DENY, ASK], default="ask")
    assert repr(policy) == "ToolPolicy(2 rules, default='ask')"
    assert repr(ToolPolicy()) == "ToolPolicy(0 rules, default='allow')"
    assert policy.decide("read", {}).describe() == "the default rule"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"rules": [], "mode": "x", "extra": 1}, "unknown policy keys: extra, mode"),
        ({"rules": {"action": "deny"}}, "policy 'rules' must be a list of tables/objects"),
        ({"rules": "deny"}, "policy 'rules' must be a list of tables/objects"),
        ({"rules": ["deny"]}, "policy rule 0: a rule must be a table/object"),
        (
            {"rules": [{"action": "allow"}, {"action": "deny", "when": 1, "who": 2}]},
            "policy rule 1: unknown keys when, who",
        ),
        ({"rules": [{"tool": "bash"}]}, "policy rule 0: missing 'action'"),
        ({"rules": [{"action": "deny", "tool": 3}]}, "policy rule 0: 'tool' must be a string"),
        (
            {"rules": [{"action": "deny", "args": {"command": 3}}]},
            "policy rule 0: 'args' must map argument paths to pattern strings",
        ),
        (
            {"rules": [{"action": "deny", "args": ["rm *"]}]},
            "policy rule 0: 'args' must map argument paths to pattern strings",
        ),
        (
            {"rules": [{"action": "deny", "reason": ["x"]}]},
            "policy rule 0: 'reason' must be a string",
        ),
        (
            {"rules": [{"action": "deny", "annotations": {"destructiveHint": [True]}}]},
            "policy rule 0: 'annotations' must map annotation names to values",
        ),
        (
            {"rules": [{"action": "deny", "annotations": "destructiveHint"}]},
            "policy rule 0: 'annotations' must map annotation names to values",
        ),
        (
            {"rules": [{"action": "block"}]},
            "policy rule 0: unknown rule action 'block' (expected one of allow, deny, ask)",
        ),
        (
            {"default": "maybe"},
            "unknown default action 'maybe' (expected one of allow, deny, ask)",
        ),
    ],
)
def test_each_configuration_error(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        ToolPolicy.from_dict(data)
    assert str(caught.value) == message


def test_a_full_configuration_builds_the_same_policy_as_the_code() -> None:
    data = {
        "default": "deny",
        "rules": [
            {"action": "deny", "tool": "bash", "args": {"command": "rm *"}, "reason": "no"},
            {"action": "ask", "annotations": {"destructiveHint": True, "level": 2}},
            {"action": "allow"},
        ],
    }
    policy = ToolPolicy.from_dict(data)
    assert policy.rules == (
        Rule(action="deny", tool="bash", args={"command": "rm *"}, reason="no"),
        Rule(action="ask", annotations={"destructiveHint": True, "level": 2}),
        Rule(action="allow"),
    )
    assert policy.default == "deny"


async def test_actions_read_from_a_file_decide_like_the_ones_in_code() -> None:
    """A policy file's strings are equal to the actions, not the same objects."""
    import json

    data = json.loads('{"default": "deny", "rules": [{"action": "allow", "tool": "bash"}]}')
    assert data["rules"][0]["action"] is not "allow"  # noqa: F632 - the point of the test
    assert await reason_of(ToolPolicy.from_dict(data)) is None
    data = json.loads('{"rules": [{"action": "deny", "tool": "bash"}]}')
    assert await reason_of(ToolPolicy.from_dict(data)) == (
        "Tool call 'bash' denied by policy (rule 0 (deny bash))"
    )
    data = json.loads('{"default": "ask"}')
    assert await reason_of(ToolPolicy.from_dict(data)) == (
        "Tool call 'bash' needs approval (the default rule); no approver is configured"
    )


class Hinted:
    """A run's tool as the policy sees it: a name and, maybe, an annotations mapping."""

    def __init__(self, name: str, annotations: Any) -> None:
        self.name = name
        self.annotations = annotations


@pytest.mark.parametrize(
    ("tools", "blocked"),
    [
        (
            [Hinted("read", {"destructiveHint": False}), Hinted("bash", {"destructiveHint": True})],
            True,
        ),
        (
            [Hinted("read", {"destructiveHint": True}), Hinted("bash", {"destructiveHint": False})],
            False,
        ),
        ([Hinted("bash", [("destructiveHint", True)])], False),  # not a mapping: no hints
        ([Hinted("read", {"destructiveHint": True})], False),  # the called tool is not there
    ],
)
async def test_annotation_rules_read_the_called_tools_own_hints(tools: list[Any], blocked: bool):
    call = context()
    call = BeforeToolCallContext(
        assistant_message=call.assistant_message,
        tool_call=call.tool_call,
        args=call.args,
        context=AgentContext(tools=tools),
    )
    policy = ToolPolicy([Rule(action="deny", annotations={"destructiveHint": True})])
    result = await policy.before_tool_call(call, None)
    assert (result is not None and result.block) is blocked


def test_a_rule_is_built_from_its_five_settings_and_shows_only_them() -> None:
    """The compiled patterns are the rule's own state: not constructor arguments, not in its
    repr, not part of its equality (two rules written the same are equal)."""
    parameters = inspect.signature(Rule).parameters
    assert list(parameters) == ["action", "tool", "args", "annotations", "reason"]
    assert {p.kind for p in parameters.values()} == {inspect.Parameter.KEYWORD_ONLY}
    rule = Rule(action="deny", tool="re:^bash$", args={"command": "rm *"}, reason="no")
    assert repr(rule) == (
        "Rule(action='deny', tool='re:^bash$', args={'command': 'rm *'}, annotations={}, "
        "reason='no')"
    )
    assert rule == Rule(action="deny", tool="re:^bash$", args={"command": "rm *"}, reason="no")
    assert rule != Rule(action="deny", tool="re:^sh$", args={"command": "rm *"}, reason="no")


@pytest.mark.parametrize(("validated", "denied"), [("ls -la", False), ("rm -rf /tmp/x", True)])
async def test_a_pydantic_model_s_values_are_matched_not_the_raw_call(
    validated: str, denied: bool
) -> None:
    # The tool receives the validated arguments, which may differ from the raw call's
    # (coerced, defaulted, repaired by prepare_arguments): the policy judges what will run.
    policy = ToolPolicy([Rule(action="deny", args={"command": "rm *"})])
    reason = await reason_of(policy, args=Command(command=validated))  # raw: "rm -rf /"
    assert reason == ("Tool call 'bash' denied by policy (rule 0 (deny *))" if denied else None)
