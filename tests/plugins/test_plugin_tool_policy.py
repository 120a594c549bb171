"""pi-sdk-tool-policy: rule matching, configuration files, and the plugin in Agent runs."""

import asyncio
import json

import pi_sdk_tool_policy
import pytest
from pi_sdk_tool_policy import POLICY_ENV, Rule, ToolPolicy
from pydantic import BaseModel

from pi_sdk import (
    AbortController,
    Agent,
    AgentContext,
    AssistantMessage,
    BeforeToolCallContext,
    ConfigurationError,
    ToolCall,
    ToolResultMessage,
)
from pi_sdk.testing import ScriptedProvider, ScriptedReply

RM_RF = r"re:\brm\s+-rf\b"

# --- matching --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "name", "args", "matches"),
    [
        (Rule(action="deny"), "anything", {}, True),
        (Rule(action="deny", tool="write_*"), "write_file", {}, True),
        (Rule(action="deny", tool="write_*"), "read_file", {}, False),
        (Rule(action="deny", tool="re:^(bash|sh)$"), "sh", {}, True),
        (Rule(action="deny", tool="re:^(bash|sh)$"), "bash2", {}, False),
        (Rule(action="deny", args={"command": RM_RF}), "x", {"command": "rm -rf /"}, True),
        (Rule(action="deny", args={"command": RM_RF}), "x", {"command": "farm -rf"}, False),
        (Rule(action="deny", args={"path": "/etc/*"}), "x", {"path": "/etc/passwd"}, True),
        (Rule(action="deny", args={"path": "/etc/*"}), "x", {"path": "/home/etc/x"}, False),
        (Rule(action="deny", args={"path": "glob:*.py"}), "x", {"path": "a.py"}, True),
        (Rule(action="deny", args={"opts.mode": "w*"}), "x", {"opts": {"mode": "write"}}, True),
        (Rule(action="deny", args={"paths.1": "*.env"}), "x", {"paths": ["a", ".env"]}, True),
        (Rule(action="deny", args={"paths.5": "*"}), "x", {"paths": ["a"]}, False),
        (Rule(action="deny", args={"paths.1": "*"}), "x", {"paths": ["a"]}, False),
        (Rule(action="deny", args={"paths.0": "a"}), "x", {"paths": ["a"]}, True),
        (Rule(action="deny", args={"paths.x": "*"}), "x", {"paths": ["a"]}, False),
        (Rule(action="deny", args={"o": '{"a":2,"b":1}'}), "x", {"o": {"b": 1, "a": 2}}, True),
        (Rule(action="deny", args={"o": r're:^\["a",2\]$'}), "x", {"o": ["a", 2]}, True),
        (Rule(action="deny", args={"o.a": "re:^2$"}), "x", {"o": {"a": 2}}, True),
        (Rule(action="deny", args={"*": "re:^3$"}), "x", {"a": [1, [2, {"b": 3}]]}, True),
        (Rule(action="deny", args={"*": "re:^4$"}), "x", {"a": [1, [2, {"b": 3}]]}, False),
        (Rule(action="deny", args={"force": "true"}), "x", {"force": True}, True),
        (Rule(action="deny", args={"n": "re:^[0-9]{3,}$"}), "x", {"n": 1234}, True),
        (Rule(action="deny", args={"missing": "*"}), "x", {}, False),
        (Rule(action="deny", args={"*": "re:secret"}), "x", {"a": {"b": ["x", "my secret"]}}, True),
        (Rule(action="deny", args={"*": "re:secret"}), "x", {"a": "public"}, False),
        (Rule(action="deny", args={"a": "x", "b": "y"}), "t", {"a": "x", "b": "z"}, False),
    ],
)
def test_rule_matching(rule, name, args, matches):
    assert rule.matches(name, args) is matches


def test_annotation_rules_match_the_tools_own_hints_and_nothing_without_them():
    rule = Rule(action="ask", annotations={"destructiveHint": True})
    assert rule.matches("git_reset", {}, {"destructiveHint": True, "readOnlyHint": False})
    assert not rule.matches("git_log", {}, {"destructiveHint": False, "readOnlyHint": True})
    assert not rule.matches("bash", {}, None)  # a tool without annotations
    assert not rule.matches("other", {}, {"readOnlyHint": False})  # the hint is not there
    policy = ToolPolicy.from_dict(
        {"rules": [{"action": "deny", "annotations": {"openWorldHint": True}}]}
    )
    assert policy.decide("fetch", {}, {"openWorldHint": True}).action == "deny"
    assert policy.decide("fetch", {}, {"openWorldHint": False}).action == "allow"


def test_the_first_matching_rule_decides_and_the_default_applies_otherwise():
    policy = ToolPolicy(
        [
            Rule(action="allow", tool="bash", args={"command": "ls*"}),
            Rule(action="deny", tool="bash"),
        ],
        default="ask",
    )
    assert policy.decide("bash", {"command": "ls -la"}).action == "allow"
    decision = policy.decide("bash", {"command": "cat x"})
    assert (decision.action, decision.index) == ("deny", 1)
    assert decision.describe() == "rule 1 (deny bash)"
    assert policy.decide("read", {}).action == "ask"
    assert policy.decide("read", {}).rule is None


def test_bad_rules_are_rejected_clearly():
    with pytest.raises(ConfigurationError, match="unknown rule action 'block'"):
        Rule(action="block")
    with pytest.raises(ConfigurationError, match="invalid regular expression"):
        Rule(action="deny", args={"command": "re:(unclosed"})
    with pytest.raises(ConfigurationError, match="unknown default action"):
        ToolPolicy(default="maybe")


# --- configuration files ---------------------------------------------------------------------

TOML = r"""
default = "deny"

[[rules]]
action = "deny"
tool = "bash"
args = { command = 're:\brm\s+-rf\b' }
reason = "no recursive deletes"

[[rules]]
action = "ask"
tool = "bash"
args = { command = "sudo *" }

[[rules]]
action = "allow"
tool = "bash"
"""


def test_toml_and_json_files_describe_the_same_policy(tmp_path):
    import tomllib

    toml_file = tmp_path / "policy.toml"
    toml_file.write_text(TOML)
    json_file = tmp_path / "policy.json"
    json_file.write_text(json.dumps(tomllib.loads(TOML)))
    for file in (toml_file, json_file):
        policy = ToolPolicy.from_file(file)
        assert policy.default == "deny"
        assert [r.action for r in policy.rules] == ["deny", "ask", "allow"]
        assert policy.decide("bash", {"command": "rm -rf /"}).rule.reason == "no recursive deletes"
        assert policy.decide("bash", {"command": "sudo ls"}).action == "ask"
        assert policy.decide("bash", {"command": "ls"}).action == "allow"
        assert policy.decide("edit", {}).action == "deny"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("p.toml", "rules = [ { tool = 'x' } ]", r"p.toml: policy rule 0: missing 'action'"),
        ("p.toml", "[[rules]]\naction='deny'\ncolour='red'", "rule 0: unknown keys colour"),
        ("p.json", '{"rules": [{"action": "allow"}, {"action": "nope"}]}', "rule 1: unknown rule"),
        ("p.json", '{"rules": [{"action": "deny", "args": {"a": 1}}]}', "map argument paths"),
        ("p.json", '{"rules": [{"action": "ask", "annotations": [1]}]}', "map annotation names"),
        ("p.json", '{"rulez": []}', "unknown policy keys: rulez"),
        ("p.json", "[1, 2]", "must hold a table/object"),
        ("p.json", "{not json", "cannot read tool policy file"),
        ("p.yaml", "rules: []", "must end in .toml or .json"),
    ],
)
def test_bad_policy_files_name_the_file_and_the_problem(tmp_path, name, text, message):
    file = tmp_path / name
    file.write_text(text)
    with pytest.raises(ConfigurationError, match=message) as info:
        ToolPolicy.from_file(file)
    assert str(file) in str(info.value)


def test_the_file_suffix_is_read_in_any_case(tmp_path):
    upper = tmp_path / "POLICY.JSON"
    upper.write_text('{"default": "deny"}')
    toml = tmp_path / "policy.Toml"
    toml.write_text('default = "ask"')
    assert (ToolPolicy.from_file(upper).default, ToolPolicy.from_file(toml).default) == (
        "deny",
        "ask",
    )


def test_a_missing_policy_file_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigurationError, match="cannot read tool policy file"):
        ToolPolicy.from_file(tmp_path / "absent.toml")


# --- the plugin in Agent runs ----------------------------------------------------------------


@pytest.fixture
def policy_plugin(plugin_manager, monkeypatch):
    """The installed plugin module, registered into a fresh manager, with clean state."""
    monkeypatch.delenv(POLICY_ENV, raising=False)
    pi_sdk_tool_policy.reset()
    plugin_manager.register(pi_sdk_tool_policy, name="tool-policy")
    yield pi_sdk_tool_policy
    pi_sdk_tool_policy.reset()


async def _run(bash, *commands):
    provider = ScriptedProvider(
        [*(ScriptedReply.tool_call("bash", {"command": c}) for c in commands), "done"]
    )
    agent = Agent(model=provider.model, tools=[bash], tool_execution="sequential")
    await agent.prompt("go")
    results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    return [(r.is_error, r.content[0].text) for r in results], provider


async def test_policy_file_from_the_environment_in_an_agent_run(
    policy_plugin, bash, ran, tmp_path, monkeypatch
):
    file = tmp_path / "policy.toml"
    file.write_text(TOML)
    monkeypatch.setenv(POLICY_ENV, str(file))
    results, provider = await _run(bash, "rm -rf build", "ls", "sudo reboot")

    assert ran == ["ls"]
    assert results[0] == (
        True,
        "Tool call 'bash' denied by policy (rule 0 (deny bash)): no recursive deletes",
    )
    assert results[1] == (False, "ran ls")
    assert results[2][0] is True
    assert "needs approval (rule 1 (ask bash))" in results[2][1]
    assert "no approver is configured" in results[2][1]
    # the model read the denial
    assert provider.calls[1].messages[-1].content[0].text == results[0][1]


async def test_ask_rules_call_the_approver_with_the_request(policy_plugin, bash, ran):
    requests = []

    async def approver(request):
        requests.append((request.tool_name, dict(request.args), request.decision.index))
        await asyncio.sleep(0)
        if request.args["command"] == "sudo ls":
            return True
        if request.args["command"] == "sudo rm":
            return "the operator said no"
        return False

    policy_plugin.configure(
        ToolPolicy([Rule(action="ask", tool="bash", args={"command": "sudo *"})], approver=approver)
    )
    results, _ = await _run(bash, "sudo ls", "sudo rm", "sudo halt", "echo hi")

    assert ran == ["sudo ls", "echo hi"]
    assert [r[0] for r in results] == [False, True, True, False]
    assert results[1][1] == "the operator said no"
    assert "approval was refused" in results[2][1]
    assert requests == [
        ("bash", {"command": "sudo ls"}, 0),
        ("bash", {"command": "sudo rm"}, 0),
        ("bash", {"command": "sudo halt"}, 0),
    ]


async def test_an_abort_while_waiting_for_approval_denies_the_call():
    started = asyncio.Event()

    async def never_answers(request):
        started.set()
        await asyncio.Event().wait()

    policy = ToolPolicy([Rule(action="ask")], approver=never_answers)
    call = ToolCall(id="c1", name="bash", arguments={"command": "ls"})
    context = BeforeToolCallContext(
        assistant_message=AssistantMessage(api="a", provider="p", model="m", content=[call]),
        tool_call=call,
        args=call.arguments,
        context=AgentContext(),
    )
    controller = AbortController()
    pending = asyncio.ensure_future(policy.before_tool_call(context, controller.signal))
    # the approver is asked (bounded: a policy that answers without asking fails, not hangs)
    await asyncio.wait({pending, asyncio.ensure_future(started.wait())}, timeout=10,
                       return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
    assert started.is_set() and not pending.done()
    controller.abort()
    answer = await asyncio.wait_for(pending, 10)
    assert answer.block and "the run was aborted" in answer.reason


async def test_a_broken_policy_file_blocks_every_call_naming_the_file(
    policy_plugin, bash, ran, tmp_path, monkeypatch
):
    file = tmp_path / "policy.toml"
    file.write_text("[[rules]]\naction = 'permit'\n")
    monkeypatch.setenv(POLICY_ENV, str(file))
    results, _ = await _run(bash, "ls")
    assert ran == []
    assert results[0][0] is True
    assert "'tool-policy'" in results[0][1] and str(file) in results[0][1]


async def test_no_policy_means_every_call_runs(policy_plugin, bash, ran):
    results, _ = await _run(bash, "ls", "rm -rf /")
    assert ran == ["ls", "rm -rf /"]
    assert all(not error for error, _ in results)


async def test_a_policy_works_as_an_agent_callback_without_the_plugin(plugin_manager, bash, ran):
    class Args(BaseModel):
        command: str

    policy = ToolPolicy([Rule(action="deny", args={"command": "rm *"})])
    provider = ScriptedProvider(
        [
            ScriptedReply.tool_call("bash", {"command": "rm x"}),
            ScriptedReply.tool_call("bash", {"command": "ls"}),
            "done",
        ]
    )
    agent = Agent(model=provider.model, tools=[bash], before_tool_call=policy.before_tool_call)
    await agent.prompt("go")
    assert ran == ["ls"]
    # validated arguments of @tool functions are pydantic models: matched through model_dump
    assert policy.decide("bash", Args(command="rm y").model_dump()).action == "deny"
