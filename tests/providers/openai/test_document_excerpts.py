"""A whole JSON body that is not a reply is named by its first 200 characters (both decoders).

Chat Completions without ``choices`` and Responses without ``output`` give the body as JSON,
non-ASCII kept, cut at 200 characters; a body that is not an object, its ``repr`` cut the same.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai.completions import Decoder as CompletionsDecoder
from pi_sdk_openai.responses import Decoder as ResponsesDecoder

from pi_sdk import Model
from pi_sdk.provider import MessageBuilder, ProviderError

DECODERS = [
    pytest.param(CompletionsDecoder, "openai-completions",
                 "the JSON response is not a chat completion (no choices): ", id="completions"),
    pytest.param(ResponsesDecoder, "openai-responses",
                 "the JSON response is not a Responses API response (no output): ",
                 id="responses"),
]  # fmt: skip


def _fed(decoder: Any, api: str, document: Any) -> str:
    model = Model(id="gpt-test", api=api, provider="openai", base_url="http://x")
    with pytest.raises(ProviderError) as caught:
        decoder(MessageBuilder(model)).feed_document(document)
    return str(caught.value)


@pytest.mark.parametrize("size", [10, 200, 500])
@pytest.mark.parametrize(("decoder", "api", "prefix"), DECODERS)
def test_a_body_that_is_not_a_reply_is_its_first_200_characters(
    decoder: Any, api: str, prefix: str, size: int
) -> None:
    whole = '{"id": "r", "détail": "' + "é" * size + '"}'
    assert _fed(decoder, api, {"id": "r", "détail": "é" * size}) == prefix + whole[:200]


@pytest.mark.parametrize("size", [10, 200, 500])
@pytest.mark.parametrize(("decoder", "api", "prefix"), DECODERS)
def test_a_body_that_is_not_an_object_is_its_repr_cut_at_200(
    decoder: Any, api: str, prefix: str, size: int
) -> None:
    del prefix
    document = ["é" * size]
    assert _fed(decoder, api, document) == "malformed response body: " + repr(document)[:200]
