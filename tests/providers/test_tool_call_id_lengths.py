"""The longest tool-call id each vendor is sent: 64 characters (Anthropic's documented limit,
``^[a-zA-Z0-9_-]{1,64}$``, which Bedrock's Claude models and ``claude-*`` on Vertex share).

An id of exactly 64 valid characters goes as it is; one character more and it is cut to 64
with a hash of the original (distinct long ids stay distinct). A bound one off either way
would send an id the vendor refuses, or change one it accepts.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pi_sdk_anthropic.messages import normalize_tool_call_id as anthropic_id
from pi_sdk_bedrock.converse._request import normalize_tool_call_id as bedrock_id
from pi_sdk_google import normalize_tool_call_id as google_id

from pi_sdk import AssistantMessage, Model

Normalizer = Callable[[str, Model, AssistantMessage], str]
NORMALIZERS: dict[str, tuple[Normalizer, str]] = {
    "anthropic": (anthropic_id, "anthropic-messages"),
    "bedrock": (bedrock_id, "bedrock-converse-stream"),
    "google": (google_id, "google-vertex"),
}
SOURCE = AssistantMessage(content=[], api="openai-responses", provider="openai", model="gpt")


@pytest.mark.parametrize("vendor", sorted(NORMALIZERS))
def test_a_64_character_id_is_kept_and_a_65_character_one_is_cut_to_64(vendor: str) -> None:
    normalize, api = NORMALIZERS[vendor]
    model = Model(id="claude-sonnet-4-5", api=api, provider=vendor)
    kept = "a" * 64
    assert normalize(kept, model, SOURCE) == kept
    long, longer = "a" * 65, "a" * 64 + "b"
    cut = normalize(long, model, SOURCE)
    other = normalize(longer, model, SOURCE)
    assert (len(cut), len(other)) == (64, 64)
    assert cut != other  # the hash keeps them apart
    assert cut[:40] == other[:40] == "a" * 40
