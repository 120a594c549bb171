"""How to say a reply in each wire API we speak: the one list of APIs the provider tests run on.

A reply is described vendor-neutrally as a list of blocks (:class:`Text`, :class:`Thinking`,
:class:`Calls`) plus :class:`Tokens`; each :class:`Wire` turns that into its vendor's streamed
events (:meth:`Wire.events`) or its whole JSON answer (:meth:`Wire.document`), and says what
pi-sdk makes of the vendor-specific parts (tool-call ids, signatures, error texts). A new wire
API joins every cross-API test by adding one subclass to :data:`WIRES`; a scenario its wire
format cannot express goes in its ``not_applicable`` with the reason.

Wire facts: Anthropic's streaming guide (``message_start`` ... ``message_stop``), OpenAI's
Chat Completions streaming (``chat.completion.chunk``, ``[DONE]``) and Responses streaming events
(``response.output_item.added`` ... ``response.completed``), Gemini's ``streamGenerateContent``
(``GenerateContentResponse`` chunks, ``finishReason``, ``usageMetadata``).
"""

from __future__ import annotations

import json
import struct
import zlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = [
    "APIS",
    "OPENING_TOKENS",
    "WIRES",
    "Block",
    "Call",
    "Calls",
    "Text",
    "Thinking",
    "Tokens",
    "Wire",
    "wire_for",
]

JSON = dict[str, Any]


@dataclass(frozen=True)
class Tokens:
    """Usage as pi-sdk reports it: ``input`` excludes the ``cache_read`` tokens."""

    input: int = 5
    output: int = 3
    cache_read: int = 0

    def prompt(self) -> int:
        """What OpenAI and Gemini call the prompt tokens (cached ones included)."""
        return self.input + self.cache_read


OPENING_TOKENS = Tokens(input=7, output=1)
"""Usage reported by :meth:`Wire.opening` on wires with :attr:`Wire.early_usage`."""


@dataclass(frozen=True)
class Text:
    """A text block streamed as ``pieces``."""

    pieces: tuple[str, ...]

    @property
    def text(self) -> str:
        return "".join(self.pieces)


@dataclass(frozen=True)
class Thinking:
    """A reasoning block streamed as ``pieces``, with the vendor's opaque ``signature``."""

    pieces: tuple[str, ...]
    signature: str = "sig-1"

    @property
    def text(self) -> str:
        return "".join(self.pieces)


@dataclass(frozen=True)
class Call:
    """One tool call: the vendor's id, the tool name, its arguments' JSON in ``pieces``."""

    id: str
    name: str
    pieces: tuple[str, ...]

    @property
    def raw(self) -> str:
        return "".join(self.pieces)

    @property
    def arguments(self) -> JSON:
        return json.loads(self.raw)


@dataclass(frozen=True)
class Calls:
    """Tool calls in a row; ``interleaved``: their argument fragments alternate on the wire."""

    calls: tuple[Call, ...]
    interleaved: bool = False


Block = Text | Thinking | Calls


def _call_steps(block: Calls) -> Iterator[tuple[str, int, Call, str]]:
    """``(step, call number, call, piece)`` in wire order; step is start, piece or end.

    In a row, each call starts, streams its pieces and ends before the next; interleaved, the
    calls start as their first piece comes, their pieces alternate, and all end at the end.
    """
    if not block.interleaved:
        for number, call in enumerate(block.calls):
            yield "start", number, call, ""
            for piece in call.pieces:
                yield "piece", number, call, piece
            yield "end", number, call, ""
        return
    for piece_number in range(max(len(call.pieces) for call in block.calls)):
        for number, call in enumerate(block.calls):
            if piece_number < len(call.pieces):
                if piece_number == 0:
                    yield "start", number, call, ""
                yield "piece", number, call, call.pieces[piece_number]
    for number, call in enumerate(block.calls):
        yield "end", number, call, ""


def _has_calls(blocks: list[Block]) -> bool:
    return any(isinstance(block, Calls) for block in blocks)


class Wire(ABC):
    """One wire API: its test model, reply shapes and what pi-sdk makes of them."""

    api: ClassVar[str]
    provider: ClassVar[str]
    model_id: ClassVar[str]
    prefix: ClassVar[str]
    """Path the adapter appends its endpoint to (``model.base_url`` = server URL + prefix)."""
    path: ClassVar[str]
    """The request target the adapter sends to, relative to the server."""
    terminal_name: ClassVar[str]
    """What a cut reply lacks, as the error names it (``stream ended before <this>``)."""
    not_a_reply: ClassVar[str]
    """Part of the error for a 200 JSON body that is not a reply."""
    not_applicable: ClassVar[Mapping[str, str]] = {}
    """Scenario name -> why this wire format cannot express it."""
    cut_text: ClassVar[str] = "stream was cut in the middle of an event"
    """What the error for a body cut inside an event says (some wires say ``stream ended
    before`` :attr:`terminal_name` instead)."""
    early_usage: ClassVar[bool] = False
    """The wire reports usage before the reply ends: :meth:`opening` carries
    :data:`OPENING_TOKENS`, which a cut or aborted reply keeps."""

    def model(self, base: str) -> Any:
        """The catalog model of this API's test provider, sending to ``base`` (a server URL)."""
        import pi_sdk

        model = pi_sdk.get_model(self.provider, self.model_id)
        return model.model_copy(update={"api": self.api, "base_url": base + self.prefix})

    @abstractmethod
    def events(self, blocks: list[Block], tokens: Tokens) -> tuple[list[Any], list[Any]]:
        """``(body events, terminal events)`` of a streamed reply made of ``blocks``.

        The terminal part is the vendor's end of the reply, so a test can put more after it.
        Items are JSON objects (sent as ``data: <json>``) or raw SSE bytes.
        """

    @abstractmethod
    def at_token_limit(self, text: Block) -> list[Any]:
        """A whole streamed reply of one block (text, or calls) whose end says the output
        token limit stopped it."""

    @abstractmethod
    def document(self, blocks: list[Block], tokens: Tokens) -> JSON:
        """The whole JSON answer of the same reply (a server that ignored streaming)."""

    @abstractmethod
    def opening(self, piece: str) -> list[Any]:
        """The events that begin a reply and stream one text ``piece``, nothing closed.

        With :attr:`early_usage`, they report :data:`OPENING_TOKENS`.
        """

    @abstractmethod
    def http_error(self, status: int, message: str) -> tuple[JSON, str]:
        """``(body, code)``: the vendor's JSON error body and the code pi-sdk shows for it."""

    @abstractmethod
    def stream_error(self, message: str) -> tuple[Any, str]:
        """``(event, error text)``: an error event inside a stream (a JSON object or raw bytes,
        as :meth:`events` items) and pi-sdk's text of it."""

    def partial_event(self) -> bytes:
        """The first bytes of an event, the rest never sent (default: an SSE ``data:`` line)."""
        return b'data: {"type": "con'

    def call_ids(self, blocks: list[Block]) -> list[str]:
        """The pi-sdk ids of the reply's tool calls, in order (default: the vendor's)."""
        return [call.id for block in blocks if isinstance(block, Calls) for call in block.calls]

    def signature(self, block: Thinking) -> str | None:
        """The ``thinking_signature`` pi-sdk keeps for ``block`` (default: the vendor's)."""
        return block.signature


# --- Anthropic Messages ------------------------------------------------------------------------


class AnthropicMessages(Wire):
    api = "anthropic-messages"
    provider = "anthropic"
    model_id = "claude-sonnet-4-5"
    prefix = ""
    path = "/v1/messages"
    terminal_name = "message_stop"
    not_a_reply = "not a message"
    early_usage = True  # message_start

    def _usage(self, tokens: Tokens) -> JSON:
        return {
            "input_tokens": tokens.input,
            "cache_read_input_tokens": tokens.cache_read,
            "cache_creation_input_tokens": 0,
            "output_tokens": 0,
        }

    _ERROR_TYPES: ClassVar[dict[int, str]] = {
        400: "invalid_request_error",
        429: "rate_limit_error",
        500: "api_error",
        503: "overloaded_error",
    }

    def _stop(self, blocks: list[Block]) -> str:
        return "tool_use" if _has_calls(blocks) else "end_turn"

    def events(self, blocks: list[Block], tokens: Tokens) -> tuple[list[Any], list[Any]]:
        message = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
        out: list[Any] = [
            {"type": "message_start", "message": {**message, "usage": self._usage(tokens)}}
        ]
        index = 0
        for block in blocks:
            if isinstance(block, Text):
                out.append(_block_start(index, {"type": "text", "text": ""}))
                out += [
                    _block_delta(index, {"type": "text_delta", "text": p}) for p in block.pieces
                ]
                out.append({"type": "content_block_stop", "index": index})
                index += 1
            elif isinstance(block, Thinking):
                start = {"type": "thinking", "thinking": "", "signature": ""}
                out.append(_block_start(index, start))
                out += [
                    _block_delta(index, {"type": "thinking_delta", "thinking": p})
                    for p in block.pieces
                ]
                signature = {"type": "signature_delta", "signature": block.signature}
                out.append(_block_delta(index, signature))
                out.append({"type": "content_block_stop", "index": index})
                index += 1
            else:
                for step, number, call, piece in _call_steps(block):
                    at = index + number
                    if step == "start":
                        start = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
                        out.append(_block_start(at, start))
                    elif step == "piece":
                        delta = {"type": "input_json_delta", "partial_json": piece}
                        out.append(_block_delta(at, delta))
                    else:
                        out.append({"type": "content_block_stop", "index": at})
                index += len(block.calls)
        out.append(
            {
                "type": "message_delta",
                "delta": {"stop_reason": self._stop(blocks), "stop_sequence": None},
                "usage": {"output_tokens": tokens.output},
            }
        )
        return out, [{"type": "message_stop"}]

    def at_token_limit(self, text: Block) -> list[Any]:
        body, terminal = self.events([text], Tokens())
        body[-1]["delta"]["stop_reason"] = "max_tokens"  # the message_delta
        return body + terminal

    def document(self, blocks: list[Block], tokens: Tokens) -> JSON:
        content: list[JSON] = []
        for block in blocks:
            if isinstance(block, Text):
                content.append({"type": "text", "text": block.text})
            elif isinstance(block, Thinking):
                content.append(
                    {"type": "thinking", "thinking": block.text, "signature": block.signature}
                )
            else:
                content += [
                    {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                    for c in block.calls
                ]
        usage = {**self._usage(tokens), "output_tokens": tokens.output}
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": self.model_id,
            "content": content,
            "stop_reason": self._stop(blocks),
            "stop_sequence": None,
            "usage": usage,
        }

    def opening(self, piece: str) -> list[Any]:
        start = {"id": "msg_1", "type": "message", "usage": self._usage(OPENING_TOKENS)}
        return [
            {"type": "message_start", "message": start},
            _block_start(0, {"type": "text", "text": ""}),
            _block_delta(0, {"type": "text_delta", "text": piece}),
        ]

    def http_error(self, status: int, message: str) -> tuple[JSON, str]:
        kind = self._ERROR_TYPES[status]
        return {"type": "error", "error": {"type": kind, "message": message}}, kind

    def stream_error(self, message: str) -> tuple[JSON, str]:
        error = {"type": "overloaded_error", "message": message}
        return {"type": "error", "error": error}, f"overloaded_error: {message}"


def _block_start(index: int, block: JSON) -> JSON:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _block_delta(index: int, delta: JSON) -> JSON:
    return {"type": "content_block_delta", "index": index, "delta": delta}


# --- OpenAI ------------------------------------------------------------------------------------


class _OpenAI(Wire):
    provider = "openai"
    prefix = "/v1"

    def http_error(self, status: int, message: str) -> tuple[JSON, str]:
        # The code when there is one, else the type (a 400 usually has "code": null).
        kind, code = {
            400: ("invalid_request_error", None),
            429: ("requests", "rate_limit_exceeded"),
            500: ("server_error", None),
            503: ("server_error", None),
        }[status]
        error = {"message": message, "type": kind, "param": None, "code": code}
        return {"error": error}, code or kind


class OpenAICompletions(_OpenAI):
    api = "openai-completions"
    model_id = "gpt-4o-mini"
    path = "/v1/chat/completions"
    terminal_name = "[DONE]"
    not_a_reply = "not a chat completion (no choices)"

    def _chunk(self, delta: JSON, finish: str | None = None) -> JSON:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [choice]}

    def _usage(self, tokens: Tokens) -> JSON:
        return {
            "prompt_tokens": tokens.prompt(),
            "completion_tokens": tokens.output,
            "total_tokens": tokens.prompt() + tokens.output,
            "prompt_tokens_details": {"cached_tokens": tokens.cache_read},
        }

    def _finish(self, blocks: list[Block]) -> str:
        return "tool_calls" if _has_calls(blocks) else "stop"

    def _thinking_chunks(self, block: Thinking) -> list[JSON]:
        return [self._chunk({"reasoning_content": p}) for p in block.pieces]

    def _call(self, call: Call, arguments: str) -> JSON:
        """A tool call's entry in ``tool_calls`` with its first ``arguments`` fragment."""
        function = {"name": call.name, "arguments": arguments}
        return {"id": call.id, "type": "function", "function": function}

    def events(self, blocks: list[Block], tokens: Tokens) -> tuple[list[Any], list[Any]]:
        out: list[Any] = []
        tool_index = 0
        for block in blocks:
            if isinstance(block, Text):
                out += [self._chunk({"content": p}) for p in block.pieces]
            elif isinstance(block, Thinking):
                out += self._thinking_chunks(block)
            else:
                first_piece = False
                for step, number, call, piece in _call_steps(block):
                    if step == "start":
                        first_piece = True
                    elif step == "piece":
                        entry: JSON = {"index": tool_index + number}
                        if first_piece:  # the call's first chunk names it
                            entry |= self._call(call, piece)
                        else:
                            entry["function"] = {"arguments": piece}
                        first_piece = False
                        out.append(self._chunk({"tool_calls": [entry]}))
                tool_index += len(block.calls)
        out.append(self._chunk({}, self._finish(blocks)))
        out.append({"id": "chatcmpl-1", "choices": [], "usage": self._usage(tokens)})
        return out, [b"data: [DONE]\n\n"]

    def at_token_limit(self, text: Block) -> list[Any]:
        body, terminal = self.events([text], Tokens())
        body[-2]["choices"][0]["finish_reason"] = "length"  # the chunk before the usage chunk
        return body + terminal

    def document(self, blocks: list[Block], tokens: Tokens) -> JSON:
        message: JSON = {"role": "assistant", "content": None}
        texts = [block.text for block in blocks if isinstance(block, Text)]
        if texts:
            message["content"] = "".join(texts)
        thinking = [block.text for block in blocks if isinstance(block, Thinking)]
        if thinking:
            message["reasoning_content"] = "".join(thinking)
        calls = [call for block in blocks if isinstance(block, Calls) for call in block.calls]
        if calls:
            message["tool_calls"] = [self._call(c, c.raw) for c in calls]
        choice = {"index": 0, "message": message, "finish_reason": self._finish(blocks)}
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": self.model_id,
            "choices": [choice],
            "usage": self._usage(tokens),
        }

    def opening(self, piece: str) -> list[Any]:
        return [self._chunk({"role": "assistant", "content": piece})]

    def stream_error(self, message: str) -> tuple[JSON, str]:
        return {"error": {"message": message, "code": "server_error"}}, f"server_error: {message}"

    def signature(self, block: Thinking) -> str | None:
        # Chat Completions has no reasoning signature: pi-sdk (as pi-mono) records the delta
        # field the reasoning came in, to send it back in the same field.
        return "reasoning_content"


class OpenAIResponses(_OpenAI):
    api = "openai-responses"
    model_id = "gpt-5"
    path = "/v1/responses"
    terminal_name = "response.completed"
    not_a_reply = "not a Responses API response (no output)"

    def _items(self, blocks: list[Block]) -> Iterator[tuple[Block, Call | None]]:
        for block in blocks:
            if isinstance(block, Calls):
                for call in block.calls:
                    yield block, call
            else:
                yield block, None

    def _done_item(self, index: int, block: Block, call: Call | None) -> JSON:
        if call is not None:
            return {
                "type": "function_call",
                "id": f"fc_{index}",
                "call_id": call.id,
                "name": call.name,
                "arguments": call.raw,
                "status": "completed",
            }
        if isinstance(block, Thinking):
            summary = [{"type": "summary_text", "text": block.text}]
            return {
                "type": "reasoning",
                "id": f"rs_{block.signature}",
                "summary": summary,
                "encrypted_content": block.signature,
            }
        assert isinstance(block, Text)
        part = {"type": "output_text", "text": block.text, "annotations": []}
        return {
            "type": "message",
            "id": f"msg_{index}",
            "role": "assistant",
            "status": "completed",
            "content": [part],
        }

    def _response(self, output: list[JSON], tokens: Tokens) -> JSON:
        usage = {
            "input_tokens": tokens.prompt(),
            "input_tokens_details": {"cached_tokens": tokens.cache_read},
            "output_tokens": tokens.output,
            "total_tokens": tokens.prompt() + tokens.output,
        }
        return {
            "id": "resp_1",
            "object": "response",
            "model": self.model_id,
            "status": "completed",
            "output": output,
            "usage": usage,
        }

    def events(self, blocks: list[Block], tokens: Tokens) -> tuple[list[Any], list[Any]]:
        created = {"id": "resp_1", "model": self.model_id, "status": "in_progress", "output": []}
        out: list[Any] = [{"type": "response.created", "response": created}]
        done: list[JSON] = []
        items = list(self._items(blocks))
        index = 0
        while index < len(items):
            block, _ = items[index]
            if isinstance(block, Calls):
                count = len(block.calls)
                out += self._call_events(index, block)
                done += [self._done_item(index + n, block, block.calls[n]) for n in range(count)]
                index += count
                continue
            item = self._done_item(index, block, None)
            out += self._block_events(index, block, item)
            done.append(item)
            index += 1
        completed = {"type": "response.completed", "response": self._response(done, tokens)}
        return out, [completed]

    def _block_events(self, index: int, block: Block, item: JSON) -> list[JSON]:
        item_id = item["id"]
        where = {"output_index": index, "item_id": item_id}
        if isinstance(block, Thinking):
            added = {"type": "reasoning", "id": item_id, "summary": []}
            part = {"type": "summary_text", "text": ""}
            events: list[JSON] = [
                {"type": "response.output_item.added", "output_index": index, "item": added},
                {"type": "response.reasoning_summary_part.added", **where, "part": part},
            ]
            events += [
                {"type": "response.reasoning_summary_text.delta", **where, "delta": p}
                for p in block.pieces
            ]
        else:
            assert isinstance(block, Text)
            added = {"type": "message", "id": item_id, "role": "assistant", "content": []}
            events = [{"type": "response.output_item.added", "output_index": index, "item": added}]
            events += [
                {"type": "response.output_text.delta", **where, "content_index": 0, "delta": p}
                for p in block.pieces
            ]
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
        return events

    def _call_events(self, first: int, block: Calls) -> list[JSON]:
        events: list[JSON] = []
        for step, number, call, piece in _call_steps(block):
            index = first + number
            where = {"output_index": index, "item_id": f"fc_{index}"}
            item = self._done_item(index, block, call)
            if step == "start":
                added = {**item, "arguments": "", "status": "in_progress"}
                events.append(
                    {"type": "response.output_item.added", "output_index": index, "item": added}
                )
            elif step == "piece":
                events.append(
                    {"type": "response.function_call_arguments.delta", **where, "delta": piece}
                )
            else:
                events.append(
                    {
                        "type": "response.function_call_arguments.done",
                        **where,
                        "arguments": call.raw,
                    }
                )
                events.append(
                    {"type": "response.output_item.done", "output_index": index, "item": item}
                )
        return events

    def at_token_limit(self, text: Block) -> list[Any]:
        body, terminal = self.events([text], Tokens())
        response = terminal[0]["response"]
        response["status"] = "incomplete"
        response["incomplete_details"] = {"reason": "max_output_tokens"}
        return [*body, {"type": "response.incomplete", "response": response}]

    def document(self, blocks: list[Block], tokens: Tokens) -> JSON:
        output = [
            self._done_item(index, block, call)
            for index, (block, call) in enumerate(self._items(blocks))
        ]
        return self._response(output, tokens)

    def opening(self, piece: str) -> list[Any]:
        added = {"type": "message", "id": "msg_0", "role": "assistant", "content": []}
        return [
            {"type": "response.created", "response": {"id": "resp_1", "model": self.model_id}},
            {"type": "response.output_item.added", "output_index": 0, "item": added},
            {
                "type": "response.output_text.delta",
                "output_index": 0,
                "item_id": "msg_0",
                "content_index": 0,
                "delta": piece,
            },
        ]

    def stream_error(self, message: str) -> tuple[JSON, str]:
        event = {"type": "error", "code": "server_error", "message": message, "param": None}
        return event, f"server_error: {message}"

    def call_ids(self, blocks: list[Block]) -> list[str]:
        # "<call_id>|<item id>": the item id is needed to send the call back (pi-mono).
        ids: list[str] = []
        for index, (_, call) in enumerate(self._items(blocks)):
            if call is not None:
                ids.append(f"{call.id}|fc_{index}")
        return ids

    def signature(self, block: Thinking) -> str | None:
        # The whole reasoning item as JSON, to send back as is (pi-mono).
        return json.dumps(self._done_item(0, block, None), ensure_ascii=False)


class AzureOpenAIResponses(OpenAIResponses):
    """The Responses wire format on Azure's v1 endpoint (key sent as a bearer token)."""

    api = "azure-openai-responses"
    provider = "azure-openai-responses"
    model_id = "gpt-4.1"
    prefix = "/openai/v1"
    path = "/openai/v1/responses"  # v1: no api-version query


# --- Google ------------------------------------------------------------------------------------


class GoogleGenerativeAI(Wire):
    api = "google-generative-ai"
    provider = "google"
    model_id = "gemini-2.5-flash"
    prefix = "/v1beta"
    path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    terminal_name = "a finish reason"
    not_a_reply = "without candidates"
    early_usage = True  # usageMetadata in every chunk (cumulative)
    not_applicable: ClassVar[Mapping[str, str]] = {
        "interleaved tool calls": (
            "Gemini sends each functionCall part whole (arguments included): there are no"
            " argument fragments to interleave; two calls in one reply run as 'two tool calls'"
        ),
    }

    _STATUS_NAMES: ClassVar[dict[int, str]] = {
        400: "INVALID_ARGUMENT",
        429: "RESOURCE_EXHAUSTED",
        500: "INTERNAL",
        503: "UNAVAILABLE",
    }

    def _parts(self, block: Block) -> list[JSON]:
        if isinstance(block, Text):
            return [{"text": p} for p in block.pieces]
        if isinstance(block, Thinking):
            parts: list[JSON] = [{"text": p, "thought": True} for p in block.pieces]
            parts[-1] = {**parts[-1], "thoughtSignature": block.signature}
            return parts
        return [{"functionCall": {"name": c.name, **self._args(c)}} for c in block.calls]

    @staticmethod
    def _args(call: Call) -> JSON:
        """``args``: the call's JSON value; a text that is not JSON as a string (a garbled
        reply); no ``args`` for an empty text (Gemini's call without arguments)."""
        if not call.raw:
            return {}
        try:
            return {"args": json.loads(call.raw)}
        except ValueError:
            return {"args": call.raw}

    def _chunk(self, parts: list[JSON], **extra: Any) -> JSON:
        candidate = {"index": 0, "content": {"role": "model", "parts": parts}}
        finish = extra.pop("finish", None)
        if finish:
            candidate["finishReason"] = finish
        return {"candidates": [candidate], "responseId": "resp-1", **extra}

    def _usage(self, tokens: Tokens) -> JSON:
        return {
            "promptTokenCount": tokens.prompt(),
            "cachedContentTokenCount": tokens.cache_read,
            "candidatesTokenCount": tokens.output,
            "totalTokenCount": tokens.prompt() + tokens.output,
        }

    def events(self, blocks: list[Block], tokens: Tokens) -> tuple[list[Any], list[Any]]:
        out: list[Any] = []
        for block in blocks:
            if isinstance(block, Calls):
                out.append(self._chunk(self._parts(block)))  # parallel calls: one chunk
            else:
                out += [self._chunk([part]) for part in self._parts(block)]
        return out, [self._chunk([], finish="STOP", usageMetadata=self._usage(tokens))]

    def at_token_limit(self, text: Block) -> list[Any]:
        body, terminal = self.events([text], Tokens())
        terminal[0]["candidates"][0]["finishReason"] = "MAX_TOKENS"
        return body + terminal

    def document(self, blocks: list[Block], tokens: Tokens) -> JSON:
        parts = [part for block in blocks for part in self._parts(block)]
        return self._chunk(parts, finish="STOP", usageMetadata=self._usage(tokens))

    def opening(self, piece: str) -> list[Any]:
        return [self._chunk([{"text": piece}], usageMetadata=self._usage(OPENING_TOKENS))]

    def http_error(self, status: int, message: str) -> tuple[JSON, str]:
        name = self._STATUS_NAMES[status]
        return {"error": {"code": status, "message": message, "status": name}}, name

    def stream_error(self, message: str) -> tuple[JSON, str]:
        error = {"code": 503, "message": message, "status": "UNAVAILABLE"}
        return {"error": error}, f"503 UNAVAILABLE: {message}"

    def call_ids(self, blocks: list[Block]) -> list[str]:
        # Gemini calls carry no id: pi-sdk numbers them per reply, after the responseId.
        count = sum(len(block.calls) for block in blocks if isinstance(block, Calls))
        return [f"gemini_call_resp-1_{n}" for n in range(1, count + 1)]


class GoogleVertex(GoogleGenerativeAI):
    api = "google-vertex"
    provider = "google-vertex"
    prefix = "/v1"  # a base URL ending in the API version is used as is (express mode: API key)
    path = "/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"


# --- Mistral -----------------------------------------------------------------------------------


class MistralConversations(OpenAICompletions):
    """Mistral chat completions: Chat Completions chunks, thinking as content chunks.

    Wire facts: Mistral's chat completion API reference and the ``mistralai`` SDK's models
    (``CompletionChunk``, ``DeltaMessage``, ``ThinkChunk`` with its ``signature``, ``ToolCall``
    with 9-character ids, ``UsageInfo``); errors are ``{"object": "error", "message", "type",
    "code"}``.
    """

    api = "mistral-conversations"
    provider = "mistral"
    model_id = "magistral-medium-latest"
    prefix = ""
    path = "/v1/chat/completions"
    not_a_reply = "not a chat completion"

    _ERROR_TYPES: ClassVar[dict[int, str]] = {
        400: "invalid_request_error",
        429: "rate_limited",
        500: "internal_server_error",
        503: "service_unavailable",
    }

    def model(self, base: str) -> Any:
        # The catalog (pi-ai) lists no cache-read price for any Mistral model, while Mistral
        # reports cached prompt tokens: a test price (a tenth of input) shows they are priced.
        model = super().model(base)
        cost = model.cost.model_copy(update={"cache_read": model.cost.input / 10})
        return model.model_copy(update={"cost": cost})

    @staticmethod
    def _thought(text: str, signature: str | None = None) -> JSON:
        chunk: JSON = {"type": "thinking", "thinking": [{"type": "text", "text": text}]}
        if signature is not None:
            chunk["signature"] = signature
        return chunk

    def _thinking_chunks(self, block: Thinking) -> list[JSON]:
        *first, last = block.pieces
        chunks = [self._chunk({"content": [self._thought(p)]}) for p in first]
        return [*chunks, self._chunk({"content": [self._thought(last, block.signature)]})]

    @staticmethod
    def _id(call: Call) -> str:
        """Mistral's tool-call ids are 9 letters and digits: ``call_a`` -> ``calla0000``."""
        return "".join(c for c in call.id if c.isalnum()).ljust(9, "0")[:9]

    def _call(self, call: Call, arguments: str) -> JSON:
        return {"id": self._id(call), "function": {"name": call.name, "arguments": arguments}}

    def document(self, blocks: list[Block], tokens: Tokens) -> JSON:
        answer = super().document(blocks, tokens)
        content: list[JSON] = []
        for block in blocks:
            if isinstance(block, Text):
                content.append({"type": "text", "text": block.text})
            elif isinstance(block, Thinking):
                content.append(self._thought(block.text, block.signature))
        message = answer["choices"][0]["message"]
        message.pop("reasoning_content", None)
        message["content"] = content
        return answer

    def http_error(self, status: int, message: str) -> tuple[JSON, str]:
        kind = self._ERROR_TYPES[status]
        return {"object": "error", "message": message, "type": kind, "code": str(status)}, kind

    def stream_error(self, message: str) -> tuple[Any, str]:
        event = {"object": "error", "message": message, "type": "service_unavailable"}
        return event, f"service_unavailable: {message}"

    def call_ids(self, blocks: list[Block]) -> list[str]:
        return [self._id(call) for b in blocks if isinstance(b, Calls) for call in b.calls]

    def signature(self, block: Thinking) -> str | None:
        return block.signature  # the ThinkChunk's own signature


# --- Amazon Bedrock ----------------------------------------------------------------------------


def event_frame(name: str, payload: JSON, message_type: str = "event") -> bytes:
    """One AWS event-stream message (``application/vnd.amazon.eventstream``).

    Headers ``:event-type`` (``:exception-type`` for an exception), ``:content-type`` and
    ``:message-type``, all strings (type 7); prelude and message CRC32s (AWS "Event stream
    encoding").
    """
    name_header = ":event-type" if message_type == "event" else ":exception-type"
    headers = b""
    for key, value in (
        (name_header, name),
        (":content-type", "application/json"),
        (":message-type", message_type),
    ):
        raw_key, raw_value = key.encode(), value.encode()
        headers += bytes([len(raw_key)]) + raw_key + b"\x07"
        headers += struct.pack(">H", len(raw_value)) + raw_value
    body = json.dumps(payload).encode()
    prelude = struct.pack(">II", 16 + len(headers) + len(body), len(headers))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + body
    return message + struct.pack(">I", zlib.crc32(message))


class BedrockConverseStream(Wire):
    """ConverseStream: binary event-stream frames, one JSON event each; an API key as bearer.

    Wire facts: the Bedrock ConverseStream API reference (``messageStart``,
    ``contentBlockStart``/``Delta``/``Stop``, ``messageStop``, ``metadata`` last) and the
    Converse response (``output.message.content``, ``stopReason``, ``usage``); HTTP errors
    carry ``__type`` and ``message``; in-stream errors are exception frames.
    """

    api = "bedrock-converse-stream"
    provider = "amazon-bedrock"
    model_id = "anthropic.claude-haiku-4-5-20251001-v1:0"
    prefix = ""
    path = "/model/anthropic.claude-haiku-4-5-20251001-v1%3A0/converse-stream"
    terminal_name = "its metadata event"
    cut_text = "stream was cut in the middle of event-stream frame"
    not_a_reply = "not a Converse response"
    early_usage = False  # usage comes in metadata, the last event
    not_applicable: ClassVar[Mapping[str, str]] = {
        "malformed event": (
            "the body is binary event-stream frames, not SSE: there are no 'data:' lines to"
            " garble (corrupted frames: tests/providers/bedrock/test_bedrock_frames.py)"
        ),
        "SSE noise": (
            "the body is binary event-stream frames, not SSE: there are no comments, empty"
            " 'data:' lines or blank lines to skip"
        ),
    }

    def _usage(self, tokens: Tokens) -> JSON:
        return {
            "inputTokens": tokens.input,
            "outputTokens": tokens.output,
            "totalTokens": tokens.prompt() + tokens.output,
            "cacheReadInputTokens": tokens.cache_read,
            "cacheWriteInputTokens": 0,
        }

    def _stop(self, blocks: list[Block]) -> str:
        return "tool_use" if _has_calls(blocks) else "end_turn"

    def _frames(self, blocks: list[Block]) -> list[bytes]:
        out = [event_frame("messageStart", {"role": "assistant"})]
        index = 0

        def delta(at: int, value: JSON) -> bytes:
            return event_frame("contentBlockDelta", {"contentBlockIndex": at, "delta": value})

        for block in blocks:
            if isinstance(block, Text):
                out += [delta(index, {"text": p}) for p in block.pieces]
            elif isinstance(block, Thinking):
                out += [delta(index, {"reasoningContent": {"text": p}}) for p in block.pieces]
                out.append(delta(index, {"reasoningContent": {"signature": block.signature}}))
            else:
                for step, number, call, piece in _call_steps(block):
                    at = index + number
                    if step == "start":
                        start = {"toolUse": {"toolUseId": call.id, "name": call.name}}
                        out.append(
                            event_frame(
                                "contentBlockStart", {"contentBlockIndex": at, "start": start}
                            )
                        )
                    elif step == "piece":
                        out.append(delta(at, {"toolUse": {"input": piece}}))
                    else:
                        out.append(event_frame("contentBlockStop", {"contentBlockIndex": at}))
                index += len(block.calls)
                continue
            out.append(event_frame("contentBlockStop", {"contentBlockIndex": index}))
            index += 1
        return out

    def events(self, blocks: list[Block], tokens: Tokens) -> tuple[list[Any], list[Any]]:
        body = self._frames(blocks)
        body.append(event_frame("messageStop", {"stopReason": self._stop(blocks)}))
        return body, [event_frame("metadata", {"usage": self._usage(tokens)})]

    def at_token_limit(self, text: Block) -> list[Any]:
        body = self._frames([text])
        body.append(event_frame("messageStop", {"stopReason": "max_tokens"}))
        return [*body, event_frame("metadata", {"usage": self._usage(Tokens())})]

    def document(self, blocks: list[Block], tokens: Tokens) -> JSON:
        content: list[JSON] = []
        for block in blocks:
            if isinstance(block, Text):
                content.append({"text": block.text})
            elif isinstance(block, Thinking):
                text = {"text": block.text, "signature": block.signature}
                content.append({"reasoningContent": {"reasoningText": text}})
            else:
                content += [
                    {"toolUse": {"toolUseId": c.id, "name": c.name, "input": c.arguments}}
                    for c in block.calls
                ]
        return {
            "output": {"message": {"role": "assistant", "content": content}},
            "stopReason": self._stop(blocks),
            "usage": self._usage(tokens),
            "metrics": {"latencyMs": 10},
        }

    def opening(self, piece: str) -> list[Any]:
        return [
            event_frame("messageStart", {"role": "assistant"}),
            event_frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": piece}}),
        ]

    def partial_event(self) -> bytes:
        frame = event_frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "x"}})
        return frame[: len(frame) // 2]

    _ERROR_TYPES: ClassVar[dict[int, str]] = {
        400: "ValidationException",
        429: "ThrottlingException",
        500: "InternalServerException",
        503: "ServiceUnavailableException",
    }

    def http_error(self, status: int, message: str) -> tuple[JSON, str]:
        kind = self._ERROR_TYPES[status]
        return {"__type": kind, "message": message}, kind

    def stream_error(self, message: str) -> tuple[Any, str]:
        # An exception frame (raw bytes); validationException is not a transient one.
        frame = event_frame("validationException", {"message": message}, "exception")
        return frame, f"validationException: {message}"


# --- the list ----------------------------------------------------------------------------------

WIRES: tuple[Wire, ...] = (
    AnthropicMessages(),
    OpenAICompletions(),
    OpenAIResponses(),
    GoogleGenerativeAI(),
    GoogleVertex(),
    AzureOpenAIResponses(),
    MistralConversations(),
    BedrockConverseStream(),
)
"""Every wire API we speak, in one place."""

APIS: tuple[str, ...] = tuple(wire.api for wire in WIRES)


def wire_for(api: str) -> Wire:
    """The :class:`Wire` of ``api``."""
    return next(wire for wire in WIRES if wire.api == api)
