"""System messages on the wire, per API, as pi-ai 1.6 sends them (issue 27, item 1).

Every provider reads its context through :class:`pi_sdk.provider.ContextParts`: a model that
takes system messages mid-conversation (``supportsMidConvoSystemMessages``) gets each later one
in place, so a prompt or tool change keeps the cached prefix (Anthropic: ``system`` messages
held until the next assistant turn, native ``tool_addition``/``tool_removal`` blocks with a
deferred placeholder tool; Chat Completions: ``system`` messages, Kimi's tool messages;
Responses: ``developer`` messages and ``additional_tools`` items); every other model gets one
leading prompt and the current tools. The shapes are checked here by hand, and where Node 22
and pi 1.6 are installed, against the bodies pi-ai 1.6 builds for the same contexts
(``tests/node/pi16_system_payloads.mjs``), on the parts this concerns: messages, prompt and tools.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.node22 import needs_pi16, run_mjs
from pi_sdk_anthropic.messages import build_request
from pi_sdk_bedrock.converse._request import build_request as bedrock_request
from pi_sdk_google._shared_request import build_request as google_request
from pi_sdk_mistral.conversations._request import build_request as mistral_request
from pi_sdk_openai.completions import build_payload as completions_payload
from pi_sdk_openai.responses import build_payload as responses_payload

import pi_sdk
from pi_sdk import Context, Model, StreamOptions


def tool(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"tool {name}",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
    }


TRANSCRIPT: dict[str, Any] = {
    "messages": [
        {
            "role": "system",
            "content": "Base prompt.",
            "sections": {"rules": "<rules>be kind</rules>"},
            "toolsAdded": [tool("a"), tool("b")],
            "timestamp": 0,
        },
        {"role": "user", "content": "hi", "timestamp": 1},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "hello"}],
            "api": "x",
            "provider": "x",
            "model": "x",
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2},
            "stopReason": "stop",
            "timestamp": 2,
        },
        {
            "role": "system",
            "content": "Now be terse.",
            "sections": {"rules": None},
            "toolsAdded": [tool("c")],
            "toolsRemoved": [{"name": "a"}],
            "timestamp": 3,
        },
        {"role": "user", "content": "again", "timestamp": 4},
    ]
}
COLLAPSED_PROMPT = "Base prompt.\n\nNow be terse."
UPDATE = 'Now be terse.\n\nRemoved system prompt section "rules".'


def model(provider: str, model_id: str, **compat: Any) -> Model:
    found = pi_sdk.get_model(provider, model_id)
    return found.model_copy(update={"compat": {**(found.compat or {}), **compat}})


def context() -> Context:
    return Context.model_validate(TRANSCRIPT)


def names(tools: list[dict[str, Any]] | None) -> list[str]:
    return [t.get("name") or t.get("function", {}).get("name") for t in tools or []]


# --- Anthropic -------------------------------------------------------------------------------


def anthropic_view(body: dict[str, Any]) -> dict[str, Any]:
    def block(b: dict[str, Any]) -> Any:
        if b["type"] == "text":
            return b["text"]
        if b["type"] == "tool_removal":
            return ("removal", b["tool"]["name"])
        if b["type"] == "tool_addition":
            return ("addition", b["tool"]["definition"]["name"])
        return b["type"]

    return {
        "system": [b["text"] for b in body.get("system", [])],
        "messages": [
            (
                m["role"],
                m["content"] if isinstance(m["content"], str) else [block(b) for b in m["content"]],
            )
            for m in body["messages"]
            if "output_config" not in m  # an effort marker (supportsMidConvoEffort), not ours
        ],
        "tools": names(body.get("tools")),
    }


def test_anthropic_sends_system_messages_and_tool_changes_in_place() -> None:
    target = model("anthropic", "claude-opus-5")
    body = build_request(target, context(), StreamOptions())
    view = anthropic_view(body)
    assert view["system"] == ["Base prompt.\n\n<rules>be kind</rules>"]
    assert view["tools"] == ["a", "b", "__pi_deferred_placeholder__"]
    assert body["tools"][-1]["defer_loading"] is True
    assert view["messages"] == [
        ("user", "hi"),
        ("assistant", ["hello"]),
        ("user", "again"),
        ("system", [UPDATE, ("removal", "a"), ("addition", "c")]),
    ]


def test_anthropic_collapses_for_a_model_without_mid_conversation_system_messages() -> None:
    target = model("anthropic", "claude-sonnet-4-5")
    view = anthropic_view(build_request(target, context(), StreamOptions()))
    assert view["system"] == [COLLAPSED_PROMPT]
    assert view["tools"] == ["b", "c"]
    assert [role for role, _ in view["messages"]] == ["user", "assistant", "user"]


def test_anthropic_asks_for_the_inline_tools_beta_only_with_native_changes() -> None:
    from pi_sdk_anthropic.messages._system import INLINE_TOOLS_BETA, native_tool_changes

    assert native_tool_changes(model("anthropic", "claude-opus-5"), context())
    assert not native_tool_changes(model("anthropic", "claude-sonnet-4-5"), context())
    lead = pi_sdk.SystemMessage(content="p")
    no_tools = Context(messages=[lead, pi_sdk.UserMessage(content="x")])
    assert not native_tool_changes(model("anthropic", "claude-opus-5"), no_tools)
    assert INLINE_TOOLS_BETA == "inline-tools-2026-09-15"


@pytest.mark.parametrize(
    ("system_messages", "tool_changes", "native"),
    [(None, None, False), (True, None, False), (None, True, False), (False, True, False),
     (True, False, False), (True, True, True)],
)  # fmt: skip
def test_anthropic_tool_changes_are_native_only_with_both_flags_true(
    system_messages: bool | None, tool_changes: bool | None, native: bool
) -> None:
    from pi_sdk_anthropic.messages._system import native_tool_changes

    flags = {"supportsMidConvoSystemMessages": system_messages,
             "supportsMidConvoToolChanges": tool_changes}  # fmt: skip
    base = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")
    target = base.model_copy(update={"compat": {k: v for k, v in flags.items() if v is not None}})
    assert native_tool_changes(target, context()) is native


@pytest.mark.parametrize("flag", ["supportsMidConvoSystemMessages", "supportsMidConvoToolChanges"])
def test_anthropic_refuses_a_tool_change_flag_that_is_not_true_or_false(flag: str) -> None:
    from pi_sdk_anthropic.messages._system import native_tool_changes

    target = model("anthropic", "claude-opus-5", **{flag: "yes"})
    with pytest.raises(pi_sdk.ConfigurationError, match=f"{flag} must be true or false"):
        native_tool_changes(target, context())


# --- Chat Completions ------------------------------------------------------------------------


def completions_view(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "messages": [
            (m["role"], names(m["tools"]) if "tools" in m else m.get("content"))
            for m in body["messages"]
        ],
        "tools": names(body.get("tools")),
    }


def test_completions_in_place_with_kimi_tool_messages() -> None:
    target = model(
        "moonshotai",
        "kimi-k3",
        supportsMidConvoSystemMessages=True,
        supportsMidConvoToolAdditions=True,
    )
    view = completions_view(completions_payload(target, context(), StreamOptions()))
    role = view["messages"][0][0]  # the server's instruction role (Moonshot: system)
    assert role in ("system", "developer")
    # A removal cannot be said in place: the request's tools are the state after it.
    assert view["tools"] == ["b", "c"]
    assert view["messages"][0] == (role, "Base prompt.\n\n<rules>be kind</rules>")
    assert view["messages"][3] == (role, UPDATE)
    assert [r for r, _ in view["messages"]] == [role, "user", "assistant", role, "user"]


def test_completions_additions_only_go_in_place() -> None:
    ctx = context()
    added_only = ctx.model_copy(
        update={
            "messages": [
                *ctx.messages[:3],
                pi_sdk.SystemMessage(tools_added=[pi_sdk.Tool.model_validate(tool("c"))]),
                *ctx.messages[4:],
            ]
        }
    )
    target = model(
        "moonshotai",
        "kimi-k3",
        supportsMidConvoSystemMessages=True,
        supportsMidConvoToolAdditions=True,
    )
    view = completions_view(completions_payload(target, added_only, StreamOptions()))
    assert view["tools"] == ["a", "b"]
    assert ("system", ["c"]) in view["messages"]


def test_completions_collapse_by_default() -> None:
    target = model("openai", "gpt-4o")
    view = completions_view(completions_payload(target, context(), StreamOptions()))
    assert view["tools"] == ["b", "c"]
    assert view["messages"][0] == ("system", COLLAPSED_PROMPT)
    assert [r for r, _ in view["messages"]] == ["system", "user", "assistant", "user"]


# --- Responses -------------------------------------------------------------------------------


def responses_view(body: dict[str, Any]) -> dict[str, Any]:
    def item(i: dict[str, Any]) -> Any:
        if i.get("type") == "additional_tools":
            return ("additional_tools", names(i["tools"]))
        content = i.get("content")
        if isinstance(content, list):  # text parts (an assistant's text: a string or parts)
            texts = [c.get("text") for c in content]
            content = texts[0] if i.get("role") == "assistant" and len(texts) == 1 else texts
        return (i.get("role") or i.get("type"), content)

    return {"input": [item(i) for i in body["input"]], "tools": names(body.get("tools"))}


def test_responses_declares_every_tool_in_additional_tools_items() -> None:
    target = model("github-copilot", "gpt-6-sol")
    view = responses_view(responses_payload(target, context(), StreamOptions()))
    assert view["tools"] == []
    notice = "This is an incremental tools update."
    removal = "The following tools are no longer available. Do not call them:\n- a"
    items = view["input"]
    assert items[0] == ("additional_tools", ["a", "b"])
    assert items[1] == ("developer", "Base prompt.\n\n<rules>be kind</rules>")
    assert items[4][0] == "developer" and items[4][1].startswith(notice)
    assert items[5] == ("additional_tools", ["c"])
    assert items[6] == ("developer", f"{UPDATE}\n\n{removal}")


def test_responses_collapse_by_default() -> None:
    view = responses_view(responses_payload(model("openai", "gpt-4o"), context(), StreamOptions()))
    assert view["tools"] == ["b", "c"]
    assert view["input"][0] == ("system", COLLAPSED_PROMPT)
    assert len(view["input"]) == 4


# --- the APIs without mid-conversation system messages ---------------------------------------


def test_gemini_bedrock_and_mistral_replay_every_system_message_into_the_prompt() -> None:
    gemini = google_request(model("google", "gemini-2.5-flash"), context(), StreamOptions())
    assert gemini["systemInstruction"]["parts"][0]["text"] == COLLAPSED_PROMPT
    declared = gemini["tools"][0]["functionDeclarations"]
    assert [d["name"] for d in declared] == ["b", "c"]
    assert [c["role"] for c in gemini["contents"]] == ["user", "model", "user"]

    bedrock = bedrock_request(
        model("amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0"),
        context(),
        StreamOptions(),
    )
    assert bedrock["system"][0]["text"] == COLLAPSED_PROMPT
    assert [t["toolSpec"]["name"] for t in bedrock["toolConfig"]["tools"]] == ["b", "c"]

    mistral = mistral_request(model("mistral", "mistral-large-latest"), context(), StreamOptions())
    assert mistral["messages"][0] == {"role": "system", "content": COLLAPSED_PROMPT}
    assert names(mistral["tools"]) == ["b", "c"]
    assert [m["role"] for m in mistral["messages"]] == ["system", "user", "assistant", "user"]


def test_the_shorthand_still_reads_as_before() -> None:
    ctx = Context(
        system_prompt="Be brief.",
        tools=[pi_sdk.Tool.model_validate(tool("a"))],
        messages=[pi_sdk.UserMessage(content="hi")],
    )
    view = completions_view(completions_payload(model("openai", "gpt-4o"), ctx, StreamOptions()))
    assert view == {"messages": [("system", "Be brief."), ("user", "hi")], "tools": ["a"]}


# --- against pi 1.6 --------------------------------------------------------------------------

ANTHROPIC = (anthropic_view, build_request)
RESPONSES = (responses_view, responses_payload)
COMPLETIONS = (completions_view, completions_payload)
"""Each wire API's (view of a body, body builder)."""
CASES = [
    (ANTHROPIC, "anthropic", "claude-opus-5"),
    (ANTHROPIC, "anthropic", "claude-sonnet-4-5"),
    (RESPONSES, "github-copilot", "gpt-6-sol"),
    (RESPONSES, "openai", "gpt-4o"),
    (COMPLETIONS, "deepseek", "deepseek-v4-pro"),
    (COMPLETIONS, "openai", "gpt-4o-mini"),
]


@needs_pi16
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[1]}/{c[2]}/{c[0][0].__name__}")
def test_the_same_as_pi_1_6_sends(case: Any) -> None:
    (view, build), provider, model_id = case
    target = model(provider, model_id)
    if view is completions_view:
        target = target.model_copy(update={"api": "openai-completions"})
        if target.provider == "deepseek":
            target = target.model_copy(
                update={"compat": {**(target.compat or {}), "supportsMidConvoSystemMessages": True}}
            )
    [pi] = run_mjs(
        "pi16_system_payloads.mjs",
        stdin=[{"model": target.model_dump(mode="json"), "context": TRANSCRIPT}],
    )
    assert "error" not in pi, pi
    assert view(build(target, context(), StreamOptions())) == view(pi)
