"""A session that migrates Anthropic → OpenAI Responses → Gemini → an OpenAI-compatible server →
Amazon Bedrock → Mistral → Azure OpenAI Responses.

Replayed offline with the project's own pytest plugin (``pi_vcr``, ``match_body=True``): every
request the adapters send after converting the history must equal the recorded one (a mismatch
fails with the first differing JSON path), and the recorded bodies are checked below for what the
conversion must guarantee. The scenario is ``tests/_support/migration.py``; the cassette was
written by ``scripts/make_migration_cassette.py`` (rerun it after a deliberate change to what
the adapters send, and review the diff).

Each hop's first request (the one after other vendors' turns) is checked by the rules of its
wire API (:data:`FIRST_REQUEST_RULES`); each hop's own turn back by the facts of the scripted run.

**Real recorded replies.** The scripted vendor replies are stand-ins. Where ``../shared/migration``
(issue 18; real recordings, pydantic-ai's cassettes) holds a reply of the hop's wire API, the
hop is also run a second way: the history our session has at that hop goes through our adapter
to the recorded model, the vendor's real reply is served by the recording (vcrpy, as the
handoff suite does) and read into the final message; then the next hop's first request is built
from that history with the real reply in it and must keep the next vendor's rules and carry the
reply. Skipped with one message when the shared folder is absent.

=====  ===================================  =============================================  =========
hop    wire API (our model)                 served by                                      next hop
=====  ===================================  =============================================  =========
1      Anthropic (claude-sonnet-4-5)        scripted; **real** (two):                      Responses
                                            ``oairesp-gpt5-reasoning-to-anthropic-sonnet4``
                                            (claude-sonnet-4-0), ``google-codeexec-to-
                                            anthropic-sonnet46`` (recorded after another
                                            vendor; here the hop opens the session)
2      OpenAI Responses (gpt-5)             scripted; **real**: ``anthropic-sonnet46-      Gemini
                                            thinking-to-oairesp-gpt5`` (gpt-5)
3      Gemini (gemini-2.5-flash)            scripted; **real** (three): ``oairesp-gpt5-    Chat
                                            reasoning-to-google-gemini25pro``,
                                            ``anthropic-websearch-to-google-gemini20``,
                                            ``anthropic-codeexec-to-google-gemini3flash``
                                            (its request carries the placeholder
                                            signature on our unsigned calls)
4      Chat Completions (DeepSeek, after    scripted; **real** (two): ``google-gemini20-   Bedrock
       the session file)                    tools-to-oaichat-gpt4omini`` (a tool call,
                                            left unanswered), ``oairesp-o3mini-reasoning-
                                            to-oaichat-o3mini`` (OpenAI's own models)
5      Bedrock ConverseStream (Claude 4.5)  scripted; **real**: ``oairesp-gpt5-reasoning-  Mistral
                                            to-bedrock-claude-sonnet4`` (Claude Sonnet 4,
                                            one-shot ``/converse``)
6      Mistral (magistral-medium-latest)    scripted; **real**: ``oairesp-o3mini-          Azure
                                            reasoning-to-mistral-magistral``
7      Azure OpenAI Responses (deployment)  scripted only (no recording of Azure)          (end)
=====  ===================================  =============================================  =========

:data:`RECORDED_HOPS` holds the same table, and a test checks that it lists every recording
of a hop's wire API in the folder.

Each hop's second request (the turn after its tool result) and the session file stay on the
scripted cassette: no recording continues one of our tool calls.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from _support.conformance import assert_valid_event_sequence
from _support.handoffs import (
    HandoffRun,
    MigrationDirMissing,
    Scenario,
    absent_reason,
    build_request,
    load_scenarios,
    migration_dir,
    reply_problems,
    run_handoff,
)
from _support.migration import (
    AZURE_DEPLOYMENT_URL,
    CASSETTE_NAME,
    ISOLATED_ENV,
    PROMPTS,
    SYSTEM_PROMPT,
    WEATHER,
    MigrationRun,
    as_json,
    get_weather,
    models,
    run_migration,
)
from pi_sdk_pytest import CassetteSession

from pi_sdk import (
    AssistantMessage,
    Context,
    Model,
    StreamOptions,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

pytestmark = pytest.mark.pi_vcr(name=CASSETTE_NAME, match_body=True)

CITIES = ("Paris", "Rome", "Berlin", "Vienna", "Lisbon", "Madrid", "Oslo", "Athens", "Dublin")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A region, endpoint or api-version from the environment would send a hop elsewhere."""
    for name in ISOLATED_ENV:
        monkeypatch.delenv(name, raising=False)


def _assistant(run_messages: list[Any], api: str) -> list[AssistantMessage]:
    return [m for m in run_messages if isinstance(m, AssistantMessage) and m.api == api]


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


async def test_migration_session_replays_through_seven_adapters(
    tmp_path: Path, pi_cassette: CassetteSession
) -> None:
    run = await run_migration(tmp_path)
    bodies = pi_cassette.recorded_json_bodies()
    assert len(bodies) == 14
    messages = list(run.agent.messages)

    # Every turn ended normally and the tools ran with the model's arguments.
    finals = [m for m in messages if isinstance(m, AssistantMessage)]
    assert [m.stop_reason for m in finals] == ["toolUse", "stop"] * 7
    assert [m.api for m in finals[::2]] == [
        "anthropic-messages",
        "openai-responses",
        "google-generative-ai",
        "openai-completions",
        "bedrock-converse-stream",
        "mistral-conversations",
        "azure-openai-responses",
    ]
    results = [m for m in messages if isinstance(m, ToolResultMessage)]
    assert [r.content[0].text for r in results] == [  # type: ignore[union-attr]
        f"{city}: {WEATHER[city]}" for city in CITIES
    ]
    assert "Lisbon is warmest" in finals[7].text
    assert "Oslo is coldest" in finals[-1].text

    # The stored transcript is never rewritten by the conversions: what each provider produced
    # is still there, byte for byte, after three more providers read it.
    for earlier in run.transcripts[:-1]:
        assert as_json(messages[: len(earlier)]) == earlier
    anthropic_turn, responses_turn, gemini_turn = finals[0], finals[2], finals[4]
    signature = anthropic_turn.content[0]
    assert isinstance(signature, ThinkingContent) and signature.thinking_signature
    (responses_call,) = responses_turn.tool_calls
    assert re.fullmatch(r"call_\w+\|fc_\w+", responses_call.id)
    assert [c.id for c in gemini_turn.tool_calls] == [
        "gemini_call_mIgR4tIoNgEmInI1_1",
        "gemini_call_mIgR4tIoNgEmInI1_2",
    ]
    origins = {m.api: m.signature_origin for m in finals}
    assert origins["anthropic-messages"] == "anthropic-messages@https://api.anthropic.com"
    assert origins["openai-completions"] == "openai-completions@https://api.deepseek.com"

    # -- Anthropic → Anthropic (request 1): own thinking replayed signed.
    anthropic_history = bodies[1]["messages"][1]["content"]
    assert anthropic_history[0] == {
        "type": "thinking",
        "thinking": signature.thinking,
        "signature": signature.thinking_signature,
    }

    # -- Anthropic → Responses (request 2): no foreign thinking, signature or reasoning.
    _first_responses(bodies[2], _history_at(run, 1), models()[1])
    assert signature.thinking not in _dump(bodies[2])

    # -- Responses → Responses (request 3): the encrypted reasoning item and the fc_ item id.
    items = bodies[3]["input"]
    reasoning = [item for item in items if item.get("type") == "reasoning"]
    assert len(reasoning) == 1 and reasoning[0]["encrypted_content"].startswith("gAAAAAB")
    (call_item,) = [i for i in items if i.get("type") == "function_call" and i.get("id")]
    call_id, item_id = responses_call.id.split("|")
    assert (call_item["call_id"], call_item["id"]) == (call_id, item_id)

    # -- → Gemini (request 4): no foreign signature, reasoning item or pipe id reaches Gemini.
    _first_gemini(bodies[4], _history_at(run, 2), models()[2])
    assert "|" not in _dump(bodies[4])

    # -- Gemini → Gemini (request 5): its own thought and signature on the first call.
    own_turn = bodies[5]["contents"][-2]
    assert own_turn["parts"][0]["thought"] is True
    first_call, second_call = own_turn["parts"][1:]
    assert first_call["thoughtSignature"] == gemini_turn.tool_calls[0].thought_signature
    assert "thoughtSignature" not in second_call
    assert [p["functionResponse"]["response"] for p in bodies[5]["contents"][-1]["parts"]] == [
        {"output": f"{city}: {WEATHER[city]}"} for city in ("Berlin", "Vienna")
    ]

    # -- → the chat server (request 6, from the reloaded session): ids ≤ 40 chars, distinct and
    #    paired with their results; reasoning_content on every assistant tool-call message.
    ids = _first_chat(bodies[6], _history_at(run, 3), models()[3])
    assert len(ids) == 4 and all(re.fullmatch(r"[\w-]+", i) for i in ids)
    assert not any(k in _dump(bodies[6]) for k in ("signature", "encrypted_content", "thought"))

    # -- chat server → itself (request 7): its own reasoning_content replayed.
    own = [m for m in bodies[7]["messages"] if m["role"] == "assistant"][-1]
    assert own["reasoning_content"] == finals[6].content[0].thinking  # type: ignore[union-attr]
    assert own["tool_calls"][0]["id"] == finals[6].tool_calls[0].id


async def test_session_written_mid_migration_loads_back_equal_and_continues(
    tmp_path: Path, pi_cassette: CassetteSession
) -> None:
    run = await run_migration(tmp_path)
    assert run.loaded.messages == run.saved
    assert as_json(run.loaded.messages) == as_json(run.saved)
    assert run.loaded.metadata == {"model": {"provider": "google", "id": "gemini-2.5-flash"}}
    # Opaque fields survived the file: Anthropic signature, Responses reasoning item and ids,
    # Gemini thought signature, signature origins.
    saved_text = run.session_path.read_text(encoding="utf-8")
    for message in run.saved:
        if isinstance(message, AssistantMessage):
            assert message.signature_origin and message.signature_origin in saved_text
            for block in message.content:
                opaque = (
                    block.thinking_signature
                    if isinstance(block, ThinkingContent)
                    else block.thought_signature
                    if isinstance(block, ToolCall)
                    else block.text_signature
                )
                if opaque:
                    assert json.dumps(opaque)[1:-1] in saved_text
    # The resumed agent started from exactly the loaded transcript and continued on the chat
    # server (its requests matched the recording, which match_body checks).
    resumed = list(run.agent.messages)
    assert resumed[: len(run.saved)] == run.saved
    assert [m.api for m in resumed[len(run.saved) :] if isinstance(m, AssistantMessage)] == [
        model.api for model in models()[3:] for _ in range(2)
    ]


def _thinking(message: AssistantMessage) -> ThinkingContent:
    block = message.content[0]
    assert isinstance(block, ThinkingContent)
    return block


def _history_at(run: MigrationRun, hop: int) -> list[Any]:
    """What hop ``hop`` (0-based, :func:`models` order) sends first: the history, its prompt."""
    done = len(run.transcripts[hop - 1]) if hop else 0
    return list(run.agent.messages)[: done + 1]


# --- the first request of each hop: what every vendor's request after other vendors obeys ------


def _keys(value: Any) -> set[str]:
    """Every JSON object key anywhere in ``value``."""
    if isinstance(value, dict):
        return set(value).union(*(_keys(v) for v in value.values()))  # pyright: ignore
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value))  # pyright: ignore
    return set()


def _opaque(history: list[Any]) -> list[str]:
    """The vendor signatures the history's replies hold: thinking and thought signatures, a
    Responses item's ``encrypted_content`` (else its id), a text signature's id."""
    values: list[str] = []
    for message in history:
        for block in message.content if isinstance(message, AssistantMessage) else ():
            value = (
                block.thinking_signature
                if isinstance(block, ThinkingContent)
                else block.thought_signature
                if isinstance(block, ToolCall)
                else getattr(block, "text_signature", None)
            )
            if value and value.startswith("{"):
                item = json.loads(value)
                value = item.get("encrypted_content") or item.get("id")
            if value and len(value) >= 8:
                values.append(value)
    return values


def _no_foreign_data(body: Any, history: list[Any], keys: tuple[str, ...]) -> None:
    """No signature of another model and none of the vendor ``keys``; its thinking left out
    (pi-ai 1.6's default, ``foreign_reasoning="drop"``)."""
    text = _dump(body)
    assert not [value[:40] for value in _opaque(history) if value in text]
    assert not _keys(body) & set(keys)
    for message in history:
        for block in message.content if isinstance(message, AssistantMessage) else ():
            if isinstance(block, ThinkingContent) and block.thinking.strip():
                assert _dump(block.thinking)[1:-1] not in text, block.thinking[:60]


def _responses_calls(body: Any, own_item_ids: list[str]) -> None:
    """Each function_call answered by its output, plain call ids, fc_ item ids only for our own."""
    items = body["input"]
    calls = [i for i in items if i.get("type") == "function_call"]
    outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
    assert [c["call_id"] for c in calls] == outputs and len(set(outputs)) == len(outputs)
    assert all("|" not in c for c in outputs)
    assert [c.get("id") for c in calls if "id" in c] == own_item_ids


def _first_responses(body: Any, history: list[Any], model: Model) -> None:
    """Responses after other vendors: no foreign thinking, signature or reasoning item."""
    del model
    _no_foreign_data(body, history, ("signature", "thoughtSignature"))
    _responses_calls(body, [])
    assert not any(item.get("type") == "reasoning" for item in body["input"])


GEMINI_PLACEHOLDER = base64.b64encode(b"skip_thought_signature_validator").decode()
"""The documented ``thoughtSignature`` of a call Gemini did not make (docs/migration.md)."""


def _first_gemini(body: Any, history: list[Any], model: Model) -> None:
    """Gemini after other vendors: no signature, reasoning item, thought part or pipe id; the one
    ``thoughtSignature`` allowed is the placeholder, on a function call, for Gemini 3 and later."""
    parts = [part for content in body["contents"] for part in content["parts"]]
    placed = [part for part in parts if "thoughtSignature" in part]
    assert all("functionCall" in p and p["thoughtSignature"] == GEMINI_PLACEHOLDER for p in placed)
    assert not placed or not model.id.startswith(("gemini-1", "gemini-2"))

    def unsigned(part: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in part.items() if k != "thoughtSignature"}

    contents = [{**c, "parts": [unsigned(p) for p in c["parts"]]} for c in body["contents"]]
    clean = {**body, "contents": contents}
    _no_foreign_data(clean, history, ("thoughtSignature", "encrypted_content", "signature"))
    assert not [value for value in _opaque(history) if value in _dump(body)]
    assert not any(part.get("thought") for part in parts)
    ids = [
        part[key].get("id") or ""
        for part in parts for key in ("functionCall", "functionResponse") if key in part
    ]  # fmt: skip
    assert not any("|" in i for i in ids)


def _first_chat(body: Any, history: list[Any], model: Model) -> list[str]:
    """Chat Completions after other vendors: ids ≤ 40 chars, distinct and paired with their
    results; ``reasoning_content`` on every assistant tool-call message where the server requires
    it (``compat.requiresReasoningContent``; empty for another model's, pi-ai 1.6). Returns the
    tool-call ids sent."""
    _no_foreign_data(body, history, ("signature", "encrypted_content", "thought"))
    chat = body["messages"]
    ids = [c["id"] for m in chat if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    assert len(ids) == len(set(ids)) and all(len(i) <= 40 for i in ids)
    assert [m["tool_call_id"] for m in chat if m["role"] == "tool"] == ids
    if (model.compat or {}).get("requiresReasoningContent"):
        for message in chat:
            if message["role"] == "assistant" and message.get("tool_calls"):
                assert isinstance(message["reasoning_content"], str)  # "" for another's (1.6)
    return ids


def _bedrock_rules(body: Any, history: list[Any]) -> list[str]:
    """Converse rules on one request; returns the toolUse ids sent."""
    messages = body["messages"]
    roles = [m["role"] for m in messages]
    assert roles == ["user", "assistant"] * (len(roles) // 2) + ["user"]  # alternating
    calls_sent: list[str] = []
    pending: list[str] = []
    for message in messages:
        blocks = message["content"]
        uses = [b["toolUse"]["toolUseId"] for b in blocks if "toolUse" in b]
        answered = [b["toolResult"]["toolUseId"] for b in blocks if "toolResult" in b]
        if message["role"] == "assistant":
            assert not answered
            calls_sent += uses
        else:  # the toolUse blocks of the turn before are answered here, in their order
            assert not uses and answered == pending
        pending = uses
    assert len(calls_sent) == len(set(calls_sent))
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", i) for i in calls_sent)
    _no_foreign_data(body, history, ("thoughtSignature", "encrypted_content"))
    assert body["additionalModelRequestFields"]["thinking"]["type"] == "enabled"
    return calls_sent


def _first_bedrock(body: Any, history: list[Any], model: Model) -> list[str]:
    """Converse after other vendors; reasoningContent only for the same model's signed reasoning."""
    del model
    calls = _bedrock_rules(body, history)
    assert "reasoningContent" not in _keys(body)
    return calls


def _mistral_rules(body: Any, history: list[Any]) -> list[dict[str, Any]]:
    """Mistral rules on one request; returns the tool calls sent."""
    messages = body["messages"]
    assert messages[0]["role"] == "system"
    assert not any(m.get("prefix") for m in messages)  # the history ends with a user/tool turn
    calls = [c for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    ids = [c["id"] for c in calls]
    assert len(ids) == len(set(ids)) and all(re.fullmatch(r"[a-zA-Z0-9]{9}", i) for i in ids)
    assert [m["tool_call_id"] for m in messages if m["role"] == "tool"] == ids
    _no_foreign_data(body, history, ("signature", "encrypted_content"))
    return calls


def _thinking_chunks(body: Any) -> list[Any]:
    return [
        c for m in body["messages"] if m["role"] == "assistant"
        for c in m.get("content") or [] if c["type"] == "thinking"
    ]  # fmt: skip


def _first_mistral(body: Any, history: list[Any], model: Model) -> None:
    """Mistral after other vendors: no foreign thinking, no thinking chunk."""
    del model
    _mistral_rules(body, history)
    assert _thinking_chunks(body) == []


def _first_azure(body: Any, history: list[Any], model: Model) -> None:
    """Responses on Azure's deployment endpoint after other vendors: the deployment as model."""
    _first_responses(body, history, model)
    assert body["model"] == "gpt5-travel"  # the deployment, not the model id


FirstRequestRule = Callable[[Any, list[Any], Model], object]
FIRST_REQUEST_RULES: dict[str, FirstRequestRule] = {
    "openai-responses": _first_responses,
    "google-generative-ai": _first_gemini,
    "openai-completions": _first_chat,
    "bedrock-converse-stream": _first_bedrock,
    "mistral-conversations": _first_mistral,
    "azure-openai-responses": _first_azure,
}
"""Per wire API, the rules of a hop's first request (after other vendors' turns)."""


# --- each hop's own turn back, and the hop-specific facts of the scripted run ---------------------


def _check_bedrock(bodies: list[Any], own: AssistantMessage, history: list[Any]) -> None:
    """Converse rules on requests 8 (after five other vendors) and 9 (its own turn back)."""
    assert len(_first_bedrock(bodies[0], history, models()[4])) == len(CITIES[:6]) - 1
    assert len(_bedrock_rules(bodies[1], history)) == len(CITIES[:6])
    # reasoningContent only for the same model's signed reasoning: one in request 9.
    reasoning = [
        b["reasoningContent"] for m in bodies[1]["messages"] for b in m["content"]
        if "reasoningContent" in b
    ]  # fmt: skip
    thinking = _thinking(own)
    assert reasoning == [
        {"reasoningText": {"text": thinking.thinking, "signature": thinking.thinking_signature}}
    ]


def _check_mistral(
    bodies: list[Any], own: AssistantMessage, bedrock_call_id: str, history: list[Any]
) -> None:
    """Mistral rules on requests 10 (after six other vendors) and 11 (its own turn back)."""
    _first_mistral(bodies[0], history, models()[5])
    mapped = [
        {
            json.loads(c["function"]["arguments"])["city"]: c["id"]
            for c in _mistral_rules(b, history)
        }
        for b in bodies
    ]
    assert not any("|" in _dump(body) for body in bodies)
    # The same id for the same call in both requests; Mistral's own ids unchanged.
    assert mapped[0].items() <= mapped[1].items()
    assert mapped[0]["Madrid"] != bedrock_call_id
    assert [mapped[1][c] for c in ("Oslo", "Athens")] == [c.id for c in own.tool_calls]
    # Only Mistral's own thinking goes back as a thinking chunk.
    assert _thinking_chunks(bodies[1]) == [
        {"type": "thinking", "thinking": [{"type": "text", "text": _thinking(own).thinking}]}
    ]


def _check_azure(
    bodies: list[Any], uris: list[str], own: AssistantMessage, history: list[Any]
) -> None:
    """Responses rules on Azure's deployment endpoint, requests 12 and 13."""
    assert uris == [f"{AZURE_DEPLOYMENT_URL}/responses?api-version=2025-04-01-preview"] * 2
    _first_azure(bodies[0], history, models()[6])
    (own_call,) = own.tool_calls
    call_id, item_id = own_call.id.split("|")
    assert bodies[1]["input"][-2]["call_id"] == call_id  # the own call, then its output
    assert bodies[1]["model"] == "gpt5-travel"
    _responses_calls(bodies[1], [item_id])  # only Azure's own function call keeps its fc_ id
    assert not [value for value in _opaque(history) if value in _dump(bodies[1])]
    (reasoning,) = [i for i in bodies[1]["input"] if i.get("type") == "reasoning"]
    assert json.loads(_thinking(own).thinking_signature or "")["id"] == reasoning["id"]
    assert reasoning["encrypted_content"].startswith("gAAAAAB")


async def test_bedrock_mistral_and_azure_hops_follow_each_vendors_rules(
    tmp_path: Path, pi_cassette: CassetteSession
) -> None:
    run = await run_migration(tmp_path)
    bodies = pi_cassette.recorded_json_bodies()
    uris = [request.uri for request in pi_cassette.cassette.requests]
    finals = [m for m in run.agent.messages if isinstance(m, AssistantMessage)]
    anthropic, responses, _, _, bedrock, mistral, azure = finals[::2]  # each hop's first turn
    signatures = [
        _thinking(m).thinking_signature or "" for m in (anthropic, responses, bedrock, azure)
    ]
    anthropic_sig, responses_item, bedrock_sig, _ = signatures
    responses_encrypted = json.loads(responses_item)["encrypted_content"]
    # What the rules count as another vendor's signature at each hop.
    assert {anthropic_sig, responses_encrypted} <= set(_opaque(_history_at(run, 4)))
    assert bedrock_sig in _opaque(_history_at(run, 6))
    assert uris[8].endswith("/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream")
    _check_bedrock(bodies[8:10], bedrock, _history_at(run, 4))
    (bedrock_call,) = bedrock.tool_calls
    _check_mistral(bodies[10:12], mistral, bedrock_call.id, _history_at(run, 5))
    _check_azure(bodies[12:14], uris[12:14], azure, _history_at(run, 6))
    # The cassette stays scrubbed: no key of any hop was written.
    saved = pi_cassette.path.read_text(encoding="utf-8")
    assert "generator-fake-key" not in saved
    assert not any(
        name in request.headers
        for request in pi_cassette.cassette.requests
        for name in ("authorization", "api-key", "x-api-key", "x-goog-api-key")
    )


# --- real recorded replies in place of the scripted ones ----------------------------------------

RECORDED_HOPS: dict[str, int] = {  # the table of the module docstring
    "oairesp-gpt5-reasoning-to-anthropic-sonnet4": 0,
    "google-codeexec-to-anthropic-sonnet46": 0,
    "anthropic-codeexec-to-google-gemini3flash": 2,
    "anthropic-websearch-to-google-gemini20": 2,
    "anthropic-sonnet46-thinking-to-oairesp-gpt5": 1,
    "oairesp-gpt5-reasoning-to-google-gemini25pro": 2,
    "google-gemini20-tools-to-oaichat-gpt4omini": 3,
    "oairesp-o3mini-reasoning-to-oaichat-o3mini": 3,
    "oairesp-gpt5-reasoning-to-bedrock-claude-sonnet4": 4,
    "oairesp-o3mini-reasoning-to-mistral-magistral": 5,
}
"""Recording of ``../shared/migration`` -> the hop (0-based, :func:`models` order) whose first
reply it replaces. The table in the module docstring says the same."""


def _shared_recordings() -> list[Scenario]:
    """The recordings of ``../shared/migration`` (skips the test when the folder is absent)."""
    try:
        root = migration_dir()
    except MigrationDirMissing as exc:
        pytest.fail(str(exc), pytrace=False)
    if root is None:
        pytest.skip(absent_reason("the hops on real recorded replies are skipped"))
    return load_scenarios(root)


def _recording(name: str) -> Scenario:
    found = [s for s in _shared_recordings() if s.name == name]
    assert found, f"recording {name!r} is not in the shared folder"
    return found[0]


def _sent(body: Any, message: AssistantMessage) -> None:
    """The reply is in the request: its text, its tool calls and its server-tool blocks (as the
    documented text: another vendor follows); its thinking is not (pi-ai 1.6 drops another
    model's thinking)."""
    from pi_sdk import ServerToolCall, ServerToolResult
    from pi_sdk._wire.server_tools import server_block_text

    text = _dump(body)
    for block in message.content:
        said = block.name if isinstance(block, ToolCall) else getattr(block, "text", "")
        if isinstance(block, ServerToolCall | ServerToolResult):
            said = server_block_text(block)
        if isinstance(block, ThinkingContent):
            assert not block.thinking.strip() or _dump(block.thinking)[1:-1] not in text
            continue
        assert said and _dump(said)[1:-1] in text, said[:60]


@dataclass
class _RealHop:
    """A hop run on a real recorded reply, and the next hop's request built after it."""

    history: list[Any]
    real: HandoffRun
    follow: list[Any]
    """The next hop's history: ``history``, the real reply, the next prompt."""
    body: dict[str, Any]
    """The next hop's first request (built, not sent)."""


async def _real_hop(scenario: Scenario, hop: int, run: MigrationRun) -> _RealHop:
    history = _history_at(run, hop)
    context = Context(system_prompt=SYSTEM_PROMPT, messages=history, tools=[get_weather.to_tool()])
    options = StreamOptions(reasoning="medium")  # foreign thinking dropped, as pi-ai 1.6

    real = await run_handoff(scenario, context, options)
    follow = [*history, real.message, UserMessage(content=PROMPTS[hop + 1])]
    next_context = context.model_copy(update={"messages": follow})
    return _RealHop(
        history, real, follow, await build_request(models()[hop + 1], next_context, options)
    )


@pytest.mark.parametrize("name", sorted(RECORDED_HOPS))
async def test_a_real_recorded_reply_stands_in_for_its_hop_and_the_session_goes_on(
    name: str, tmp_path: Path, pi_cassette: CassetteSession
) -> None:
    scenario = _recording(name)
    hop = RECORDED_HOPS[name]
    assert scenario.api == models()[hop].api, "the recording is of this hop's wire API"
    run = await _real_hop(scenario, hop, await run_migration(tmp_path))

    # The hop: our session's history through our adapter (the recorded model), the vendor's
    # real reply served by the recording and read into the final message.
    rules = FIRST_REQUEST_RULES.get(scenario.api)
    if rules is not None:  # (the Anthropic hop opens the session: no other vendor before it)
        rules(run.real.payload, run.history, scenario.target_model())
    assert assert_valid_event_sequence(run.real.events) is run.real.message
    assert reply_problems(scenario, run.real.message) == []

    # The next hop: the real reply is history now; the request built from it keeps that
    # vendor's rules and carries the reply.
    after = models()[hop + 1]
    FIRST_REQUEST_RULES[after.api](run.body, run.follow, after)
    _sent(run.body, run.real.message)


async def test_the_rules_catch_a_real_reply_sent_on_wrongly(
    tmp_path: Path, pi_cassette: CassetteSession
) -> None:
    scenario = _recording("oairesp-gpt5-reasoning-to-anthropic-sonnet4")
    run = await _real_hop(scenario, 0, await run_migration(tmp_path))
    thinking = _thinking(run.real.message)
    assert thinking.thinking_signature
    signed = copy.deepcopy(run.body)
    signed["input"].insert(-1, {"role": "assistant", "content": thinking.thinking_signature})
    with pytest.raises(AssertionError, match=re.escape(thinking.thinking_signature[:40])):
        _first_responses(signed, run.follow, models()[1])
    leaked = copy.deepcopy(run.body)
    leaked["input"].insert(-1, {"role": "assistant", "content": thinking.thinking})
    with pytest.raises(AssertionError, match=re.escape(thinking.thinking[:20])):
        _first_responses(leaked, run.follow, models()[1])
    answer = run.real.message.text
    assert answer
    lost = json.loads(_dump(run.body).replace(_dump(answer)[1:-1], "(dropped)"))
    with pytest.raises(AssertionError, match=re.escape(answer[:20])):
        _sent(lost, run.real.message)


async def test_every_recording_of_a_hops_wire_api_stands_in_for_a_hop(
    tmp_path: Path, pi_cassette: CassetteSession
) -> None:
    recordings = _shared_recordings()
    await run_migration(tmp_path)  # (the module's cassette is played by each of its tests)
    apis = [model.api for model in models()]
    covering = {s.name: apis.index(s.api) for s in recordings if s.api in apis[:-1]}
    assert covering == RECORDED_HOPS  # the first hop of that wire API; none after the last hop
