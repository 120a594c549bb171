"""Request building shared by the Gemini API and Vertex AI (pi-spec §4.7-4.8).

pi-mono ``google-shared.ts`` and ``google.ts``.

:func:`build_request` turns a :class:`pi_sdk.Context` into the ``generateContent`` wire body
(camelCase JSON, exactly what is sent and what ``on_payload`` hooks see)::

    {"contents": [...], "systemInstruction": {...}, "generationConfig": {...},
     "tools": [{"functionDeclarations": [...]}], "toolConfig": {...}}

Rules that differ from pi-mono are marked "(pi-sdk)":

* thought signatures are echoed on the exact part they came with (text, thought or function
  call), for the same model only, and only when they look like base64 (pi-mono);
* a model turn whose function calls carry no signature at all (another model's turn, or one that
  lost its signatures), sent to a model that validates them (Gemini 3 and later), gets the
  documented placeholder ``skip_thought_signature_validator`` on its first call only, sent
  base64-encoded as every ``thoughtSignature`` (bytes) value is, per endpoint
  (:data:`THOUGHT_SIGNATURE_PLACEHOLDERS`, docs/migration.md): Gemini validates the first
  function call of each step and signs only that one of parallel calls (pi-sdk: pi-mono 0.73
  sends no placeholder; earlier pi-mono sent the literal string on every unsigned call);
* consecutive tool results form one user turn whose function responses follow the order of the
  calls in the preceding model turn, matched by tool-call id, whatever order the results were
  recorded in (pi-sdk: parallel tools finish out of order; Gemini pairs responses by position);
* ``functionCall.id`` / ``functionResponse.id`` are sent for ids Gemini issued (same model) and
  always for ``claude-*`` / ``gpt-oss-*`` models; ids pi-sdk synthesized are never sent (pi-sdk);
* tool-result images go into ``functionResponse.parts`` on Gemini 3 and later, and otherwise
  into one user turn after the function responses (pi-sdk: pi-mono adds one turn per result,
  which splits the responses of parallel calls across turns).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pi_sdk
from pi_sdk import (
    AssistantMessage,
    ConfigurationError,
    Context,
    DocumentContent,
    ImageContent,
    Model,
    ServerToolCall,
    ServerToolResult,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_sdk import provider as kit
from pi_sdk.provider import (
    OUTPUT_TOOL_NAME,
    is_same_source,
    sanitize_surrogates,
    sanitize_tool_call_id,
    signature_origin,
    transform_messages,
    with_output_tool,
)

from ._shared_documents import document_part, document_rules
from ._shared_schema import to_gemini_parameters
from ._shared_server_tools import SERVER_TOOL_DEFINITIONS
from ._shared_thinking import thinking_config

__all__ = [
    "SYNTHETIC_ID_PREFIX",
    "THOUGHT_SIGNATURE_PLACEHOLDER",
    "THOUGHT_SIGNATURE_PLACEHOLDERS",
    "THOUGHT_SIGNATURE_SENTINEL",
    "build_request",
    "convert_messages",
    "convert_tools",
    "is_valid_thought_signature",
    "match_recorded",
    "normalize_tool_call_id",
    "recorded_model",
    "requires_thought_signatures",
    "thought_signature_placeholder",
    "thinking_config",
]

TOOL_CALL_ID_MAX_LEN = 64
"""Longest tool-call id sent, in characters (the Anthropic shape ``claude-*`` models on Vertex
require; Gemini itself accepts it)."""


def normalize_tool_call_id(tool_call_id: str, model: Model, source: AssistantMessage) -> str:
    """Make another model's tool-call id valid for Gemini / Vertex: ``[a-zA-Z0-9_-]``, ≤ 64.

    Gemini matches function responses by name and order and its ids are optional, but
    ``claude-*`` models on Vertex need Anthropic's id shape, so every foreign id gets it (pi-mono
    ``google-shared.ts``; pi-spec §4.7). Valid ids are kept; others are sanitized with a hash
    suffix (:func:`pi_sdk.provider.sanitize_tool_call_id`). The
    :data:`pi_sdk.provider.ToolCallIdNormalizer`
    passed to :func:`pi_sdk.provider.transform_messages`.
    """
    del model, source
    return sanitize_tool_call_id(tool_call_id, max_len=TOOL_CALL_ID_MAX_LEN)


THOUGHT_SIGNATURE_SENTINEL = "skip_thought_signature_validator"
"""The dummy signature both the Gemini API ("Thought signatures", FAQ) and Vertex AI ("Thought
signatures", using REST or manual handling) document for function calls Gemini did not produce."""

THOUGHT_SIGNATURE_PLACEHOLDER = "c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="
""":data:`THOUGHT_SIGNATURE_SENTINEL` as the wire carries a ``thoughtSignature``: the field is
bytes (``string (bytes format)`` in both REST references), so its JSON value is base64 and this
decodes to the sentinel's bytes (what the google-genai SDKs send for ``thought_signature=b"..."``).
"""

THOUGHT_SIGNATURE_PLACEHOLDERS: dict[str, str] = {
    # Gemini API: pydantic-ai's recorded Gemini 3 requests carrying the base64 form were answered
    # 200 (issue 18); the literal string is also reported accepted there.
    "google-generative-ai": THOUGHT_SIGNATURE_PLACEHOLDER,
    # Vertex AI: the literal string is reported rejected (HTTP 400 "Invalid JSON in request body",
    # earendil-works/pi#4032; Zoo-Code-Org/Zoo-Code#776 switched to the base64 form and merged).
    "google-vertex": THOUGHT_SIGNATURE_PLACEHOLDER,
}
"""The placeholder sent per wire API (decided per endpoint on the evidence in docs/migration.md)."""


def thought_signature_placeholder(api: str) -> str:
    """The ``thoughtSignature`` placeholder for an unsigned function call sent through ``api``.

    Args:
        api: ``"google-generative-ai"`` or ``"google-vertex"``; another API that reuses this
            request code gets the base64 form (the bytes field's only valid JSON encoding).
    """
    return THOUGHT_SIGNATURE_PLACEHOLDERS.get(api, THOUGHT_SIGNATURE_PLACEHOLDER)


SYNTHETIC_ID_PREFIX = "gemini_call_"
"""Prefix of the tool-call ids pi-sdk makes up when Gemini sends a call without one."""


_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
_GEMINI_MAJOR = re.compile(r"gemini-(\d+)")
_TOOL_CHOICE = {"auto": "AUTO", "none": "NONE", "any": "ANY", "required": "ANY"}


# --- model families --------------------------------------------------------------------------


def _gemini_major(model_id: str) -> int | None:
    match = _GEMINI_MAJOR.search(model_id.lower())
    return int(match.group(1)) if match else None


def requires_thought_signatures(model_id: str) -> bool:
    """True for Gemini 3 and later, which reject an unsigned first function call (HTTP 400)."""
    major = _gemini_major(model_id)
    return major is not None and major >= 3


def recorded_model(provider: str, api: str, model_id: str, base_url: str) -> Model:
    """The model a recorded request was sent to (``recognize``): the catalog's, else a stand-in.

    The catalog entry keeps its prices and limits with ``base_url`` set to where the recording
    went; an id the catalog lacks gets a model with text and image input, reasoning on for
    thinking-capable families.
    """
    reasoning = requires_thought_signatures(model_id) or "2.5" in model_id
    return kit.recorded_model(
        provider, model_id, api=api, base_url=base_url, reasoning=reasoning, input=["text", "image"]
    )


def match_recorded(
    method: str, uri: str, path: re.Pattern[str]
) -> tuple[re.Match[str], str] | None:
    """Match a recorded request's URL path (``recognize``); ``None`` unless a ``POST`` that fits.

    ``path`` has the groups ``prefix`` (optional) and ``version``. Returns the match and the
    recorded URL up to and including the API version (scheme, host, prefix, version).
    """
    if method.upper() != "POST":
        return None
    parts = urlsplit(uri)
    match = path.match(parts.path)
    if match is None:
        return None
    return match, f"{parts.scheme}://{parts.netloc}{match['prefix'] or ''}/{match['version']}"


def _requires_tool_call_id(model_id: str) -> bool:
    # pi-ai 1.6 requiresToolCallId: Claude and gpt-oss models served through Google APIs need
    # ids on calls/results, and Gemini 3+ pairs them by id.
    return model_id.startswith(("claude-", "gpt-oss-")) or requires_thought_signatures(model_id)


def is_valid_thought_signature(signature: str | None) -> bool:
    """True for a non-empty base64 string (pi-mono ``isValidThoughtSignature``)."""
    return bool(signature) and len(signature) % 4 == 0 and bool(_BASE64.match(signature or ""))


# --- messages -----------------------------------------------------------------------------------


def _image_part(image: ImageContent | DocumentContent) -> dict[str, Any]:
    if isinstance(image, DocumentContent):
        return document_part(image)
    return {"inlineData": {"mimeType": image.mime_type, "data": image.data}}


def _user_content(message: UserMessage) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        parts: list[dict[str, Any]] = [{"text": message.content}] if message.content else []
    else:
        parts = []
        for block in message.content:
            if isinstance(block, TextContent):
                if block.text:
                    parts.append({"text": block.text})
            else:  # transform_messages already replaced images for text-only models
                parts.append(_image_part(block))  # or checked the document
    return {"role": "user", "parts": parts} if parts else None


def _attached_text(result: ToolResultMessage) -> str:
    if any(isinstance(b, ImageContent) for b in result.content):
        return "(see attached image)"
    return "(see attached document)"


class _Converter:
    """Walks the transformed history once, keeping what tool results need from their calls."""

    def __init__(self, model: Model, origin: str) -> None:
        self.model = model
        self.origin = origin
        self.multimodal_responses = requires_thought_signatures(model.id)
        self.contents: list[dict[str, Any]] = []
        self.sent_ids: dict[str, str | None] = {}
        """tool_call_id -> the id sent on its functionCall (``None``: sent without one)."""
        self.call_order: dict[str, int] = {}
        self.results: list[ToolResultMessage] = []

    def assistant(self, message: AssistantMessage) -> None:
        same = is_same_source(message, self.model, self.origin)
        send_ids = _requires_tool_call_id(self.model.id)
        parts: list[dict[str, Any]] = []
        first_call: dict[str, Any] | None = None
        signed_call = False
        self.call_order = {}
        for block in message.content:
            if isinstance(block, TextContent):
                if not block.text.strip():
                    continue
                part: dict[str, Any] = {"text": block.text}
                if same and is_valid_thought_signature(block.text_signature):
                    part["thoughtSignature"] = block.text_signature
            elif isinstance(block, ThinkingContent):
                if not block.thinking.strip():
                    continue
                # transform_messages already turned other models' thinking into text.
                part = {"thought": True, "text": block.thinking}
                if same and is_valid_thought_signature(block.thinking_signature):
                    part["thoughtSignature"] = block.thinking_signature
            elif isinstance(block, ServerToolCall | ServerToolResult):
                if block.raw is None:
                    continue
                part = block.raw  # a server tool's part, replayed as it came (same source)
            elif isinstance(block, ImageContent):  # an image the model made (same source)
                part = {"inlineData": {"mimeType": block.mime_type, "data": block.data}}
                if same and is_valid_thought_signature(block.thought_signature):
                    part["thoughtSignature"] = block.thought_signature
            else:
                part = self._function_call(block, same, send_ids)
                if first_call is None:
                    first_call = part
                signed_call = signed_call or "thoughtSignature" in part
            parts.append(part)
        if (
            first_call is not None
            and not signed_call
            and requires_thought_signatures(self.model.id)
        ):
            first_call["thoughtSignature"] = thought_signature_placeholder(self.model.api)
        if parts:
            self.contents.append({"role": "model", "parts": parts})

    def _function_call(self, call: ToolCall, same: bool, send_ids: bool) -> dict[str, Any]:
        function: dict[str, Any] = {"name": call.name, "args": call.arguments or {}}
        vendor_id = same and not call.id.startswith(SYNTHETIC_ID_PREFIX)
        if send_ids or vendor_id:
            function["id"] = call.id
        self.sent_ids[call.id] = function.get("id")
        self.call_order.setdefault(call.id, len(self.call_order))
        part: dict[str, Any] = {"functionCall": function}
        if same and is_valid_thought_signature(call.thought_signature):
            part["thoughtSignature"] = call.thought_signature
        return part

    def flush_results(self) -> None:
        if not self.results:
            return
        unknown = len(self.call_order)
        ordered = sorted(self.results, key=lambda r: self.call_order.get(r.tool_call_id, unknown))
        self.results = []
        parts: list[dict[str, Any]] = []
        trailing: list[dict[str, Any]] = []
        for result in ordered:
            texts = [b.text for b in result.content if isinstance(b, TextContent)]
            text = "\n".join(texts)
            images = [_image_part(b) for b in result.content if not isinstance(b, TextContent)]
            value = text if text else (_attached_text(result) if images else "")
            response: dict[str, Any] = {
                "name": result.tool_name,
                "response": {"error": value} if result.is_error else {"output": value},
            }
            sent_id = self.sent_ids.get(result.tool_call_id)
            if sent_id is not None:
                response["id"] = sent_id
            elif _requires_tool_call_id(self.model.id):
                response["id"] = result.tool_call_id
            if images and self.multimodal_responses:
                response["parts"] = images
            elif images:
                trailing.extend([{"text": "Tool result image:"}, *images])
            parts.append({"functionResponse": response})
        self.contents.append({"role": "user", "parts": parts})
        if trailing:
            self.contents.append({"role": "user", "parts": trailing})


def convert_messages(
    model: Model,
    context: Context,
    options: StreamOptions,
    origin: str | None = None,
    *,
    parts: kit.ContextParts | None = None,
) -> list[dict[str, Any]]:
    """Return Gemini ``contents`` for ``context.messages``, after ``transform_messages``.

    The transform makes the history valid for ``model`` first (signatures only from the same
    source, ids filled and normalized, lone surrogates removed, images replaced for text-only
    models, orphan results dropped, missing results synthesized). Then user text and images
    become ``user`` parts (empty turns skipped); assistant text, thinking and tool calls become
    ``model`` parts (blank text and thinking skipped); tool results become ``functionResponse``
    parts (module docstring).

    Args:
        model: The target model.
        context: The messages to convert.
        options: ``foreign_reasoning`` is applied to other models' thinking.
        origin: Where the request goes (:func:`pi_sdk.provider.signature_origin` of the URL actually
            called); default ``signature_origin(model)``.
        parts: ``context`` read already (``kit.ContextParts.read(context, model,
            in_place=False)``, what :func:`build_request` reads once for the whole body).
    """
    origin = origin or signature_origin(model)
    if parts is None:
        parts = kit.ContextParts.read(context, model, in_place=False)
    messages = transform_messages(
        parts.messages,
        model,
        normalize_tool_call_id=normalize_tool_call_id,
        foreign_reasoning=options.foreign_reasoning,
        origin=origin,
        documents=document_rules(model),
    )
    converter = _Converter(model, origin)
    for message in messages:
        if isinstance(message, ToolResultMessage):
            converter.results.append(message)
            continue
        converter.flush_results()
        if isinstance(message, UserMessage):
            content = _user_content(message)
            if content is not None:
                converter.contents.append(content)
        elif isinstance(message, AssistantMessage):  # no system message: collapsed above
            converter.assistant(message)
    converter.flush_results()
    return converter.contents


def convert_tools(context: Context, model: Model) -> tuple[list[dict[str, Any]] | None, bool]:
    """Return ``tools`` (``None`` without tools) and whether any of them goes strict.

    ``tools`` is one ``functionDeclarations`` entry.

    The tools are the context's current ones (:func:`pi_sdk.current_tools`: Gemini takes no
    mid-conversation tool changes, pi-ai 1.6 collapses them). On Gemini 3 and later (pi-ai 1.6
    ``supportsGoogleStrictToolSampling``) a tool whose constrained sampling resolves to strict
    gets its schema made strict-compatible; the request then asks for ``VALIDATED`` function
    calling (:func:`_tool_config`), Gemini's schema-enforcing mode.

    Raises:
        ConfigurationError: a ``strict: "require"`` tool on an earlier Gemini.
    """
    tools = pi_sdk.current_tools(context)
    if not tools:
        return None, False
    supported = requires_thought_signatures(model.id)  # Gemini 3+
    declarations: list[dict[str, Any]] = []
    any_strict = False
    for tool in tools:
        declaration: dict[str, Any] = {"name": tool.name}
        if tool.description:
            declaration["description"] = tool.description
        strict = tool.strict_mode(model, supported)
        any_strict = any_strict or bool(strict)
        parameters = tool.wire_parameters(strict)
        declaration["parametersJsonSchema"] = to_gemini_parameters(parameters, tool.name)
        declarations.append(declaration)
    return [{"functionDeclarations": declarations}], any_strict


def _tool_config(options: StreamOptions, strict: bool) -> dict[str, Any] | None:
    """``toolConfig``: the tool choice, or ``VALIDATED`` for strict tools.

    ``VALIDATED`` unless the choice is ``none`` or ``any`` (pi-ai 1.6
    ``resolveGoogleFunctionCallingMode``).
    """
    choice = options.provider_options.get("tool_choice")
    if choice is None:
        resolved = options.resolved_tool_choice()
        if resolved is None:
            return {"functionCallingConfig": {"mode": "VALIDATED"}} if strict else None
        kind, name = resolved
        if kind == "tool":  # Gemini: ANY restricted to the one function
            return {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [name]}}
        mode = _TOOL_CHOICE[kind]
    else:
        mode = _TOOL_CHOICE.get(str(choice).lower())
        if mode is None:
            raise ConfigurationError(
                "provider_options['tool_choice'] must be one of 'auto', 'none', 'any'; got"
                f" {choice!r}"
            )
    if strict and mode not in ("NONE", "ANY"):
        mode = "VALIDATED"
    return {"functionCallingConfig": {"mode": mode}}


def build_request(
    model: Model, context: Context, options: StreamOptions, origin: str | None = None
) -> dict[str, Any]:
    """Return the ``generateContent`` / ``streamGenerateContent`` request body.

    Args:
        model: Target model; its id, ``input`` and ``reasoning`` shape the body.
        context: System prompt, messages and tools.
        options: ``temperature``, ``max_tokens`` (default ``model.max_tokens``; either way fitted
            into the context window, :meth:`pi_sdk.StreamOptions.resolved_max_tokens`),
            ``reasoning`` / ``thinking_budgets``, ``foreign_reasoning``, and
            ``provider_options`` ``tool_choice`` and ``thinking``.
        origin: Where the request goes (see :func:`convert_messages`).

    Raises:
        ConfigurationError: A bad ``provider_options`` value or a tool schema that is not an
            object schema.
    """
    # Gemini has no mid-conversation system messages: every one is replayed into the prompt.
    parts = kit.ContextParts.read(context, model, in_place=False)
    contents = convert_messages(model, context, options, origin, parts=parts)
    payload: dict[str, Any] = {"contents": contents}
    if prompt := parts.system_prompt:
        payload["systemInstruction"] = {  # role "user": what Google's SDK sends for pi-ai 1.6
            "role": "user",
            "parts": [{"text": sanitize_surrogates(prompt)}],
        }
    generation: dict[str, Any] = {}
    if options.temperature is not None:
        generation["temperature"] = options.temperature
    generation["maxOutputTokens"] = options.resolved_max_tokens(model, context)
    thinking = thinking_config(model, options)
    if thinking is not None:
        generation["thinkingConfig"] = thinking
    payload["generationConfig"] = generation
    output = options.resolved_output()
    if output is not None and output.mode == "tool":
        context = with_output_tool(context, output)
    elif output is not None:  # Gemini structured output: JSON Schema, not the OpenAPI subset
        generation["responseMimeType"] = "application/json"
        generation["responseJsonSchema"] = output.schema
    tools, strict = convert_tools(context, model)
    if tools is not None:
        payload["tools"] = tools
        tool_config = _tool_config(options, strict)
        if output is not None and output.mode == "tool":
            tool_config = {
                "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [OUTPUT_TOOL_NAME]}
            }
        if tool_config is not None:
            payload["toolConfig"] = tool_config
    if options.server_tools:  # tools Gemini runs itself (docs/server-tools.md)
        server = options.resolved_server_tools(model, SERVER_TOOL_DEFINITIONS)
        payload["tools"] = [*payload.get("tools", ()), *server]
    return payload
