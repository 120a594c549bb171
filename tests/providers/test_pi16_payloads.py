"""Request bodies side by side with the real pi-ai 1.6.0 (issue 27, interop).

Under Node 22 (tests/_support/node22.py), pi-ai 1.6's ``streamSimple`` and pi-sdk's ``stream``
send the same context and options to the same model, each to a capture server on 127.0.0.1
(``tests/node/pi16_payloads.mjs`` for pi; a local server here for pi-sdk): the server records
the JSON body and answers HTTP 400, so nothing leaves the machine and nothing is retried. The
bodies are compared field by field: each differing JSON path must be a listed deliberate
difference (:data:`DELIBERATE`, also in docs/pi-ai-differences.md), else the test fails naming
the path and both values.

The grid: 6 contexts (text with a temperature; an image; another vendor's thinking with
reasoning on; a tool loop with reasoning and a session; a long history near the window with an
explicit cap; long cache retention at a low level) x 8 targets, one catalog model per wire API =
48 cases; plus the 11 Chat Completions thinking formats with reasoning on and off (22 cases).

Issue 29 (constrained sampling): a context with prefer-strict, grammar and plain tools whose
history called the grammar tool, on the 8 grid models (strict dropped where the model cannot)
and on one strict-capable model per API, plus a Chat model with grammar tools (17 cases).
Issue 27 (``max``): reasoning ``max`` and ``xhigh`` on models with and without those levels in
their map, on every API (36 cases). Strict tools over Claude's limits: the same context plus a
require-strict tool, refused once by the capture servers as pi-ai 1.6's ``strict-tool-limits``
texts say, then sent again with the prefer tools non-strict; the second body is compared
(Anthropic and Bedrock: 2 cases).
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, get_args

import pytest
from _support.node22 import needs_pi16, run_mjs
from pi_sdk_openai.completions._compat import ThinkingFormat

import pi_sdk
from pi_sdk.provider import load_models_json

pytestmark = needs_pi16

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
TOOL = {
    "name": "get_weather",
    "description": "The weather in a city",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "City name"}},
        "required": ["city"],
    },
}
USAGE = {
    "input": 0,
    "output": 0,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 0,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def _user(text: str, ts: int) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": ts}


def _tool_result(call_id: str, name: str, text: str, ts: int) -> dict[str, Any]:
    content = [{"type": "text", "text": text}]
    result = {"role": "toolResult", "toolCallId": call_id, "toolName": name, "content": content}
    return {**result, "isError": False, "timestamp": ts}


def _assistant(content: list[dict[str, Any]], ts: int, **extra: Any) -> dict[str, Any]:
    message = {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": USAGE,
        "stopReason": "stop",
        "timestamp": ts,
    }
    return {**message, **extra}


CONTEXTS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "text": (
        {"systemPrompt": "You are terse.", "messages": [_user("Say hi.", 1)]},
        {"temperature": 0.3},
    ),
    "image": (
        {
            "systemPrompt": "Describe images.",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "What is this?"},
                        {"type": "image", "data": PNG, "mimeType": "image/png"},
                    ],
                    "timestamp": 1,
                }
            ],
        },
        {},
    ),
    "foreign_thinking": (
        {
            "systemPrompt": "You are helpful.",
            "messages": [
                _user("What is 2+2?", 1),
                _assistant(
                    [
                        {
                            "type": "thinking",
                            "thinking": "Simple sum.",
                            "thinkingSignature": "sig-anthropic-abc",
                        },
                        {"type": "text", "text": "4"},
                    ],
                    2,
                ),
                _user("And 3+3?", 3),
            ],
        },
        {"reasoning": "medium"},
    ),
    "tool_loop": (
        {
            "systemPrompt": "Use tools.",
            "tools": [TOOL],
            "messages": [
                _user("Weather in Paris?", 1),
                _assistant(
                    [
                        {"type": "text", "text": "Checking."},
                        {
                            "type": "toolCall",
                            "id": "toolu_01",
                            "name": "get_weather",
                            "arguments": {"city": "Paris"},
                        },
                    ],
                    2,
                    stopReason="toolUse",
                ),
                _tool_result("toolu_01", "get_weather", "Sunny, 21 C", 3),
            ],
        },
        {"reasoning": "high", "sessionId": "session-1"},
    ),
    "long_history": (
        {
            "systemPrompt": "Summarize.",
            "messages": [
                m
                for i in range(10)
                for m in (
                    _user(f"Part {i}: " + "lorem ipsum dolor sit amet " * 2200, 10 * i + 1),
                    _assistant([{"type": "text", "text": f"Noted part {i}."}], 10 * i + 2),
                )
            ]
            + [_user("Now summarize everything.", 200)],
        },
        {"maxTokens": 100000},
    ),
    "cache_long": (
        {"systemPrompt": "Cache me.", "messages": [_user("Hello again.", 1)]},
        {"reasoning": "minimal", "cacheRetention": "long", "sessionId": "session-2"},
    ),
}

TARGETS: dict[str, tuple[str, str, str]] = {
    "anthropic-messages": ("pi_sdk_anthropic", "anthropic", "claude-sonnet-4-5"),
    "openai-completions": ("pi_sdk_openai", "openrouter", "anthropic/claude-opus-4.7:batch"),
    "openai-responses": ("pi_sdk_openai", "openai", "gpt-5-mini"),
    "azure-openai-responses": ("pi_sdk_azure", "azure", "gpt-5-mini"),
    "google-generative-ai": ("pi_sdk_google", "google", "gemini-2.5-flash"),
    "google-vertex": ("pi_sdk_google", "google-vertex", "gemini-2.5-flash"),
    "mistral-conversations": ("pi_sdk_mistral", "mistral", "magistral-medium-latest"),
    "bedrock-converse-stream": (
        "pi_sdk_bedrock",
        "amazon-bedrock",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    ),
}

THINKING_FORMATS = get_args(ThinkingFormat)

EFFORT_TARGETS: dict[str, tuple[str, str, str]] = {
    "anthropic-messages": ("pi_sdk_anthropic", "anthropic", "claude-opus-5-5"),
    "openai-responses": ("pi_sdk_openai", "openai", "gpt-6-sol"),
}
"""Models with ``supportsMidConvoEffort``: the effort goes in markers / ``configuration_update``."""


def _effort_history(api: str, model_id: str) -> dict[str, Any]:
    """A same-model reply that recorded its level, a foreign one, then a question."""
    own = _assistant(
        [{"type": "text", "text": "Done."}],
        2,
        api=api,
        provider=EFFORT_TARGETS[api][1],
        model=model_id,
        providerThinkingLevel="low",
    )
    other = _assistant([{"type": "text", "text": "Also done."}], 4, providerThinkingLevel="max")
    return {
        "systemPrompt": "Be brief.",
        "messages": [_user("One.", 1), own, _user("Two.", 3), other, _user("Three.", 5)],
    }


RESPONSES = ("openai-responses", "azure-openai-responses")
DELIBERATE: tuple[tuple[tuple[str, ...], str, str, str], ...] = (
    (
        RESPONSES,
        r"^\$\.input\[\d+\]\.(id|status|content)$",
        r'^("msg_pi_\d+(_\d+)?"|"completed"|\[\{"type": "output_text".*\])$',
        "an assistant text without a replayed reasoning item goes as a plain assistant message,"
        " without pi-ai's made-up msg_pi_<n> item id (OpenAI pairs output item ids with"
        " reasoning items)",
    ),
    (
        ("anthropic-messages",),
        r"^\$\.thinking$",
        r'^\{"type": "enabled"',
        "thinking is left out while a tool loop has no signed thinking (Anthropic answers 400)",
    ),
    (
        ("google-generative-ai", "google-vertex"),
        r"^\$\.contents\[\d+\]\.parts\[\d+\]\.thoughtSignature$",
        r'^"<absent>"$',
        "Gemini 3 gets another model's unsigned function call with Google's"
        " skip_thought_signature_validator signature (it answers 400 without one)",
    ),
    (
        ("mistral-conversations",),
        r"^\$\.messages\[\d+\]\.(tool_calls\[\d+\]\.id|tool_call_id)$",
        r'^"[A-Za-z0-9]{9}"$',
        "another vendor's tool-call id is hashed to Mistral's 9 characters with pi-sdk's own"
        " hash (pi-ai's shortHash differs); both are valid Mistral ids",
    ),
)
"""(APIs, regex over the differing JSON path, regex over pi-ai's value as JSON, why): the
differences pi-sdk keeps on purpose, each listed in docs/pi-ai-differences.md."""


# --- issue 29: strict and grammar tools; issue 27: the max level -------------------------------

_SQL_GRAMMAR = 'start: "SELECT " NAME " FROM " NAME\n%import common.CNAME -> NAME'
STRICT_TOOLS: list[dict[str, Any]] = [
    {
        **TOOL,
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
        "constrainedSampling": {"type": "json_schema", "strict": "prefer"},
    },
    {
        "name": "run_sql",
        "description": "Run one SQL query",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "The query"}},
            "required": ["query"],
        },
        "constrainedSampling": {"type": "grammar", "variants": {"openai_lark": _SQL_GRAMMAR}},
    },
    {
        "name": "pick",
        "description": "Pick a number",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "integer", "minimum": 1}},
            "required": ["n"],
        },
        "constrainedSampling": {"type": "json_schema", "strict": "prefer"},
    },
    {"name": "plain", "description": "No constraint", "parameters": TOOL["parameters"]},
]
"""A prefer-strict tool with an optional property, a Lark grammar tool, a prefer-strict tool
whose ``minimum`` Anthropic's strict mode rejects (so it goes non-strict there), a plain tool."""

_REASONING_ITEM = '{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"enc"}'


def _strict_context(call_id: str) -> dict[str, Any]:
    """:data:`STRICT_CONTEXT` with another tool-call id."""
    text = json.dumps(STRICT_CONTEXT).replace('"call_1|ctc_1"', json.dumps(call_id))
    return json.loads(text)


STRICT_CONTEXT: dict[str, Any] = {
    "systemPrompt": "Use tools.",
    "tools": STRICT_TOOLS,
    "messages": [
        _user("How many users?", 1),
        _assistant(
            [
                {"type": "thinking", "thinking": "", "thinkingSignature": _REASONING_ITEM},
                {
                    "type": "toolCall",
                    "id": "call_1|ctc_1",
                    "name": "run_sql",
                    "arguments": {"query": "SELECT count FROM users"},
                },
            ],
            2,
            api="openai-responses",
            provider="openai",
            model="gpt-5.2",
            stopReason="toolUse",
        ),
        _tool_result("call_1|ctc_1", "run_sql", "42", 3),
    ],
}
"""A turn that called the grammar tool (a ``custom_tool_call`` of gpt-5.2) and its result.
Replayed to another model, the call id is a plain ``call_1`` (how each API rewrites a foreign
``call|item`` id is not what these cases test)."""

STRICT_TARGETS: dict[str, tuple[str, str, str]] = {
    **TARGETS,
    "openai-responses": ("pi_sdk_openai", "openai", "gpt-5.2"),
    "google-generative-ai": ("pi_sdk_google", "google", "gemini-3-flash-preview"),
    "google-vertex": ("pi_sdk_google", "google-vertex", "gemini-3-flash-preview"),
}
"""Per API a catalog model whose compat takes strict tools: the grid's, but Gemini 3 (Gemini 2.5
cannot) and gpt-5.2 (its history is this context's); Mistral's opts in by compat below, as pi-ai
1.6 leaves it off by default. gpt-5.2 and Azure's gpt-5-mini take grammar tools."""

STRICT_REFUSAL = "Too many strict tools (25). The maximum number of strict tools is 20."
"""Claude's refusal of strict tools over its limits (pi-ai 1.6 ``strict-tool-limits.ts``)."""

MAX_TARGETS: tuple[tuple[str, str, str, str], ...] = (
    ("pi_sdk_anthropic", "anthropic", "claude-opus-4-7", "anthropic-messages"),
    ("pi_sdk_anthropic", "anthropic", "claude-sonnet-4-5", "anthropic-messages"),
    ("pi_sdk_openai", "openai", "gpt-5.2", "openai-responses"),
    ("pi_sdk_openai", "openai", "gpt-5.6-luna", "openai-responses"),
    ("pi_sdk_azure", "azure", "gpt-5.6-luna", "azure-openai-responses"),
    ("pi_sdk_openai", "openrouter", "anthropic/claude-opus-4.7:batch", "openai-completions"),
    ("pi_sdk_google", "google", "gemini-3-flash-preview", "google-generative-ai"),
    ("pi_sdk_google", "google", "gemini-3.1-pro-preview", "google-generative-ai"),
    ("pi_sdk_google", "google", "gemma-4-31b-it", "google-generative-ai"),
    ("pi_sdk_google", "google", "gemini-2.5-pro", "google-generative-ai"),
    ("pi_sdk_google", "google", "gemini-2.5-flash", "google-generative-ai"),
    ("pi_sdk_google", "google-vertex", "gemini-3-flash-preview", "google-vertex"),
    ("pi_sdk_mistral", "mistral", "zai-glm-5-3", "mistral-conversations"),
    ("pi_sdk_mistral", "mistral", "mistral-large-latest", "mistral-conversations"),
    (
        "pi_sdk_bedrock",
        "amazon-bedrock",
        "us.anthropic.claude-opus-4-7",
        "bedrock-converse-stream",
    ),
    (
        "pi_sdk_bedrock",
        "amazon-bedrock",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "bedrock-converse-stream",
    ),
    ("pi_sdk_bedrock", "amazon-bedrock", "us.openai.gpt-5.6-luna", "bedrock-converse-stream"),
    ("pi_sdk_bedrock", "amazon-bedrock", "openai.gpt-oss-120b", "bedrock-converse-stream"),
)
"""(package, provider, id, api): models with and without ``max`` in their level map, per API."""


def _model(api: str) -> dict[str, Any]:
    return _catalog_model(*TARGETS[api], api)


@functools.cache
def _catalog(package: str) -> tuple[pi_sdk.Model, ...]:
    """``package``'s models.json, read once per run (86 cases read it at collection)."""
    return tuple(load_models_json(package))


def _catalog_model(package: str, provider: str, model_id: str, api: str) -> dict[str, Any]:
    for model in _catalog(package):
        if model.provider == provider and model.id == model_id and model.api == api:
            return model.model_dump(mode="json", by_alias=True, exclude_none=True)
    raise AssertionError(f"{provider}/{model_id} is not in {package}'s catalog")


def _format_model(fmt: str) -> dict[str, Any]:
    compat: dict[str, Any] = {"thinkingFormat": fmt, "supportsStrictMode": True}
    if fmt == "chat-template":
        compat["chatTemplateKwargs"] = {
            "enable_thinking": {"$var": "thinking.enabled"},
            "reasoning_effort": {"$var": "thinking.effort", "omitWhenOff": True},
            "thinking_budget": {"$var": "thinking.budget"},
            "fixed": 1,
        }
        compat["thinkingTokenBudgetField"] = "thinking_budget_tokens"
    if fmt == "baseten":
        compat["chatTemplateArgs"] = {"enable_thinking": {"$var": "thinking.enabled"}}
    return {
        "id": f"local-{fmt}",
        "name": f"Local {fmt}",
        "api": "openai-completions",
        "provider": "local-server",
        "baseUrl": "http://example.invalid/v1",
        "reasoning": True,
        "input": ["text"],
        "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 131072,
        "maxTokens": 32768,
        "compat": compat,
        "thinkingLevelMap": {"off": "none", "high": "high", "medium": "medium"},
        "type": "chat",
    }


def _cases() -> list[dict[str, Any]]:
    cases = [
        {"id": f"{name}@{api}", "model": _model(api), "context": ctx, "options": opts}
        for name, (ctx, opts) in CONTEXTS.items()
        for api in TARGETS
    ]
    for api, (package, provider, model_id) in EFFORT_TARGETS.items():
        model = _catalog_model(package, provider, model_id, api)
        effort_contexts = {
            **{name: CONTEXTS[name] for name in ("text", "tool_loop", "cache_long")},
            "history-high": (_effort_history(api, model_id), {"reasoning": "high"}),
            "history-off": (_effort_history(api, model_id), {}),
            "history-max": (_effort_history(api, model_id), {"reasoning": "xhigh"}),
        }
        for name, (ctx, opts) in effort_contexts.items():
            cases.append(
                {"id": f"effort-{name}@{api}", "model": model, "context": ctx, "options": opts}
            )
    foreign = _strict_context("call_1")
    for api in TARGETS:  # strict tools where the catalog model cannot: prefer is dropped
        case = {"model": _model(api), "context": foreign, "options": {}}
        cases.append({"id": f"strict@{api}", **case})
    for api, (package, provider, model_id) in STRICT_TARGETS.items():
        model = _catalog_model(package, provider, model_id, api)
        if api == "mistral-conversations":
            model["compat"] = {**model.get("compat", {}), "supportsStrictMode": True}
        context = STRICT_CONTEXT if model_id == "gpt-5.2" else foreign
        case = {"model": model, "context": context, "options": {"reasoning": "high"}}
        if api == "openai-completions":  # no catalog Chat model takes grammar tools: opt in
            grammar = {**model, "compat": {**model["compat"], "supportsOpenAIGrammarTools": True}}
            cases.append({"id": f"strict-grammar@{api}", **case, "model": grammar})
        cases.append({"id": f"strict-capable@{api}", **case})
    require = {
        **TOOL,
        "name": "must",
        "constrainedSampling": {"type": "json_schema", "strict": "require"},
    }
    downgraded = {**foreign, "tools": [*foreign["tools"], require]}
    for api in ("anthropic-messages", "bedrock-converse-stream"):
        model = _catalog_model(*STRICT_TARGETS[api], api)
        case = {"model": model, "context": downgraded, "options": {}, "refuse": STRICT_REFUSAL}
        cases.append({"id": f"downgraded@{api}", **case})
    text_context, _ = CONTEXTS["text"]
    for package, provider, model_id, api in MAX_TARGETS:
        model = _catalog_model(package, provider, model_id, api)
        for level in ("max", "xhigh"):
            case = {"model": model, "context": text_context, "options": {"reasoning": level}}
            cases.append({"id": f"{level}@{provider}/{model_id}", **case})
    text, _ = CONTEXTS["tool_loop"]
    for fmt in THINKING_FORMATS:
        for level in ("high", None):
            options = {"reasoning": level} if level else {}
            cases.append(
                {
                    "id": f"format-{fmt}-{level or 'off'}",
                    "model": _format_model(fmt),
                    "context": text,
                    "options": options,
                }
            )
    return cases


# --- pi-sdk's side: a capture server and stream() ----------------------------------------------


class _Capture(BaseHTTPRequestHandler):
    bodies: dict[str, Any]
    refusals: dict[str, str]
    """Case key -> the strict-limit text its first request is refused with (then forgotten)."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        case = self.path.split("/")[1]
        refusal = self.refusals.pop(case, None)
        if refusal is not None:
            self._refuse(refusal)
            return
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        self.bodies.setdefault(case, body)
        answer = b'{"error": {"type": "invalid_request_error", "message": "captured"}}'
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def _refuse(self, text: str) -> None:
        """Claude's refusal of strict tools over its limits, as this API sends it."""
        if "/model/" in self.path:  # Bedrock
            answer, headers = {"message": text}, {"x-amzn-errortype": "ValidationException"}
        else:
            error = {"type": "invalid_request_error", "message": text}
            answer, headers = {"type": "error", "error": error}, {}
        data = json.dumps(answer).encode()
        self.send_response(400)
        for name, value in {"content-type": "application/json", **headers}.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        del format, args


def _options(raw: dict[str, Any]) -> pi_sdk.StreamOptions:
    names = {
        "temperature": "temperature",
        "reasoning": "reasoning",
        "sessionId": "session_id",
        "maxTokens": "max_tokens",
        "cacheRetention": "cache_retention",
    }
    values = {names[key]: value for key, value in raw.items()}
    return pi_sdk.StreamOptions(api_key="test-key", max_retries=0, **values)


def _pi_sdk_bodies(cases: list[dict[str, Any]]) -> dict[str, Any]:
    bodies: dict[str, Any] = {}
    refusals = {_key(case["id"]): case["refuse"] for case in cases if "refuse" in case}
    handler = type("Handler", (_Capture,), {"bodies": bodies, "refusals": refusals})
    server = ThreadingHTTPServer(("127.0.0.2", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]

    async def run_all() -> None:
        for case in cases:
            key = _key(case["id"])
            raw = {**case["model"], "baseUrl": f"http://127.0.0.2:{port}/{key}"}
            model = pi_sdk.Model.model_validate(raw)
            context = pi_sdk.Context.model_validate(case["context"])
            reply = await pi_sdk.complete(model, context, _options(case["options"]))
            if key not in bodies:
                bodies[key] = {"error": reply.error_message}

    try:
        asyncio.run(run_all())
    finally:
        server.shutdown()
        server.server_close()
    return {case["id"]: bodies[_key(case["id"])] for case in cases}


def _key(case_id: str) -> str:
    """The case's path segment on the capture server."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", case_id)


def _diff(path: str, ours: Any, theirs: Any) -> Iterator[tuple[str, Any, Any]]:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(set(ours) | set(theirs)):
            yield from _diff(
                f"{path}.{key}", ours.get(key, "<absent>"), theirs.get(key, "<absent>")
            )
    elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            yield from _diff(f"{path}[{i}]", a, b)
    elif ours != theirs:
        yield path, ours, theirs


def _deliberate(api: str, path: str, theirs: Any) -> bool:
    value = json.dumps(theirs)
    return any(
        api in apis and re.search(pattern, path) and re.search(expected, value)
        for apis, pattern, expected, _ in DELIBERATE
    )


@pytest.fixture(scope="module")
def sides() -> dict[str, tuple[str, Any, Any]]:
    cases = _cases()
    theirs = run_mjs("pi16_payloads.mjs", stdin={"cases": cases}, timeout=300)
    ours = _pi_sdk_bodies(cases)
    return {
        c["id"]: (c["model"]["api"], ours[c["id"]], theirs[c["id"]].get("body", theirs[c["id"]]))
        for c in cases
    }


def test_the_grid_is_48_cases_on_the_8_apis() -> None:
    cases = _cases()
    extra = ("format-", "strict", "max@", "xhigh@", "effort-", "downgraded@")
    grid = [c for c in cases if not c["id"].startswith(extra)]
    assert len(grid) == 48 and len({c["model"]["api"] for c in grid}) == 8


@pytest.mark.parametrize("case", [c["id"] for c in _cases()])
def test_the_body_is_pi_ais_or_a_listed_difference(sides, case: str) -> None:  # noqa: ANN001
    api, ours, theirs = sides[case]
    assert "error" not in theirs, f"pi-ai made no request: {theirs}"
    assert "error" not in ours or isinstance(ours, dict) and "messages" in ours, ours
    unlisted = [
        f"{path}: pi-sdk {json.dumps(a)[:300]} / pi-ai {json.dumps(b)[:300]}"
        for path, a, b in _diff("$", ours, theirs)
        if not _deliberate(api, path, b)
    ]
    assert not unlisted, "\n".join(unlisted)
