"""The recorded cross-provider handoffs of ``../shared/migration``, read for the handoff suite.

Each ``<name>.scenario.json`` there holds a history at a model switch (pi message JSON), the
target API and model, and the structure of the request the target vendor accepted (HTTP 200);
``<name>.yaml`` is the vcrpy cassette of the whole exchange, whose target interaction holds the
accepted request body and the vendor's reply (README of that folder).

* :func:`migration_dir` / :func:`load_scenarios`: the folder (``PI_SDK_MIGRATION_DIR``, else
  beside ``PI_SDK_CONFORMANCE_DIR``'s folder, else ``../shared/migration``) and its scenarios;
* :func:`run_handoff`: build the target request with our adapter (captured from ``on_payload``)
  and replay the target's recorded reply through it, in one real ``pi_sdk.stream`` call;
* :func:`request_view`: a request body's messages read into one vendor-neutral shape
  (:class:`Turn` of :class:`Part`) so the accepted body and ours compare part by part;
* :func:`reply_view`: what a recorded reply document says (text, thinking, tool calls), read
  without our decoders; :func:`reply_problems`: how a final message differs from it;
* :func:`build_request`: the body our adapter would send, built and not sent.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pi_sdk
from _support.conformance import ENV_VAR as CONFORMANCE_ENV_VAR
from _support.conformance import shared_folder
from pi_sdk import AssistantMessage, Context, Model, StreamOptions
from pi_sdk._testing.replay import DUMMY_API_KEY, load_cassette, replay_vcr

RECORDED_FOREIGN_REASONING = "text"
"""The recorded handoffs sent another vendor's thinking as text (pi-ai 0.73's rule; pi-ai 1.6
and pi-sdk now drop it by default), so requests compared with them carry it the same way."""

ENV_VAR = "PI_SDK_MIGRATION_DIR"
DEFAULT_DIR = Path(__file__).resolve().parents[3] / "shared" / "migration"

TARGET_API = {"bedrock-converse": "bedrock-converse-stream"}
"""Scenario ``target.api`` -> our API name where they differ (the recording called Bedrock's
one-shot ``/converse``; our provider serves both paths under ``bedrock-converse-stream``)."""


class MigrationDirMissing(Exception):
    """``PI_SDK_MIGRATION_DIR`` is set but names no folder."""


def migration_dir() -> Path | None:
    """The recorded-handoff folder, or ``None`` when it is absent and not required.

    ``PI_SDK_MIGRATION_DIR``; else the ``migration`` folder beside the conformance folder
    ``PI_SDK_CONFORMANCE_DIR`` names (both live in ``shared/``); else :data:`DEFAULT_DIR`.

    Raises:
        MigrationDirMissing: the env var is set but the folder does not exist.
    """
    default = DEFAULT_DIR
    conformance = os.environ.get(CONFORMANCE_ENV_VAR)
    if conformance and (Path(conformance).parent / "migration").is_dir():
        default = Path(conformance).parent / "migration"
    return shared_folder(ENV_VAR, default, MigrationDirMissing)


def absent_reason(skipped: str = "the handoff suite is skipped") -> str:
    """The one skip message when the folder is absent; ``skipped`` says what is not run."""
    return (
        f"recorded handoffs not found at {DEFAULT_DIR}: {skipped}"
        f" (set {ENV_VAR} to the shared migration folder to run it)"
    )


# --- scenarios --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """One recorded handoff."""

    name: str
    data: dict[str, Any]
    cassette: Path

    @property
    def api(self) -> str:
        """Our name of the target API."""
        api = self.data["target"]["api"]
        return TARGET_API.get(api, api)

    @property
    def index(self) -> int:
        """The target interaction's position in the cassette."""
        return int(self.data["target"]["interaction_index"])

    def context(self) -> Context:
        return Context.model_validate(self.data["context"])

    def _interaction(self) -> dict[str, Any]:
        import yaml

        cassette = yaml.safe_load(self.cassette.read_text(encoding="utf-8"))
        return cassette["interactions"][self.index]

    def accepted_request(self) -> dict[str, Any]:
        """The target request body the vendor answered 200."""
        return json.loads(self._interaction()["request"]["body"])

    def recorded_reply(self) -> dict[str, Any]:
        """The target vendor's recorded reply (one JSON document in every scenario)."""
        return json.loads(self._interaction()["response"]["body"]["string"])

    def accepted_roles(self) -> list[str]:
        """The role sequence of ``accepted_target_request.structure``."""
        return [row[0] for row in self.data["accepted_target_request"]["structure"]]

    def target_model(self) -> Model:
        """The model our adapter derives from the recorded target request (its ``recognize``)."""
        provider = pi_sdk.get_api_provider(self.api)
        assert provider.recognize is not None, f"{self.api} provider has no recognize()"
        item = load_cassette(self.cassette)[self.index]
        model = provider.recognize(item.method, item.uri, item.body)
        assert model is not None, f"{self.api} does not recognize {item.display_uri}"
        return model


def load_scenarios(root: Path) -> list[Scenario]:
    """Every ``*.scenario.json`` under ``root``, by name."""
    scenarios: list[Scenario] = []
    for path in sorted(root.glob("*.scenario.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        scenarios.append(Scenario(data["name"], data, root / data["cassette"]))
    return scenarios


# --- running ----------------------------------------------------------------------------------


@dataclass
class HandoffRun:
    """What one handoff call sent and what it made of the recorded reply."""

    payload: dict[str, Any]
    events: list[Any]
    message: AssistantMessage


async def run_handoff(
    scenario: Scenario, context: Context, options: StreamOptions | None = None
) -> HandoffRun:
    """Send ``context`` to the scenario's target through our adapter, the cassette answering.

    The body is captured from ``on_payload`` (exactly what would be sent); the interactions
    before the target one are marked played, so vcrpy serves the target's recorded reply.
    """
    payloads: list[dict[str, Any]] = []

    async def capture(payload: Any, model: Model) -> None:
        payloads.append(json.loads(json.dumps(payload)))

    options = replace(
        options or StreamOptions(foreign_reasoning=RECORDED_FOREIGN_REASONING),
        api_key=DUMMY_API_KEY,
        max_retries=0,
        on_payload=capture,
    )
    model = scenario.target_model()
    recorder = replay_vcr()
    with recorder.use_cassette(str(scenario.cassette), allow_playback_repeats=False) as cassette:
        for earlier in range(scenario.index):
            cassette.play_response(cassette.requests[earlier])
        stream = pi_sdk.stream(model, context, options)
        events = [event async for event in stream]
        message = await stream.result()
    assert len(payloads) == 1, f"{len(payloads)} requests sent: {message.error_message}"
    return HandoffRun(payloads[0], events, message)


class _Built(Exception):
    """Raised from ``on_payload`` once the body is captured, so nothing is sent."""


async def build_request(
    model: Model, context: Context, options: StreamOptions | None = None
) -> dict[str, Any]:
    """The request body our adapter builds for ``context`` on ``model``; nothing is sent.

    The body is captured from ``on_payload``, which then raises, so the call ends in an
    ``error`` event before any connection is made (no cassette or network is needed).
    """
    payloads: list[dict[str, Any]] = []

    def capture(payload: Any, model: Model) -> None:
        payloads.append(json.loads(json.dumps(payload)))
        raise _Built

    options = replace(
        options or StreamOptions(foreign_reasoning=RECORDED_FOREIGN_REASONING),
        api_key=DUMMY_API_KEY,
        max_retries=0,
        on_payload=capture,
    )
    message = await pi_sdk.complete(model, context, options)
    assert len(payloads) == 1, f"no body built: {message.error_message}"
    assert message.stop_reason == "error", message.stop_reason
    return payloads[0]


# --- request bodies, read into one shape ------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """One content part of a request message, whatever the wire API."""

    kind: str
    """``text``, ``thinking`` (a vendor's own reasoning block: Anthropic/Bedrock thinking,
    Gemini ``thought: true``, Mistral thinking chunk, Responses reasoning item, Chat
    ``reasoning_content``), ``tool_call``, ``tool_result``, ``image``, ``cache_point``, or the
    vendor key of anything else (``server_tool_use``, ``executableCode``, ...)."""
    text: str = ""
    id: str | None = None
    """Tool-call id (``tool_call`` and ``tool_result``); ``None`` when the wire has none."""
    signed: bool = False
    """Carries a vendor signature (thinking signature, ``thoughtSignature``, encrypted item)."""
    cached: bool = False
    """Marks a prompt-cache breakpoint (Anthropic ``cache_control``)."""


@dataclass(frozen=True)
class Turn:
    """One request message: the vendor's role name and its parts."""

    role: str
    parts: tuple[Part, ...] = field(default_factory=tuple)


def _args(arguments: Any) -> str:
    """Tool-call arguments as canonical JSON text (whitespace and key order do not matter)."""
    value = json.loads(arguments) if isinstance(arguments, str) else arguments
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _texts(content: Any) -> list[Part]:
    if isinstance(content, str):
        return [Part("text", content)]
    parts: list[Part] = []
    for chunk in content or []:
        kind = chunk.get("type")
        if kind in ("text", "input_text", "output_text"):
            parts.append(Part("text", chunk["text"]))
        elif kind == "thinking":  # Mistral: {"type": "thinking", "thinking": [text chunks]}
            inner = chunk["thinking"]
            signed = bool(chunk.get("signature"))
            texts = [c["text"] for c in inner] if isinstance(inner, list) else [inner]
            parts.extend(Part("thinking", text, signed=signed) for text in texts)
        elif kind in ("image", "image_url", "input_image"):
            parts.append(Part("image"))
        else:
            parts.append(Part(str(kind)))
    return parts


def _anthropic(block: dict[str, Any]) -> Part:
    part = _anthropic_block(block)
    return replace(part, cached=True) if "cache_control" in block else part


def _anthropic_block(block: dict[str, Any]) -> Part:
    kind = block["type"]
    if kind == "text":
        return Part("text", block["text"])
    if kind == "thinking":
        return Part("thinking", block["thinking"], signed=bool(block.get("signature")))
    if kind == "tool_use":
        return Part("tool_call", _args(block["input"]), id=block["id"])
    if kind == "tool_result":
        return Part("tool_result", _result_text(block["content"]), id=block["tool_use_id"])
    return Part(kind)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(c.get("text", "") for c in content)


def _bedrock(block: dict[str, Any]) -> Part:
    if "text" in block:
        return Part("text", block["text"])
    if "reasoningContent" in block:
        reasoning = block["reasoningContent"].get("reasoningText", {})
        return Part("thinking", reasoning.get("text", ""), signed=bool(reasoning.get("signature")))
    if "toolUse" in block:
        use = block["toolUse"]
        return Part("tool_call", _args(use["input"]), id=use["toolUseId"])
    if "toolResult" in block:
        result = block["toolResult"]
        return Part("tool_result", _result_text(result["content"]), id=result["toolUseId"])
    return Part("cache_point" if "cachePoint" in block else next(iter(block)))


def _google(part: dict[str, Any]) -> Part:
    signed = bool(part.get("thoughtSignature"))
    if "text" in part:
        return Part("thinking" if part.get("thought") else "text", part["text"], signed=signed)
    if "functionCall" in part:
        call = part["functionCall"]
        return Part("tool_call", _args(call.get("args", {})), id=call.get("id"), signed=signed)
    if "functionResponse" in part:
        response = part["functionResponse"]
        return Part("tool_result", json.dumps(response.get("response", {})), id=response.get("id"))
    return Part(
        "image" if "inlineData" in part else next(k for k in part if k != "thoughtSignature")
    )


def _blocks(read: Callable[[dict[str, Any]], Part]) -> Callable[[dict[str, Any]], list[Part]]:
    """A message reader from a block reader (string content is one text block)."""

    def parts(message: dict[str, Any]) -> list[Part]:
        content = message.get("content", message.get("parts"))
        if isinstance(content, str):
            return [Part("text", content)]
        return [read(block) for block in content]

    return parts


def _responses(body: dict[str, Any]) -> list[Turn]:
    turns: list[Turn] = []
    for item in body["input"]:
        kind = item.get("type", "message")
        if kind == "message":
            turns.append(Turn(item["role"], tuple(_texts(item["content"]))))
        elif kind == "reasoning":
            text = "\n\n".join(s["text"] for s in item.get("summary", []))
            signed = bool(item.get("encrypted_content"))
            turns.append(Turn("assistant", (Part("thinking", text, signed=signed),)))
        elif kind == "function_call":
            part = Part("tool_call", _args(item["arguments"]), id=item["call_id"])
            turns.append(Turn("assistant", (part,)))
        elif kind == "function_call_output":
            part = Part("tool_result", _result_text(item["output"]), id=item["call_id"])
            turns.append(Turn("tool", (part,)))
        else:
            turns.append(Turn(kind, (Part(kind),)))
    return turns


def _chat(message: dict[str, Any]) -> list[Part]:
    """A Chat Completions or Mistral message: string or chunk content, tool calls, results."""
    parts: list[Part] = []
    if message.get("reasoning_content"):
        parts.append(Part("thinking", message["reasoning_content"]))
    if message["role"] == "tool":
        text = _result_text(message["content"])
        parts.append(Part("tool_result", text, id=message["tool_call_id"]))
    elif message.get("content") is not None:
        parts.extend(_texts(message["content"]))
    for call in message.get("tool_calls") or []:
        parts.append(Part("tool_call", _args(call["function"]["arguments"]), id=call["id"]))
    return parts


_MESSAGES: dict[str, tuple[str, Callable[[dict[str, Any]], list[Part]]]] = {
    "anthropic-messages": ("messages", _blocks(_anthropic)),
    "bedrock-converse-stream": ("messages", _blocks(_bedrock)),
    "google-generative-ai": ("contents", _blocks(_google)),
    "google-vertex": ("contents", _blocks(_google)),
    "openai-completions": ("messages", _chat),
    "mistral-conversations": ("messages", _chat),
}
"""api -> (the body's message list, how one message's parts are read)."""


def request_view(api: str, body: dict[str, Any]) -> list[Turn]:
    """The messages of a request body for ``api`` (system prompt and tools not included)."""
    if api == "openai-responses":
        return _responses(body)
    key, read = _MESSAGES[api]
    return [Turn(message["role"], tuple(read(message))) for message in body[key]]


def system_text(api: str, body: dict[str, Any]) -> str:
    """The system prompt a body carries outside its messages (``""`` when none)."""
    if api == "anthropic-messages":
        system = body.get("system", "")
        return system if isinstance(system, str) else "".join(b["text"] for b in system)
    if api == "bedrock-converse-stream":
        return "".join(b.get("text", "") for b in body.get("system", []))
    if api in ("google-generative-ai", "google-vertex"):
        return "".join(
            p.get("text", "") for p in body.get("systemInstruction", {}).get("parts", [])
        )
    return body.get("instructions", "") if api == "openai-responses" else ""


def structure(turns: list[Turn]) -> list[tuple[str, tuple[str, ...]]]:
    """``(role, part kinds)`` per turn: the shape a difference is first looked for in."""
    return [(turn.role, tuple(part.kind for part in turn.parts)) for turn in turns]


# --- recorded replies, read without our decoders ------------------------------------------------


@dataclass(frozen=True)
class ReplyView:
    """What a recorded reply document holds."""

    text: str
    thinking: str
    tool_calls: list[tuple[str, dict[str, Any]]]
    """``(name, arguments)`` per tool call, in order."""


def _calls(raw: list[tuple[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, json.loads(args) if isinstance(args, str) else args) for name, args in raw]


def reply_view(api: str, body: dict[str, Any]) -> ReplyView:
    """Text, thinking and tool calls of a recorded reply (server-tool blocks are not read).

    Thinking summaries of one Responses reasoning item are joined with a blank line, as pi-mono
    joins them; every other part is concatenated as it comes.
    """
    text: list[str] = []
    thinking: list[str] = []
    calls: list[tuple[str, Any]] = []
    if api == "anthropic-messages":
        for block in body["content"]:
            if block["type"] == "text":
                text.append(block["text"])
            elif block["type"] == "thinking":
                thinking.append(block["thinking"])
            elif block["type"] == "tool_use":
                calls.append((block["name"], block["input"]))
    elif api == "bedrock-converse-stream":
        for block in body["output"]["message"]["content"]:
            if "text" in block:
                text.append(block["text"])
            elif "reasoningContent" in block:
                thinking.append(block["reasoningContent"]["reasoningText"]["text"])
            elif "toolUse" in block:
                calls.append((block["toolUse"]["name"], block["toolUse"]["input"]))
    elif api in ("google-generative-ai", "google-vertex"):
        for part in body["candidates"][0]["content"]["parts"]:
            if "text" in part:
                (thinking if part.get("thought") else text).append(part["text"])
            elif "functionCall" in part:
                calls.append((part["functionCall"]["name"], part["functionCall"].get("args", {})))
    elif api == "openai-responses":
        for item in body["output"]:
            if item["type"] == "reasoning":
                thinking.append("\n\n".join(s["text"] for s in item.get("summary", [])))
            elif item["type"] == "message":
                text.extend(c["text"] for c in item["content"] if c["type"] == "output_text")
            elif item["type"] == "function_call":
                calls.append((item["name"], item["arguments"]))
    else:  # openai-completions, mistral-conversations
        message = body["choices"][0]["message"]
        for part in _texts(message.get("content") or []):
            (thinking if part.kind == "thinking" else text).append(part.text)
        for call in message.get("tool_calls") or []:
            calls.append((call["function"]["name"], call["function"]["arguments"]))
    return ReplyView("".join(text), "".join(thinking), _calls(calls))


EXPECTED_STOP = {"google-gemini20-tools-to-oaichat-gpt4omini": "toolUse"}
"""The final message's stop reason where it is not ``stop`` (read from the recorded replies)."""


def reply_problems(scenario: Scenario, message: AssistantMessage) -> list[str]:
    """How the final message differs from the recorded reply (empty: it holds it all)."""
    want = reply_view(scenario.api, scenario.recorded_reply())
    blocks = message.content
    text = "".join(b.text for b in blocks if isinstance(b, pi_sdk.TextContent))
    thinking = "".join(b.thinking for b in blocks if isinstance(b, pi_sdk.ThinkingContent))
    calls = [(b.name, b.arguments) for b in blocks if isinstance(b, pi_sdk.ToolCall)]
    problems: list[str] = []
    if message.stop_reason != EXPECTED_STOP.get(scenario.name, "stop"):
        problems.append(f"stop_reason {message.stop_reason!r} ({message.error_message})")
    if text != want.text:
        problems.append(f"text {text[:80]!r} != recorded {want.text[:80]!r}")
    if thinking != want.thinking:
        problems.append(f"thinking {thinking[:80]!r} != recorded {want.thinking[:80]!r}")
    if calls != want.tool_calls:
        problems.append(f"tool calls {calls} != recorded {want.tool_calls}")
    if message.usage.input <= 0 or message.usage.output <= 0:
        problems.append(f"usage not read: {message.usage}")
    return problems
