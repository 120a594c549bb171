"""Switching models on real recorded handoffs (``../shared/migration``, issue 18).

Every scenario there is a history one vendor produced, sent to **another** wire API, which
answered 200. For each one:

1. **the request**: the history (pi message JSON) goes through our adapter for the target; the
   body it sends is compared, part by part and text by text, with the body the vendor accepted.
   A difference is allowed only by a rule of :data:`RULES`, named per scenario in
   :data:`SCENARIO_RULES`, each with its reason; a rule listed for a scenario must change
   something there (no stale rules). Independently of the accepted body: no signature of another
   model is sent, every foreign thinking block became plain text, every tool call is paired with
   its result under an id valid for the target, and no server-tool block is sent.
2. **the reply**: the target's recorded reply is replayed through our adapter (vcrpy, the
   cassette answering our call); the final message must hold the reply's text, thinking and tool
   calls (read from the recorded JSON without our decoders) and keep pi-spec §2's event order.

What pydantic-ai sent is one shape the vendor accepted, not the only one (README of the folder):
the rules say where pi-mono's shape differs and why that is the shape we keep.

The folder absent: the module is skipped with one message; ``PI_SDK_MIGRATION_DIR`` set to a
missing folder: a collection error.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest
from _support.conformance import PROVIDER_PACKAGES, assert_valid_event_sequence, provider_for
from _support.handoffs import (
    HandoffRun,
    MigrationDirMissing,
    Part,
    Scenario,
    Turn,
    absent_reason,
    load_scenarios,
    migration_dir,
    reply_problems,
    request_view,
    run_handoff,
    structure,
    system_text,
)

from pi_sdk import Context, StreamOptions, TextContent, ThinkingContent, ToolCall, ToolResultMessage
from pi_sdk import Tool as PiTool

try:
    ROOT = migration_dir()
except MigrationDirMissing as exc:
    pytest.fail(str(exc), pytrace=False)
if ROOT is None:
    pytest.skip(absent_reason(), allow_module_level=True)

SCENARIOS = {scenario.name: scenario for scenario in load_scenarios(ROOT)}


# --- the rules ----------------------------------------------------------------------------------

View = list[Turn]
_TAGGED = re.compile(r"<(think|thinking)>\n?(.*?)\n?</\1>", re.DOTALL)


@dataclass(frozen=True)
class Rule:
    """One allowed difference between the accepted request and ours."""

    reason: str
    accepted: Callable[[View], View] | None = None
    """Rewrites the accepted body's view into the shape pi-mono's choice gives."""
    ours: Callable[[View], View] | None = None
    """Rewrites our view (for what is not content, such as cache markers)."""


def _is_foreign_thinking(part: Part) -> bool:
    """pydantic-ai's foreign thinking: a tagged text, or a native unsigned thinking part."""
    if part.kind == "thinking":
        return not part.signed
    return part.kind == "text" and _TAGGED.fullmatch(part.text) is not None


def _thinking_as_one_plain_text(view: View) -> View:
    turns: View = []
    for turn in view:
        parts: list[Part] = []
        run: list[str] = []
        for part in (*turn.parts, None):
            if part is not None and _is_foreign_thinking(part):
                run.append(_TAGGED.sub(r"\2", part.text))
                continue
            if run:
                parts.append(Part("text", "\n\n".join(run)))
                run = []
            if part is not None:
                text = _TAGGED.sub(r"\2", part.text) if part.kind == "text" else part.text
                parts.append(replace(part, text=text))
        turns.append(replace(turn, parts=tuple(parts)))
    return turns


def _ids_by_order(view: View) -> View:
    names: dict[str, str] = {}

    def rename(part: Part) -> Part:
        if part.id is None:
            return part
        return replace(part, id=names.setdefault(part.id, f"call#{len(names) + 1}"))

    return [replace(turn, parts=tuple(rename(p) for p in turn.parts)) for turn in view]


def _without_cache_markers(view: View) -> View:
    return [
        replace(
            turn,
            parts=tuple(replace(p, cached=False) for p in turn.parts if p.kind != "cache_point"),
        )
        for turn in view
    ]


RULES: dict[str, Rule] = {
    "foreign-thinking-as-one-plain-text": Rule(
        reason=(
            "another model's thinking block is sent as ONE plain text part, no tags, no thought"
            " flag, no native thinking chunk (pi-mono transform-messages: 'no tags to avoid the"
            " model mimicking them'; StreamOptions.foreign_reasoning='text'). pydantic-ai sent"
            " each reasoning summary as its own part wrapped in <thinking>/<think> tags"
            " (Anthropic, Bedrock, Responses, Chat), as thought: true parts (Gemini) or as a"
            " Mistral thinking chunk. Same words either way: the summaries joined by a blank"
            " line are the thinking text the history holds"
        ),
        accepted=_thinking_as_one_plain_text,
    ),
    "tool-call-ids-as-stored": Rule(
        reason=(
            "a tool call keeps the id the history stores (here the reconstruction's"
            " 'get_capital_1'; Gemini sends none) when it is valid for the target; pydantic-ai"
            " minted 'pyd_ai_<32 hex>'. Both are valid Chat Completions ids (<= 40 chars); what"
            " must agree is the pairing of each call with its result, which is compared"
        ),
        accepted=_ids_by_order,
        ours=_ids_by_order,
    ),
    "cache-markers": Rule(
        reason=(
            "our request marks prompt-cache breakpoints: Anthropic cache_control on the last"
            " user block (and the system prompt), Bedrock a cachePoint block after them (pi-mono:"
            " cacheRetention 'short' by default); pydantic-ai set none. Markers, not content:"
            " the vendor reads the same messages"
        ),
        ours=_without_cache_markers,
    ),
}

SCENARIO_RULES: dict[str, tuple[str, ...]] = {
    "anthropic-codeexec-to-google-gemini3flash": (),
    "anthropic-sonnet46-thinking-to-oairesp-gpt5": ("foreign-thinking-as-one-plain-text",),
    "anthropic-websearch-to-google-gemini20": (),
    "google-codeexec-to-anthropic-sonnet46": ("cache-markers",),
    "google-gemini20-tools-to-oaichat-gpt4omini": ("tool-call-ids-as-stored",),
    "oairesp-gpt5-reasoning-to-anthropic-sonnet4": (
        "foreign-thinking-as-one-plain-text",
        "cache-markers",
    ),
    "oairesp-gpt5-reasoning-to-bedrock-claude-sonnet4": (
        "foreign-thinking-as-one-plain-text",
        "cache-markers",
    ),
    "oairesp-gpt5-reasoning-to-google-gemini25pro": ("foreign-thinking-as-one-plain-text",),
    "oairesp-o3mini-reasoning-to-mistral-magistral": ("foreign-thinking-as-one-plain-text",),
    "oairesp-o3mini-reasoning-to-oaichat-o3mini": ("foreign-thinking-as-one-plain-text",),
}
"""Which rules each scenario needs (an unknown scenario needs none until it is listed)."""


# --- the inputs -----------------------------------------------------------------------------------


def _declared_tools(scenario: Scenario, context: Context) -> Context:
    """Add the function tools the recorded target request declared (Chat Completions shape)."""
    tools = [
        PiTool(
            name=tool["function"]["name"],
            description=tool["function"].get("description", ""),
            parameters=tool["function"]["parameters"],
        )
        for tool in scenario.accepted_request().get("tools", [])
        if tool.get("type") == "function"
    ]
    return context.model_copy(update={"tools": tools})


def _json_schema_types(scenario: Scenario, context: Context) -> Context:
    """Lower-case the Gemini ``Type`` enum names the reconstruction put into tool schemas."""
    del scenario
    tools = [
        tool.model_copy(update={"parameters": {**tool.parameters, "type": "object"}})
        if str(tool.parameters.get("type", "")).lower() == "object"
        else tool
        for tool in context.tools or []
    ]
    return context.model_copy(update={"tools": tools})


INPUT_RULES: dict[str, tuple[str, Callable[[Scenario, Context], Context]]] = {
    "declared-tools": (
        "the scenario's context leaves out the tool the recorded conversation declared"
        " (get_capital, in the recorded request's 'tools'); an agent continuing a tool"
        " conversation declares it. Without it we would send 'tools: []' (pi-mono, for proxies"
        " that need the key with tool history), which no recording covers",
        _declared_tools,
    ),
    "json-schema-types": (
        "the reconstruction copied Gemini's own schema spelling 'type': 'OBJECT' into a pi tool,"
        " whose parameters are JSON Schema ('object'); we send parametersJsonSchema and refuse a"
        " root that is not an object schema, as documented for that field",
        _json_schema_types,
    ),
}

SCENARIO_INPUTS: dict[str, tuple[str, ...]] = {
    "google-gemini20-tools-to-oaichat-gpt4omini": ("declared-tools",),
    "oairesp-gpt5-reasoning-to-google-gemini25pro": ("json-schema-types",),
}


def _recorded_thinking(api: str, body: dict[str, Any]) -> bool:
    """Whether the accepted request turned the target's thinking on (we then ask for it too)."""
    if api == "anthropic-messages":
        return body.get("thinking", {}).get("type") in ("enabled", "adaptive")
    if api == "bedrock-converse-stream":
        return "thinking" in body.get("additionalModelRequestFields", {})
    if api in ("google-generative-ai", "google-vertex"):
        # Reasoning off still sends a thinkingConfig where a model cannot turn thinking off
        # (Gemini 3: its lowest thinkingLevel, hidden), as pi-ai 0.73 does: "on" is shown thoughts.
        config = body.get("generationConfig", {}).get("thinkingConfig", {})
        return config.get("includeThoughts") is True
    if api == "openai-responses":
        return "reasoning" in body
    if api == "openai-completions":
        return "reasoning_effort" in body
    return body.get("prompt_mode") == "reasoning"


def _inputs(scenario: Scenario) -> tuple[Context, StreamOptions]:
    context = scenario.context()
    for name in SCENARIO_INPUTS.get(scenario.name, ()):
        before = context
        context = INPUT_RULES[name][1](scenario, context)
        assert context != before, f"input rule {name!r} changes nothing in {scenario.name}"
    thinking = _recorded_thinking(scenario.api, scenario.accepted_request())
    # The accepted requests carried foreign thinking as text (pi-ai 0.73; 1.6 drops it).
    return context, StreamOptions(
        reasoning="medium" if thinking else None, foreign_reasoning="text"
    )


# --- the checks -----------------------------------------------------------------------------------

TOOL_CALL_ID = {
    "anthropic-messages": re.compile(r"^[a-zA-Z0-9_-]{1,64}$"),
    "bedrock-converse-stream": re.compile(r"^[a-zA-Z0-9_-]{1,64}$"),
    "openai-completions": re.compile(r"^.{1,40}$"),
    "openai-responses": re.compile(r"^[a-zA-Z0-9_-]{1,64}$"),
    "mistral-conversations": re.compile(r"^[a-zA-Z0-9]{9}$"),
    "google-generative-ai": re.compile(r"^[a-zA-Z0-9_-]{1,64}$"),
    "google-vertex": re.compile(r"^[a-zA-Z0-9_-]{1,64}$"),
}
"""The tool-call id each target accepts (docs/migration.md); Gemini ids are optional."""

SERVER_TOOL_MARKERS = (
    "server_tool_use",
    "web_search_tool_result",
    "code_execution_tool_result",
    "executableCode",
    "codeExecutionResult",
    "srvtoolu_",
)


def _normalized(scenario: Scenario, accepted: View, ours: View) -> tuple[View, View, list[str]]:
    stale: list[str] = []
    for name in SCENARIO_RULES.get(scenario.name, ()):
        rule = RULES[name]
        before = (accepted, ours)
        if rule.accepted is not None:
            accepted = rule.accepted(accepted)
        if rule.ours is not None:
            ours = rule.ours(ours)
        if (accepted, ours) == before:
            stale.append(name)
    return accepted, ours, stale


def request_problems(scenario: Scenario, context: Context, payload: dict[str, Any]) -> list[str]:
    """Every way our body ``payload`` breaks the stated rules (empty: it conforms)."""
    problems: list[str] = []
    accepted = request_view(scenario.api, scenario.accepted_request())
    ours = request_view(scenario.api, payload)
    if [turn.role for turn in ours] != scenario.accepted_roles():
        problems.append(f"roles {[t.role for t in ours]} != accepted {scenario.accepted_roles()}")
    body = scenario.accepted_request()
    for what, read in (("system prompt", system_text), ("thinking on", _recorded_thinking)):
        if read(scenario.api, payload) != read(scenario.api, body):
            problems.append(
                f"{what}: {read(scenario.api, payload)!r} != accepted {read(scenario.api, body)!r}"
            )
    accepted, ours, stale = _normalized(scenario, accepted, ours)
    problems += [f"rule {name!r} changes nothing in this scenario" for name in stale]
    if structure(ours) != structure(accepted):
        problems.append(f"structure {structure(ours)} != accepted {structure(accepted)}")
    else:
        for n, (mine, theirs) in enumerate(zip(ours, accepted, strict=True)):
            for k, (a, b) in enumerate(zip(mine.parts, theirs.parts, strict=True)):
                if a != b:
                    problems.append(f"turn {n} part {k}: {a!r:.160} != accepted {b!r:.160}")
    return problems + _history_problems(
        scenario, context, payload, request_view(scenario.api, payload)
    )


def _history_problems(
    scenario: Scenario, context: Context, payload: dict[str, Any], ours: View
) -> list[str]:
    problems: list[str] = []
    sent = json.dumps(payload, ensure_ascii=False)
    texts = [p.text for turn in ours for p in turn.parts if p.kind == "text"]
    for message in context.messages:
        if getattr(message, "api", scenario.api) == scenario.api:
            continue  # (no scenario replays a same-API turn; its signatures may be kept)
        for block in getattr(message, "content", []):
            for signature in _signatures(block):
                if signature in sent or json.dumps(signature, ensure_ascii=False)[1:-1] in sent:
                    problems.append(f"a foreign signature is sent: {signature[:40]}...")
            if isinstance(block, ThinkingContent) and block.thinking.strip():
                if not any(block.thinking in text for text in texts):
                    problems.append(f"foreign thinking not sent as text: {block.thinking[:60]!r}")
    calls = [p.id for turn in ours for p in turn.parts if p.kind == "tool_call"]
    results = [p.id for turn in ours for p in turn.parts if p.kind == "tool_result"]
    if calls != results:
        problems.append(f"tool calls {calls} are not paired with results {results}")
    wanted = sum(isinstance(m, ToolResultMessage) for m in context.messages)
    if len(results) != wanted:
        problems.append(f"{len(results)} tool results sent, the history has {wanted}")
    pattern = TOOL_CALL_ID[scenario.api]
    problems += [
        f"tool-call id {i!r} is not valid here" for i in calls if i and not pattern.match(i)
    ]
    problems += [f"server-tool block sent: {m}" for m in SERVER_TOOL_MARKERS if m in sent]
    return problems


def _signatures(block: Any) -> list[str]:
    if isinstance(block, ThinkingContent):
        values = [block.thinking_signature]
    elif isinstance(block, TextContent):
        values = [block.text_signature]
    elif isinstance(block, ToolCall):
        values = [block.thought_signature]
    else:
        values = []
    return [v for v in values if v and len(v) >= 8]


# --- the tests ------------------------------------------------------------------------------------


async def _handoff(scenario: Scenario) -> tuple[Context, HandoffRun]:
    """The scenario's inputs and their run (skips when the target's package is missing)."""
    if provider_for(scenario.api) is None:
        package = PROVIDER_PACKAGES.get(scenario.api, f"a provider package for {scenario.api}")
        pytest.skip(f"API {scenario.api} not registered: install {package}")
    context, options = _inputs(scenario)
    return context, await run_handoff(scenario, context, options)


def test_the_folder_has_scenarios_and_every_rule_is_named_and_used() -> None:
    assert SCENARIOS, f"no *.scenario.json under {ROOT}"
    used = {name for names in SCENARIO_RULES.values() for name in names}
    assert used <= set(RULES), used - set(RULES)
    assert used == set(RULES), f"rules no scenario uses: {set(RULES) - used}"
    inputs = {name for names in SCENARIO_INPUTS.values() for name in names}
    assert inputs == set(INPUT_RULES)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
async def test_request_matches_the_accepted_one_by_the_rules(name: str) -> None:
    scenario = SCENARIOS[name]
    context, run = await _handoff(scenario)
    assert request_problems(scenario, context, run.payload) == []


@pytest.mark.parametrize("name", sorted(SCENARIOS))
async def test_the_recorded_reply_replays_into_the_final_message(name: str) -> None:
    scenario = SCENARIOS[name]
    _, run = await _handoff(scenario)
    assert assert_valid_event_sequence(run.events) is run.message
    assert reply_problems(scenario, run.message) == []


# --- the checks can fail --------------------------------------------------------------------------


def _scenario_with(predicate: Callable[[Scenario], bool]) -> Scenario:
    found = [s for s in SCENARIOS.values() if predicate(s) and provider_for(s.api) is not None]
    if not found:
        pytest.skip("no scenario of that kind in the folder")
    return found[0]


async def _payload(scenario: Scenario) -> tuple[Context, dict[str, Any]]:
    context, run = await _handoff(scenario)
    return context, run.payload


async def test_a_sent_foreign_signature_and_tagged_thinking_are_caught() -> None:
    scenario = _scenario_with(
        lambda s: s.api == "anthropic-messages" and "thinking" in str(s.data["context"])
    )
    context, payload = await _payload(scenario)
    thinking = next(
        b
        for m in context.messages
        for b in getattr(m, "content", [])
        if isinstance(b, ThinkingContent)
    )
    broken = copy.deepcopy(payload)
    assistant = next(m for m in broken["messages"] if m["role"] == "assistant")
    assistant["content"][0] = {
        "type": "thinking",
        "thinking": thinking.thinking,
        "signature": thinking.thinking_signature,
    }
    problems = request_problems(scenario, context, broken)
    assert any("foreign signature is sent" in p for p in problems), problems
    assert any("foreign thinking not sent as text" in p for p in problems), problems
    assert any("structure" in p for p in problems), problems


async def test_unpaired_or_invalid_tool_call_ids_are_caught() -> None:
    scenario = _scenario_with(
        lambda s: s.api == "openai-completions" and "toolCall" in str(s.data["context"])
    )
    context, payload = await _payload(scenario)
    broken = copy.deepcopy(payload)
    call = next(m for m in broken["messages"] if m.get("tool_calls"))["tool_calls"][0]
    call["id"] = "x" * 41
    problems = request_problems(scenario, context, broken)
    assert any("not paired" in p for p in problems), problems
    assert any("is not valid here" in p for p in problems), problems


async def test_a_changed_text_or_a_stale_rule_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = _scenario_with(
        lambda s: not SCENARIO_RULES.get(s.name) and s.api.startswith("google")
    )
    context, payload = await _payload(scenario)
    broken = copy.deepcopy(payload)
    broken["contents"][1]["parts"][0]["text"] += " (edited)"
    assert any("part 0" in p for p in request_problems(scenario, context, broken))
    monkeypatch.setitem(SCENARIO_RULES, scenario.name, ("tool-call-ids-as-stored",))
    problems = request_problems(scenario, context, payload)
    assert problems == ["rule 'tool-call-ids-as-stored' changes nothing in this scenario"]


async def test_a_reply_read_differently_is_caught() -> None:
    scenario = _scenario_with(lambda s: s.api == "anthropic-messages")
    message = (await _handoff(scenario))[1].message
    message.content = [b for b in message.content if not isinstance(b, TextContent)]
    assert any(p.startswith("text ") for p in reply_problems(scenario, message))
