"""Strict tools on real recordings (``../shared/conformance-next``, ``strict_tools_*``).

Each recorded request declared its tools with ``strict: true`` (and, in one Anthropic loop, a
non-strict tool beside them), and the vendor answered HTTP 200 (``future.request``:
``strict_tools``, ``non_strict_tools``, ``strict_tools_accepted``). The same tools, declared
with ``constrainedSampling: {"type": "json_schema", "strict": "require"}`` (the strict ones) and
sent to the recorded model (the catalog's), must come out of pi-sdk's request builder as the
recording sent them: the same names, ``strict`` where it was, and the same schemas. The replies
themselves are checked by the conformance suite (``test_conformance.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import pytest
from _support.conformance import Case, future_of, model_for, next_cases, skip_without_next
from pi_sdk_anthropic.messages import build_request as anthropic_body
from pi_sdk_bedrock.converse import build_request as bedrock_body
from pi_sdk_openai.completions import build_payload as chat_body
from pi_sdk_openai.responses import build_payload as responses_body

from pi_sdk import Context, StreamOptions, Tool, UserMessage
from pi_sdk._testing.replay import load_cassette

Declared = tuple[str, str, dict[str, Any], bool]
"""(name, description, schema, strict) of one tool as a request declares it."""


def _anthropic(tool: dict[str, Any]) -> Declared:
    # An object schema without "required" requires nothing: pi-ai 1.6 and pi-sdk send [].
    schema = {"required": [], **tool["input_schema"]}
    return tool["name"], tool["description"], schema, tool.get("strict") is True


def _chat(tool: dict[str, Any]) -> Declared:
    function = tool["function"]
    schema = function["parameters"]
    return function["name"], function["description"], schema, function.get("strict") is True


def _responses(tool: dict[str, Any]) -> Declared:
    return tool["name"], tool["description"], tool["parameters"], tool.get("strict") is True


def _bedrock(tool: dict[str, Any]) -> Declared:
    spec = tool["toolSpec"]
    return (
        spec["name"],
        spec.get("description", ""),
        spec["inputSchema"]["json"],
        bool(spec.get("strict")),
    )


def _tools_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], body.get("tools") or body["toolConfig"]["tools"])


APIS: dict[str, tuple[Callable[[dict[str, Any]], Declared], Callable[..., dict[str, Any]]]] = {
    "anthropic-messages": (_anthropic, anthropic_body),
    "openai-completions": (_chat, chat_body),
    "openai-responses": (_responses, responses_body),
    "bedrock-converse-stream": (_bedrock, bedrock_body),
}
CASES = [c for api in APIS for c in next_cases(api, "strict_tools_")]


def test_the_recordings_are_there() -> None:
    skip_without_next(CASES)
    assert {c.api for c in CASES} == set(APIS)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_tools_go_out_as_recorded(case: Case) -> None:
    interaction = load_cassette(case.cassette)[case.index]
    recorded_body = cast(dict[str, Any], interaction.body)
    read, build = APIS[case.api]
    recorded = [read(t) for t in _tools_of(recorded_body)]
    request = future_of(case)["request"]
    assert request["strict_tools_accepted"] is True
    assert [name for name, _, _, strict in recorded if strict] == request["strict_tools"]
    tools = [
        Tool(
            name=name,
            description=description,
            parameters=schema,
            constrained_sampling={"type": "json_schema", "strict": "require"} if strict else None,
        )
        for name, description, schema, strict in recorded
    ]
    model = model_for(case.api, interaction)
    if case.api == "openai-completions":  # a stand-in without the catalog's compat; OpenAI's
        model = model.model_copy(update={"compat": {"supportsStrictMode": True}})  # took it
    context = Context(messages=[UserMessage(content="(recorded tools)")], tools=tools)
    ours = [read(t) for t in _tools_of(build(model, context, StreamOptions(api_key="test-key")))]
    assert ours == recorded


@pytest.mark.parametrize("case", [c for c in CASES if c.index == 0], ids=lambda c: c.id)
def test_require_on_the_same_model_without_strict_support_is_refused(case: Case) -> None:
    interaction = load_cassette(case.cassette)[case.index]
    read, build = APIS[case.api]
    name, description, schema, _ = next(
        t for t in map(read, _tools_of(cast(dict[str, Any], interaction.body))) if t[3]
    )
    tool = Tool(
        name=name,
        description=description,
        parameters=schema,
        constrained_sampling={"type": "json_schema", "strict": "require"},
    )
    model = model_for(case.api, interaction)
    model = model.model_copy(update={"compat": {}})  # no flag: strict tools unsupported
    context = Context(messages=[UserMessage(content="(recorded tools)")], tools=[tool])
    with pytest.raises(Exception, match=rf"'{name}' on {model.provider}/{model.id}") as info:
        build(model, context, StreamOptions(api_key="test-key"))
    assert type(info.value).__name__ == "ConfigurationError"
