"""Gemini replay rules of two conditions, each shown holding alone: a thinking block's or a
model-made image's signature goes back only from the same source *and* only when it is valid
base64; the origin a caller passes (the URL actually called) decides the source, not the
model's own base URL."""

from __future__ import annotations

from typing import Any

import pytest
from _support.messages import reply
from pi_sdk_google._shared_request import convert_messages
from test_google_request import PNG, SIG_A, gemini, own_turn

import pi_sdk
from pi_sdk import Context, ImageContent, StreamOptions, TextContent, ToolCall, UserMessage

INVALID = "not base64!"


@pytest.mark.parametrize(
    ("block", "part"),
    [
        (
            pi_sdk.ThinkingContent(thinking="hmm", thinking_signature=SIG_A),
            {"thought": True, "text": "hmm", "thoughtSignature": SIG_A},
        ),
        (
            pi_sdk.ThinkingContent(thinking="hmm", thinking_signature=INVALID),
            {"thought": True, "text": "hmm"},
        ),
        (
            ImageContent(data=PNG, mime_type="image/png", thought_signature=SIG_A),
            {"inlineData": {"mimeType": "image/png", "data": PNG}, "thoughtSignature": SIG_A},
        ),
        (
            ImageContent(data=PNG, mime_type="image/png", thought_signature=INVALID),
            {"inlineData": {"mimeType": "image/png", "data": PNG}},
        ),
    ],
)
def test_an_own_signature_goes_back_only_when_it_is_valid(block: Any, part: dict[str, Any]) -> None:
    out = own_turn(
        gemini("gemini-2.5-pro"), "hi", block, TextContent(text="ok"), stop_reason="stop"
    )
    assert out[1]["parts"] == [part, {"text": "ok"}]


PROXY = "google-generative-ai@https://proxy.example.com"


@pytest.mark.parametrize(("origin", "signed"), [(PROXY, True), (None, False)])
def test_the_origin_called_decides_whether_a_signature_goes_back(
    origin: str | None, signed: bool
) -> None:
    model = gemini("gemini-2.5-flash")  # its own base URL is Google's, not the proxy's
    call = ToolCall(id="a", name="weather", arguments={}, thought_signature=SIG_A)
    turn = reply(model, call, signature_origin=PROXY)
    result = pi_sdk.ToolResultMessage(
        tool_call_id="a", tool_name="weather", content=[TextContent(text="x")], is_error=False
    )
    context = Context(messages=[UserMessage(content="go"), turn, result])
    part = convert_messages(model, context, StreamOptions(), origin)[1]["parts"][0]
    assert ("thoughtSignature" in part) is signed
    assert part["functionCall"]["name"] == "weather"
