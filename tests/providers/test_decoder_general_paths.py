"""Every decoder's general rules give what its fast path gives, on every recorded reply.

Each stream decoder takes its commonest event (a text piece of the open block, an arguments
piece) straight to the builder and leaves the rest to its general rules. In a normal run those
general rules never see a text piece, so a fault there would go unnoticed until the fast path
declines an event (a proxy that adds a field, a vendor that reorders one). This suite plays every
recorded conformance reply twice, once as shipped and once with the fast path turned off (the
same events routed to the general rules), and requires the same events and the same final
message: a differential test, per decoder (issue 34).

How the fast path is turned off, per decoder, without copying its rules:

* Anthropic Messages, OpenAI Chat Completions (and Azure's), Mistral: ``feed`` calls ``_feed``;
* OpenAI Responses (and Azure's): text and arguments deltas go to ``_text_delta`` /
  ``_arguments_delta``, every other event to ``feed``;
* Bedrock: a ``contentBlockDelta`` frame is fed while the decoder believes no text block is open
  (the fast path's condition), restored after;
* Gemini (Generative AI and Vertex): each text-only part gets an empty ``thoughtSignature``
  (read as none), so it is no longer the one-field part the fast path takes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from _support import conformance as recorded
from _support.conformance import Case  # also marks the module as a conformance reader
from pi_sdk_anthropic.messages._decode import Decoder as AnthropicDecoder
from pi_sdk_bedrock.converse import _decode as bedrock_decode
from pi_sdk_google._shared_decode import GeminiDecoder
from pi_sdk_mistral.conversations._decode import Decoder as MistralDecoder
from pi_sdk_openai.completions._decode import Decoder as CompletionsDecoder
from pi_sdk_openai.responses._decode import Decoder as ResponsesDecoder

from pi_sdk import AssistantMessage
from pi_sdk.events import event_to_dict

try:
    ROOT = recorded.conformance_dir()
except recorded.ConformanceDirMissing:  # reported by test_conformance.py
    ROOT = None
CASES = [c for c in (recorded.load_cases(ROOT) if ROOT else []) if c.status == 200]


def _anthropic(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(AnthropicDecoder, "feed", lambda self, data: self._feed(data.get("type"), data))


def _plain_feed(decoder: type) -> Callable[[pytest.MonkeyPatch], None]:
    def install(patch: pytest.MonkeyPatch) -> None:
        patch.setattr(decoder, "feed", lambda self, data: self._feed(data))

    return install


def _responses(patch: pytest.MonkeyPatch) -> None:
    fast = ResponsesDecoder.feed

    def general(self: Any, data: dict[str, Any]) -> Any:
        kind = data.get("type")
        if kind == "response.output_text.delta":
            return self._text_delta(data)
        if kind == "response.function_call_arguments.delta":
            return self._arguments_delta(data)
        return fast(self, data)

    patch.setattr(ResponsesDecoder, "feed", general)


_NOT_OPEN = object()


def _bedrock(patch: pytest.MonkeyPatch) -> None:
    decoder = bedrock_decode.Decoder
    fast = decoder.feed_frame

    def general(self: Any, kind: str, name: str, payload: bytes, headers: Any) -> Any:
        if name != "contentBlockDelta":
            return fast(self, kind, name, payload, headers)
        was = self._text_index
        self._text_index = _NOT_OPEN  # the fast path's condition fails
        try:
            return fast(self, kind, name, payload, headers)
        finally:
            if self._text_index is _NOT_OPEN:  # the general rules did not set it
                self._text_index = was

    patch.setattr(decoder, "feed_frame", general)


def _gemini(patch: pytest.MonkeyPatch) -> None:
    fast = GeminiDecoder.feed

    def general(self: Any, data: dict[str, Any]) -> Any:
        for candidate in data.get("candidates") or []:
            content = candidate.get("content") if isinstance(candidate, dict) else None
            parts = content.get("parts") if isinstance(content, dict) else None
            for part in parts if isinstance(parts, list) else []:
                if isinstance(part, dict) and len(part) == 1 and "text" in part:
                    part["thoughtSignature"] = ""  # an empty signature is none
        return fast(self, data)

    patch.setattr(GeminiDecoder, "feed", general)


GENERAL_PATHS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "anthropic-messages": _anthropic,
    "openai-completions": _plain_feed(CompletionsDecoder),
    "mistral-conversations": _plain_feed(MistralDecoder),
    "openai-responses": _responses,
    "azure-openai-responses": _responses,
    "bedrock-converse-stream": _bedrock,
    "google-generative-ai": _gemini,
    "google-vertex": _gemini,
}


def _comparable(message: AssistantMessage) -> dict[str, Any]:
    return message.model_dump(mode="json", exclude={"timestamp", "duration_ms"})


def _events(events: list[Any]) -> Iterator[dict[str, Any]]:
    for event in events:
        if event.type in ("done", "error"):
            yield {"type": event.type, "reason": event.reason}
        else:
            yield event_to_dict(event, include_partial=False)


def test_every_api_with_a_fast_path_is_compared() -> None:
    if ROOT is None:
        pytest.skip("conformance folder absent (set PI_SDK_CONFORMANCE_DIR to require it)")
    assert {c.api for c in CASES} <= set(GENERAL_PATHS)
    assert {c.api for c in CASES} >= {"anthropic-messages", "bedrock-converse-stream"}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_general_rules_give_what_the_fast_path_gives(
    case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    if recorded.provider_for(case.api) is None:
        pytest.skip(f"API {case.api} not registered")
    fast = await recorded.run_interaction(case)
    with monkeypatch.context() as patch:
        GENERAL_PATHS[case.api](patch)
        general = await recorded.run_interaction(case)
    assert list(_events(general.events)) == list(_events(fast.events)), case.id
    assert _comparable(general.message) == _comparable(fast.message), case.id
