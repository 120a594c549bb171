"""Conformance helpers shared by every provider's tests (generic over all API folders).

* :func:`conformance_dir` / :func:`load_cases`: the shared cassettes and their ``expect``;
* :func:`run_interaction`: play one recorded interaction through the real adapter (vcrpy,
  :func:`pi_sdk.testing.replay_vcr`: match on method + endpoint, earlier interactions consumed so
  the i-th call gets interaction i). Interactions recorded without a stream are played through
  the same streaming call: vcrpy serves the recorded JSON document, which every adapter accepts
  (as from a server that ignores ``"stream": true``);
* :func:`check_message`: compare a final message with ``expect`` (the conventions of
  ``conformance/README.md``);
* :func:`assert_valid_event_sequence`: the event-order invariants of pi-spec §2;
* :class:`ChunkedTransport` and :data:`CLIENT_FACTORIES`: serve bodies in small chunks (cut,
  stalled, counted) through a vendor client, for truncation / early-exit / abort tests.

Provider engineers extend two tables: :data:`PROVIDER_PACKAGES` (api -> distribution that
implements it) and :data:`CLIENT_FACTORIES` (api -> build a vendor client on a transport), and
optionally :data:`SIGNATURE_PRESENT` (api -> "did this message carry a reasoning signature").

The vendor-reported ``model`` in ``expect``, where one is given, is compared with
``AssistantMessage.response_model`` (pi-ai 0.73 ``responseModel``); ``AssistantMessage.model``
stays the requested model id (pi-mono).
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import httpx2
import pytest

import pi_sdk
from pi_sdk import (
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    Model,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    UserMessage,
)
from pi_sdk._testing.replay import DUMMY_API_KEY, RecordedInteraction, load_cassette, replay_vcr

ENV_VAR = "PI_SDK_CONFORMANCE_DIR"
DEFAULT_DIR = Path(__file__).resolve().parents[3] / "shared" / "conformance"

PROVIDER_PACKAGES = {
    "anthropic-messages": "pi-sdk-anthropic",
    "openai-completions": "pi-sdk-openai",
    "openai-responses": "pi-sdk-openai",
    "google-generative-ai": "pi-sdk-google",
    "google-vertex": "pi-sdk-google",
    "bedrock-converse-stream": "pi-sdk-bedrock",
    "mistral-conversations": "pi-sdk-mistral",
    "azure-openai-responses": "pi-sdk-azure",
}
"""Which distribution implements each API (for skip messages)."""

CONTEXT = Context(messages=[UserMessage(content="(conformance replay)")])


# --- the shared folder ------------------------------------------------------------------------


class ConformanceDirMissing(Exception):
    """``PI_SDK_CONFORMANCE_DIR`` is set but names no folder."""


def shared_folder(env_var: str, default: Path, missing: type[Exception]) -> Path | None:
    """A folder of ``../shared``: ``env_var``'s, else ``default``, else ``None`` when absent.

    Raises:
        missing: ``env_var`` is set (CI) but names no folder.
    """
    configured = os.environ.get(env_var)
    if configured:
        path = Path(configured)
        if not path.is_dir():
            raise missing(f"{env_var}={configured} is not a directory")
        return path
    return default if default.is_dir() else None


NEXT_ENV_VAR = "PI_SDK_CONFORMANCE_NEXT_DIR"
"""Where ``conformance-next`` is (default: beside the conformance folder in use)."""

LANDED_KINDS = ("document_", "servertool_", "strict_tools_", "image_output_")
"""Name prefixes of the ``conformance-next`` recordings whose content kind pi-sdk models now:
they join the conformance suite (its README: "add each file ... as its kind lands")."""


def skip_without_next(found: object) -> None:
    """Skip the test, saying how to run it, when nothing was ``found`` in ``conformance-next``."""
    if not found:
        pytest.skip(f"conformance-next folder absent (set {NEXT_ENV_VAR} to run it)")


def conformance_next_dir() -> Path | None:
    """The ``conformance-next`` folder (recordings of content kinds beyond text), or ``None``.

    Raises:
        ConformanceDirMissing: ``PI_SDK_CONFORMANCE_NEXT_DIR`` is set but names no folder.
    """
    beside = (conformance_dir() or DEFAULT_DIR).parent / "conformance-next"
    return shared_folder(NEXT_ENV_VAR, beside, ConformanceDirMissing)


def landed_next_cases(kinds: tuple[str, ...] = LANDED_KINDS) -> list[Case]:
    """The ``conformance-next`` cases of the landed kinds (none when the folder is absent)."""
    root = conformance_next_dir()
    if root is None:
        return []
    return [c for c in load_cases(root) if c.name.startswith(kinds)]


def next_cases(api: str, prefix: str) -> list[Case]:
    """The successful ``conformance-next`` interactions of ``api`` whose file starts with
    ``prefix`` (none when the folder is absent)."""
    try:
        root = conformance_next_dir()
    except ConformanceDirMissing:
        return []
    if root is None:
        return []
    return [c for c in load_cases(root, api) if c.name.startswith(prefix) and c.status == 200]


def future_of(case: Case) -> dict[str, Any]:
    """The ``future`` object of a ``conformance-next`` interaction (what it should surface)."""
    expected = case.cassette.with_suffix("").with_suffix(".expected.json")
    return json.loads(expected.read_text(encoding="utf-8"))["interactions"][case.index]["future"]


async def replayed(case: Case) -> tuple[AssistantMessage, dict[str, Any]]:
    """``case``'s recorded reply played through the adapter, and the ``future.response`` of
    the interaction (what the reply should surface)."""
    return (await run_interaction(case)).message, future_of(case)["response"]


async def reply_before(case: Case) -> tuple[AssistantMessage, Model, dict[str, Any]]:
    """For a recorded follow-up ``case``: the reply of the interaction before it (played
    through the adapter), the model that made it (its recorded endpoint) and ``case``'s recorded
    request body, which sent that reply back."""
    interactions = load_cassette(case.cassette)
    earlier = Case(**{**vars(case), "index": case.index - 1})
    reply = (await run_interaction(earlier)).message
    body = cast(dict[str, Any], interactions[case.index].body)
    return reply, model_for(case.api, interactions[earlier.index]), body


def conformance_dir() -> Path | None:
    """The conformance folder, or ``None`` when it is absent and not required.

    Raises:
        ConformanceDirMissing: the env var is set (CI) but the folder does not exist.
    """
    return shared_folder(ENV_VAR, DEFAULT_DIR, ConformanceDirMissing)


@dataclass(frozen=True)
class Case:
    """One recorded interaction of one conformance cassette, with its expected outcome."""

    api: str
    name: str
    cassette: Path
    index: int
    status: int
    stream: bool
    expect: dict[str, Any]
    notes: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.api}/{self.name}[{self.index}]"


def load_cases(root: Path, api: str | None = None) -> list[Case]:
    """Every ``<api>/<name>.yaml`` x interaction under ``root`` (one API if ``api`` is given)."""
    cases: list[Case] = []
    for expected in sorted(root.glob("*/*.expected.json")):
        folder = expected.parent.name
        if api is not None and folder != api:
            continue
        data = json.loads(expected.read_text(encoding="utf-8"))
        cassette = root / data["cassette"]
        name = expected.name.removesuffix(".expected.json")
        for entry in data["interactions"]:
            cases.append(
                Case(
                    api=data.get("api", folder),
                    name=name,
                    cassette=cassette,
                    index=entry["index"],
                    status=entry["status"],
                    stream=entry["stream"],
                    expect=entry["expect"],
                    notes=tuple(entry.get("notes", ())),
                )
            )
    return cases


def provider_for(api: str) -> pi_sdk.provider.ApiProvider | None:
    """The registered provider of ``api``, or ``None`` (its package is not installed)."""
    try:
        return pi_sdk.get_api_provider(api)
    except pi_sdk.ProviderNotFoundError:
        return None


def model_for(api: str, interaction: RecordedInteraction) -> Model:
    """The model the adapter would call for a recorded request (its ``recognize``)."""
    provider = pi_sdk.get_api_provider(api)
    assert provider.recognize is not None, f"{api} provider has no recognize()"
    model = provider.recognize(interaction.method, interaction.uri, interaction.body)
    assert model is not None, f"{api} does not recognize {interaction.display_uri}"
    return model


# --- running ----------------------------------------------------------------------------------


@dataclass
class Run:
    """Events and final message of one call, and how many interactions the cassette played."""

    events: list[AssistantMessageEvent]
    message: AssistantMessage
    played: int


async def collect(stream: pi_sdk.AssistantMessageEventStream) -> tuple[list[Any], AssistantMessage]:
    events = [event async for event in stream]
    return events, await stream.result()


async def collect_aborting(
    stream: Any, controller: pi_sdk.AbortController, at: str
) -> tuple[list[Any], AssistantMessage]:
    """``(events, final message)`` of ``stream``, aborting ``controller`` on each event of type
    ``at`` (e.g. ``"text_delta"``) as a consumer that stops the reply mid-stream would."""
    events: list[Any] = []
    async for event in stream:
        events.append(event)
        if event.type == at:
            controller.abort()
    return events, await stream.result()


async def run_interaction(
    case: Case, *, options: StreamOptions | None = None, model: Model | None = None
) -> Run:
    """Play interaction ``case.index`` of its cassette through the registered adapter.

    Earlier interactions are marked played without a call, so vcrpy (matching method +
    endpoint, each interaction once) serves interaction ``case.index`` to this call, streamed
    or not.
    """
    interactions = load_cassette(case.cassette)
    model = model or model_for(case.api, interactions[case.index])
    options = options or StreamOptions(api_key=DUMMY_API_KEY, max_retries=0)
    recorder = replay_vcr()
    with recorder.use_cassette(str(case.cassette), allow_playback_repeats=False) as cassette:
        for earlier in range(case.index):
            cassette.play_response(cassette.requests[earlier])
        events, message = await collect(pi_sdk.stream(model, CONTEXT, options))
        return Run(events=events, message=message, played=cassette.play_count - case.index)


# --- comparing --------------------------------------------------------------------------------


def _default_signature_present(message: AssistantMessage) -> bool:
    thinking = any(
        isinstance(b, ThinkingContent) and not b.redacted and bool(b.thinking_signature)
        for b in message.content
    )
    tools = any(isinstance(b, ToolCall) and bool(b.thought_signature) for b in message.content)
    return thinking or tools


def _google_signature_present(message: AssistantMessage) -> bool:
    texts = any(isinstance(b, TextContent) and bool(b.text_signature) for b in message.content)
    return texts or _default_signature_present(message)


def _completions_signature_present(message: AssistantMessage) -> bool:
    # pi-ai stores the name of the delta field reasoning came in (``reasoning_content``...) in
    # ``thinking_signature``: a field name, not a signature (conformance README).
    fields = ("reasoning_content", "reasoning", "reasoning_text")
    thinking = any(
        isinstance(b, ThinkingContent) and b.thinking_signature not in (None, "", *fields)
        for b in message.content
    )
    tools = any(isinstance(b, ToolCall) and bool(b.thought_signature) for b in message.content)
    return thinking or tools


SIGNATURE_PRESENT: dict[str, Callable[[AssistantMessage], bool]] = {
    "openai-completions": _completions_signature_present,
    "google-generative-ai": _google_signature_present,
    "google-vertex": _google_signature_present,
}
"""Per-API override of "the reply carried a reasoning signature" (default: a non-redacted
thinking block's ``thinking_signature`` or a tool call's ``thought_signature``)."""


def _responses_call_id(tool_call_id: str) -> str:
    return tool_call_id.split("|", 1)[0]


VENDOR_TOOL_CALL_ID: dict[str, Callable[[str], str]] = {
    "openai-responses": _responses_call_id,
    "azure-openai-responses": _responses_call_id,
}
"""Per-API: the vendor's tool-call id inside our id (OpenAI Responses: ``<call_id>|<item id>``,
as pi-ai builds it; ``expect`` holds the ``call_id``)."""


def raw_tool_arguments(events: list[Any]) -> dict[int, str]:
    """The concatenated ``toolcall_delta`` fragments per content index."""
    raw: dict[int, list[str]] = {}
    for event in events:
        if event.type == "toolcall_delta":
            raw.setdefault(event.content_index, []).append(event.delta)
    return {index: "".join(parts) for index, parts in raw.items()}


def _strict_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def check_message(
    api: str, message: AssistantMessage, expect: dict[str, Any], events: list[Any]
) -> list[str]:
    """Differences between a final message and an interaction's ``expect`` (empty: conforms).

    ``expect["model"]`` (vendor-reported model), when not ``null``, is compared with
    ``response_model``; see the module docstring.
    A tool call whose expected ``id`` is ``null`` (the vendor sent none) may have any id.
    """
    problems: list[str] = []

    def differ(what: str, got: Any, want: Any) -> None:
        if got != want:
            problems.append(f"{what}: got {got!r}, expected {want!r}")

    differ("stop_reason", message.stop_reason, expect["stop_reason"])
    if expect.get("model") is not None:
        differ("response_model", message.response_model, expect["model"])
    text = "".join(b.text for b in message.content if isinstance(b, TextContent))
    differ("text", text, expect["text"])
    thinking_blocks = [b for b in message.content if isinstance(b, ThinkingContent)]
    thinking = "".join(b.thinking for b in thinking_blocks if not b.redacted)
    differ("thinking", thinking, expect["thinking"])
    present = SIGNATURE_PRESENT.get(api, _default_signature_present)(message)
    differ("thinking_signature_present", present, expect["thinking_signature_present"])
    redacted = sum(1 for b in thinking_blocks if b.redacted)
    differ("redacted_thinking_blocks", redacted, expect["redacted_thinking_blocks"])

    calls = [(i, b) for i, b in enumerate(message.content) if isinstance(b, ToolCall)]
    wanted = expect["tool_calls"]
    if len(calls) != len(wanted):
        problems.append(
            f"tool_calls: got {[(b.id, b.name, b.arguments) for _, b in calls]}, expected {wanted}"
        )
    else:
        raw = raw_tool_arguments(events)
        for n, ((index, call), want) in enumerate(zip(calls, wanted, strict=True)):
            if want["id"] is not None:
                vendor_id = VENDOR_TOOL_CALL_ID.get(api, str)(call.id)
                differ(f"tool_calls[{n}].id", vendor_id, want["id"])
            differ(f"tool_calls[{n}].name", call.name, want["name"])
            if "arguments_raw" in want:
                got_raw = raw.get(index, "")
                differ(f"tool_calls[{n}].arguments_raw", got_raw, want["arguments_raw"])
                complete = _strict_json(got_raw)
                differ(f"tool_calls[{n}].arguments_complete", complete, want["arguments_complete"])
                if not isinstance(call.arguments, dict):
                    problems.append(f"tool_calls[{n}].arguments is not a dict")
            else:
                differ(f"tool_calls[{n}].arguments", call.arguments, want["arguments"])

    usage = message.usage
    got_usage = {
        "input": usage.input,
        "output": usage.output,
        "cache_read": usage.cache_read,
        "cache_write": usage.cache_write,
        "total_tokens": usage.total_tokens,
    }
    want_usage = expect["usage"] or dict.fromkeys(got_usage, 0)
    differ("usage", got_usage, want_usage)

    error = expect["error"]
    if error is None:
        if message.stop_reason == "error":
            if not message.error_message:
                problems.append("error_message: empty for an error stop")
        elif message.error_message is not None:
            problems.append(f"error_message: got {message.error_message!r}, expected none")
    else:
        got = message.error_message or ""
        if error["message_contains"] not in got:
            problems.append(f"error_message {got!r} lacks {error['message_contains']!r}")
        if error["status"] is not None and not re.search(rf"\b{error['status']}\b", got):
            problems.append(f"error_message {got!r} lacks the HTTP status {error['status']}")
    return problems


# --- event invariants -------------------------------------------------------------------------

_KIND = {
    "text_start": ("text", "start"),
    "text_delta": ("text", "delta"),
    "text_end": ("text", "end"),
    "thinking_start": ("thinking", "start"),
    "thinking_delta": ("thinking", "delta"),
    "thinking_end": ("thinking", "end"),
    "toolcall_start": ("toolCall", "start"),
    "toolcall_delta": ("toolCall", "delta"),
    "toolcall_end": ("toolCall", "end"),
}


def assert_valid_event_sequence(events: list[Any]) -> AssistantMessage:
    """Assert pi-spec §2's invariants on one call's events and return the final message.

    ``start`` first; exactly one terminal ``done``/``error``, last, whose reason is the
    message's ``stop_reason``; every event carries the same ``partial`` object; blocks are
    appended in order; per index ``*_start`` -> ``*_delta``* -> ``*_end`` of one kind; the
    deltas of a text/thinking block concatenate to its ``*_end`` content and final content; a
    tool call's ``toolcall_end`` arguments equal the final block's, and equal the strict parse
    of its raw fragments when those are valid JSON.
    """
    assert events, "no events"
    assert events[0].type == "start", f"first event is {events[0].type}, not start"
    terminal = [i for i, e in enumerate(events) if e.type in ("done", "error")]
    assert terminal == [len(events) - 1], f"terminal events at {terminal} of {len(events)}"
    final: AssistantMessage = events[-1].message
    if events[-1].type == "done":
        assert events[-1].reason == final.stop_reason
        assert final.stop_reason in ("stop", "length", "toolUse")
    else:
        assert events[-1].reason == final.stop_reason
        assert final.stop_reason in ("error", "aborted")
        assert final.error_message, "an error event without error_message"
    for event in events:
        assert event.partial is final, f"{event.type}: partial is not the final message object"

    state: dict[int, str] = {}
    kinds: dict[int, str] = {}
    deltas: dict[int, list[str]] = {}
    ended: dict[int, Any] = {}
    next_index = 0
    for event in events[1:-1]:
        if event.type in ("servertool_call", "servertool_result", "image"):  # a whole block
            assert event.content_index == next_index, f"{event.type} at {event.content_index}"
            block = final.content[next_index]
            fields = {"servertool_call": "server_tool_call", "image": "image"}
            wanted = getattr(event, fields.get(event.type, "server_tool_result"))
            assert block is wanted, f"{event.type}: not the block"
            next_index += 1
            continue
        kind, phase = _KIND[event.type]
        index = event.content_index
        if phase == "start":
            assert index == next_index, f"{event.type} at {index}, expected {next_index}"
            next_index += 1
            state[index] = "open"
            kinds[index] = kind
            deltas[index] = []
            continue
        assert state.get(index) == "open", f"{event.type} at {index}: block not open"
        assert kinds[index] == kind, f"{event.type} at {index}: block is {kinds[index]}"
        if phase == "delta":
            deltas[index].append(event.delta)
        else:
            state[index] = "closed"
            ended[index] = event
    assert next_index == len(final.content), (
        f"{len(final.content)} blocks in the message, {next_index} started"
    )
    for index, kind in kinds.items():
        block = final.content[index]
        joined = "".join(deltas[index])
        if kind == "text":
            assert isinstance(block, TextContent)
            assert joined == block.text, f"text deltas at {index} do not make the final text"
            if index in ended:
                assert ended[index].content == block.text
        elif kind == "thinking":
            assert isinstance(block, ThinkingContent)
            assert joined == block.thinking, f"thinking deltas at {index} != final thinking"
            if index in ended:
                assert ended[index].content == block.thinking
        else:
            assert isinstance(block, ToolCall)
            assert isinstance(block.arguments, dict)
            if index in ended:
                assert ended[index].tool_call.arguments == block.arguments
                if joined.strip() and _strict_json(joined):
                    assert json.loads(joined) == block.arguments, (
                        f"toolcall at {index}: arguments differ from the parsed fragments"
                    )
    return final


# --- transports -------------------------------------------------------------------------------


@dataclass
class Reply:
    """One HTTP response a :class:`ChunkedTransport` serves."""

    status: int
    body: bytes
    headers: dict[str, str]
    stall_after: int | None = None
    """Stop serving (wait forever) after this many bytes; ``None``: serve everything."""


class _Body(httpx2.AsyncByteStream):
    def __init__(self, transport: ChunkedTransport, reply: Reply) -> None:
        self._transport = transport
        self._reply = reply

    async def __aiter__(self):  # type: ignore[override]
        body = self._reply.body
        size = self._transport.chunk_size
        limit = len(body) if self._reply.stall_after is None else self._reply.stall_after
        tail = self._transport.fine_tail
        head = 0 if tail is None else max(0, limit - tail)
        starts = [*range(0, head, _HEAD_CHUNK), *range(head, limit, size)]
        for start, end in zip(starts, [*starts[1:], limit], strict=False):  # none: empty body
            chunk = body[start:end]
            self._transport.bytes_served += len(chunk)
            yield chunk
            await asyncio.sleep(0)
        if self._reply.stall_after is not None:
            await asyncio.Event().wait()  # a connection that stops sending

    async def aclose(self) -> None:
        self._transport.closed += 1


_HEAD_CHUNK = 4096
"""The piece size before a ``fine_tail`` (a socket read's size)."""


class ChunkedTransport(httpx2.AsyncBaseTransport):
    """Serve ``replies`` in order (the last one repeats), each body in ``chunk_size`` pieces.

    With ``fine_tail``, only a body's last ``fine_tail`` bytes come in ``chunk_size`` pieces, what
    precedes them in 4,096-byte pieces (a 300 KB body in 7-byte pieces is 44,000 reads).
    Counts requests, bytes served and response closes (``closed``).
    """

    def __init__(
        self, replies: list[Reply], chunk_size: int = 16, fine_tail: int | None = None
    ) -> None:
        self.replies = replies
        self.chunk_size = chunk_size
        self.fine_tail = fine_tail
        self.requests: list[httpx2.Request] = []
        self.bytes_served = 0
        self.closed = 0

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        self.requests.append(request)
        reply = self.replies[min(len(self.requests), len(self.replies)) - 1]
        return httpx2.Response(reply.status, headers=reply.headers, stream=_Body(self, reply))


def _sdk_client(module: str, name: str) -> Callable[[httpx2.AsyncBaseTransport, str], Any]:
    """A factory of the vendor SDK client ``module.name`` (Anthropic, OpenAI: same arguments)."""

    def factory(transport: httpx2.AsyncBaseTransport, base_url: str) -> Any:
        client_class = getattr(importlib.import_module(module), name)
        return client_class(
            api_key="test-key",
            base_url=base_url,
            max_retries=0,
            http_client=httpx2.AsyncClient(transport=transport),
        )

    return factory


class _GoogleClient:
    """A ``google.genai.Client``'s request machinery (all the adapter uses) + an async close."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._api_client = client._api_client

    async def close(self) -> None:
        await self._client.aio.aclose()


@functools.cache
def _shared_tls() -> tuple[Any, Any]:
    """One TLS context and sync client for every Google and Mistral client made here: never used
    for a request; given, the SDKs skip loading the CA bundle for each client (the truncation
    tests make a client per cut), as the providers' own clients do."""
    context = httpx2.create_ssl_context()
    return context, httpx2.Client(verify=context)


def _google_client(vertex: bool) -> Callable[[httpx2.AsyncBaseTransport, str], Any]:
    def factory(transport: httpx2.AsyncBaseTransport, base_url: str) -> Any:
        # The adapter builds the URL from model.base_url; the client brings auth and transport.
        from google import genai
        from google.genai import types

        context, sync_client = _shared_tls()
        options = types.HttpOptions(
            httpx_async_client=httpx2.AsyncClient(transport=transport),
            httpx_client=sync_client,
            async_client_args={"ssl": context},
            retry_options=types.HttpRetryOptions(attempts=1),
        )
        return _GoogleClient(
            genai.Client(vertexai=vertex, api_key="test-key", http_options=options)
        )

    return factory


def _bedrock_client(transport: httpx2.AsyncBaseTransport, base_url: str) -> Any:
    from pi_sdk_bedrock.converse import BedrockClient

    http = httpx2.AsyncClient(transport=transport)
    return BedrockClient(http, region="us-east-1", endpoint=base_url, token="test-key")


class _MistralClient:
    """A ``mistralai.client.Mistral`` (what the adapter uses of it) + an async close."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.chat = client.chat
        self.sdk_configuration = client.sdk_configuration

    async def close(self) -> None:
        await self.sdk_configuration.async_client.aclose()


def _mistral_client(transport: httpx2.AsyncBaseTransport, base_url: str) -> Any:
    from mistralai.client import Mistral

    return _MistralClient(
        Mistral(
            api_key="test-key",
            server_url=base_url,
            client=_shared_tls()[1],
            async_client=httpx2.AsyncClient(transport=transport),
        )
    )


CLIENT_FACTORIES: dict[str, Callable[[httpx2.AsyncBaseTransport, str], Any]] = {
    "anthropic-messages": _sdk_client("anthropic", "AsyncAnthropic"),
    "openai-completions": _sdk_client("openai", "AsyncOpenAI"),
    "openai-responses": _sdk_client("openai", "AsyncOpenAI"),
    "azure-openai-responses": _sdk_client("openai", "AsyncOpenAI"),  # v1 takes a plain client
    "google-generative-ai": _google_client(vertex=False),
    "google-vertex": _google_client(vertex=True),
    "bedrock-converse-stream": _bedrock_client,
    "mistral-conversations": _mistral_client,
}
"""api -> ``factory(transport, base_url)`` building the vendor SDK client ``StreamOptions.client``
takes, so a test can serve any body through the real adapter."""


def recorded_reply(case: Case) -> Reply:
    """The recorded response of ``case`` as a :class:`Reply` (body bytes, status, headers)."""
    import vcr.serialize
    import vcr.serializers.yamlserializer as yamlserializer

    _, responses = vcr.serialize.deserialize(case.cassette.read_text("utf-8"), yamlserializer)[:2]
    response = responses[case.index]
    body = response["body"]["string"]
    if isinstance(body, str):
        body = body.encode("utf-8")
    headers = {
        k: (v[0] if isinstance(v, list) else v)
        for k, v in response["headers"].items()
        if k.lower() not in ("content-length", "content-encoding", "transfer-encoding")
    }
    return Reply(status=response["status"]["code"], body=body, headers=headers)
