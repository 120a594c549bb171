"""A session that migrates Anthropic → OpenAI Responses → Gemini → an OpenAI-compatible server →
Amazon Bedrock → Mistral → Azure OpenAI Responses.

Replayed offline with the project's own pytest plugin (``pi_vcr``, ``match_body=True``): every
request the adapters send after converting the history must equal the recorded one (a mismatch
fails with the first differing JSON path), and the recorded bodies are checked below for what the
conversion must guarantee. The scenario is ``tests/_support/migration.py``; the cassette was
written by ``scripts/make_migration_cassette.py`` (rerun it after a deliberate change to what
the adapters send, and review the diff).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from _support.migration import (
    AZURE_DEPLOYMENT_URL,
    CASSETTE_NAME,
    ISOLATED_ENV,
    WEATHER,
    as_json,
    models,
    run_migration,
)

from pi_sdk import AssistantMessage, ThinkingContent, ToolCall, ToolResultMessage
from pi_sdk.testing._cassette import CassetteSession

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

    # -- Anthropic → Responses (request 2): thinking as text, no foreign signature or reasoning.
    text2 = _dump(bodies[2])
    assert signature.thinking_signature not in text2
    assert not any(item.get("type") == "reasoning" for item in bodies[2]["input"])
    assert signature.thinking in text2

    # -- Responses → Responses (request 3): the encrypted reasoning item and the fc_ item id.
    items = bodies[3]["input"]
    reasoning = [item for item in items if item.get("type") == "reasoning"]
    assert len(reasoning) == 1 and reasoning[0]["encrypted_content"].startswith("gAAAAAB")
    (call_item,) = [i for i in items if i.get("type") == "function_call" and i.get("id")]
    call_id, item_id = responses_call.id.split("|")
    assert (call_item["call_id"], call_item["id"]) == (call_id, item_id)

    # -- → Gemini (request 4): no foreign signature, reasoning item or pipe id reaches Gemini.
    text4 = _dump(bodies[4])
    assert "thoughtSignature" not in text4 and "encrypted_content" not in text4
    assert signature.thinking_signature not in text4 and "|" not in text4
    assert not any(part.get("thought") for c in bodies[4]["contents"] for part in c["parts"])

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
    #    paired with their results; reasoning passed back on every assistant tool-call message.
    chat = bodies[6]["messages"]
    calls_sent = [c for m in chat if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    ids = [c["id"] for c in calls_sent]
    assert len(ids) == len(set(ids)) == 4
    assert all(len(i) <= 40 and re.fullmatch(r"[\w-]+", i) for i in ids)
    assert [m["tool_call_id"] for m in chat if m["role"] == "tool"] == ids
    for message in chat:
        if message["role"] == "assistant" and message.get("tool_calls"):
            assert message["reasoning_content"].strip()
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


def _check_bedrock(bodies: list[Any], own: AssistantMessage, foreign: list[str]) -> None:
    """Converse rules on requests 8 (after five other vendors) and 9 (its own turn back)."""
    for body in bodies:
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
        assert len(calls_sent) == len(set(calls_sent)) == len(CITIES[:6]) - (body is bodies[0])
        assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", i) for i in calls_sent)
        text = _dump(body)
        assert not any(opaque in text for opaque in foreign)
        assert "thoughtSignature" not in text and "encrypted_content" not in text
        assert body["additionalModelRequestFields"]["thinking"]["type"] == "enabled"
    # reasoningContent only for the same model's signed reasoning: none in request 8, one in 9.
    assert "reasoningContent" not in _dump(bodies[0])
    reasoning = [
        b["reasoningContent"] for m in bodies[1]["messages"] for b in m["content"]
        if "reasoningContent" in b
    ]  # fmt: skip
    thinking = _thinking(own)
    assert reasoning == [
        {"reasoningText": {"text": thinking.thinking, "signature": thinking.thinking_signature}}
    ]


def _check_mistral(bodies: list[Any], own: AssistantMessage, bedrock_call_id: str) -> None:
    """Mistral rules on requests 10 (after six other vendors) and 11 (its own turn back)."""
    mapped: list[dict[str, str]] = []
    for body in bodies:
        messages = body["messages"]
        assert messages[0]["role"] == "system"
        assert not any("prefix" in m for m in messages)  # the history ends with a user/tool turn
        ids = [
            c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls", [])
        ]
        assert len(ids) == len(set(ids)) and all(re.fullmatch(r"[a-zA-Z0-9]{9}", i) for i in ids)
        assert [m["tool_call_id"] for m in messages if m["role"] == "tool"] == ids
        calls = [
            c for m in messages if m["role"] == "assistant" for c in m.get("tool_calls", [])
        ]  # fmt: skip
        mapped.append({json.loads(c["function"]["arguments"])["city"]: c["id"] for c in calls})
        text = _dump(body)
        assert "signature" not in text and "encrypted_content" not in text and "|" not in text
    # The same id for the same call in both requests; Mistral's own ids unchanged.
    assert mapped[0].items() <= mapped[1].items()
    assert mapped[0]["Madrid"] != bedrock_call_id
    assert [mapped[1][c] for c in ("Oslo", "Athens")] == [c.id for c in own.tool_calls]
    # Foreign thinking is text; only Mistral's own thinking goes back as a thinking chunk.
    chunks = [
        c for body in bodies for m in body["messages"] if m["role"] == "assistant"
        for c in m.get("content") or [] if c["type"] == "thinking"
    ]  # fmt: skip
    assert chunks == [
        {"type": "thinking", "thinking": [{"type": "text", "text": _thinking(own).thinking}]}
    ]


def _check_azure(
    bodies: list[Any], uris: list[str], own: AssistantMessage, foreign: list[str]
) -> None:
    """Responses rules on Azure's deployment endpoint, requests 12 and 13."""
    assert uris == [f"{AZURE_DEPLOYMENT_URL}/responses?api-version=2025-04-01-preview"] * 2
    (own_call,) = own.tool_calls
    call_id, item_id = own_call.id.split("|")
    assert bodies[1]["input"][-2]["call_id"] == call_id  # the own call, then its output
    for body in bodies:
        assert body["model"] == "gpt5-travel"  # the deployment, not the model id
        items = body["input"]
        calls = [i for i in items if i.get("type") == "function_call"]
        outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
        assert [c["call_id"] for c in calls] == outputs and len(set(outputs)) == len(outputs)
        assert all("|" not in c for c in outputs)
        # Only Azure's own function call keeps its fc_ item id.
        assert [c.get("id") for c in calls if "id" in c] == ([item_id] if body is bodies[1] else [])
        text = _dump(body)
        assert not any(opaque in text for opaque in foreign)
    assert not any(i.get("type") == "reasoning" for i in bodies[0]["input"])
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
    assert uris[8].endswith("/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream")
    _check_bedrock(bodies[8:10], bedrock, [anthropic_sig, responses_encrypted])
    (bedrock_call,) = bedrock.tool_calls
    _check_mistral(bodies[10:12], mistral, bedrock_call.id)
    _check_azure(
        bodies[12:14], uris[12:14], azure, [anthropic_sig, responses_encrypted, bedrock_sig]
    )
    # The cassette stays scrubbed: no key of any hop was written.
    saved = pi_cassette.path.read_text(encoding="utf-8")
    assert "generator-fake-key" not in saved
    assert not any(
        name in request.headers
        for request in pi_cassette.cassette.requests
        for name in ("authorization", "api-key", "x-api-key", "x-goog-api-key")
    )
