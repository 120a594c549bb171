"""Every shape of ``choices`` a Chat Completions server sends: the reply is choice 0's, always.

With ``n`` > 1 (or a server that numbers its only choice), a chunk may carry several choices in
any order, or only another choice's delta; a choice may leave ``index`` out (then it is 0). The
message is built from the choice whose ``index`` is 0 alone: its text, its finish reason, its
usage; a chunk without choice 0 adds nothing, and a stream that never had choice 0 is not a
chat completion. Each shape is fed through the decoder's chunk entry (fast path included) and,
for whole documents, through ``feed_document``.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.decoding import decoded
from pi_sdk_openai.completions import Decoder

from pi_sdk import AssistantMessage, Model, TextContent
from pi_sdk.provider import MessageBuilder, ProviderError

MODEL = Model(id="gpt-test", api="openai-completions", provider="openai", base_url="http://x")


def choice(index: int | None, text: str | None = None, finish: str | None = None, **extra: Any):
    fields: dict[str, Any] = {} if index is None else {"index": index}
    delta: dict[str, Any] = {} if text is None else {"content": text}
    return {**fields, "delta": delta, "finish_reason": finish, **extra}


def chunk(*choices: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "model": "gpt-test",
        "choices": list(choices),
        **extra,
    }


def usage(prompt: int, completion: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def decode(*chunks: dict[str, Any]) -> AssistantMessage:
    return decoded(Decoder, MODEL, chunks)


def summary(message: AssistantMessage) -> tuple[list[Any], str, tuple[int, int]]:
    return message.content, message.stop_reason, (message.usage.input, message.usage.output)


HELLO = ([TextContent(text="Hello")], "stop", (7, 2))

SHAPES = [
    pytest.param(
        [
            chunk(choice(0, "Hel")),
            chunk(choice(0, "lo")),
            chunk(choice(0, None, "stop")),
            chunk(usage=usage(7, 2)),
        ],
        id="choice-0-alone",
    ),
    pytest.param(
        [
            chunk(choice(None, "Hel")),
            chunk(choice(None, "lo", "stop")),
            chunk(usage=usage(7, 2)),
        ],
        id="index-left-out",
    ),
    pytest.param(
        [
            chunk(choice(1, "Other"), choice(0, "Hel")),
            chunk(choice(1, " one", "length"), choice(0, "lo", "stop")),
            chunk(usage=usage(7, 2)),
        ],
        id="choice-0-second-in-each-chunk",
    ),
    pytest.param(
        [
            chunk(choice(0, "Hel"), choice(1, "Other")),
            chunk(choice(0, "lo", "stop"), choice(1, " one", "length")),
            chunk(usage=usage(7, 2)),
        ],
        id="choice-0-first-of-several",
    ),
    pytest.param(
        [
            chunk(choice(0, "Hel")),
            chunk(choice(1, "Other")),  # an open text block: the fast path's case but choice 1
            chunk(choice(0, "lo")),
            chunk(choice(1, " one", "length")),
            chunk(choice(2, "Third")),
            chunk(choice(0, None, "stop")),
            chunk(usage=usage(7, 2)),
        ],
        id="one-choice-per-chunk-interleaved",
    ),
    pytest.param(
        [
            chunk(choice(2, "Third"), choice(1, "Other")),  # no choice 0 in this chunk
            chunk(choice(0, "Hello", "stop")),
            chunk(usage=usage(7, 2)),
        ],
        id="a-chunk-without-choice-0",
    ),
    pytest.param(
        [
            chunk(
                choice(1, "Other", usage=usage(99, 99)),
                choice(0, "Hello", "stop", usage=usage(7, 2)),
            ),
        ],
        id="usage-on-the-choices",
    ),
]


@pytest.mark.parametrize("chunks", SHAPES)
def test_the_reply_is_choice_0s(chunks: list[dict[str, Any]]) -> None:
    assert summary(decode(*chunks)) == HELLO


@pytest.mark.parametrize(
    "chunks",
    [
        pytest.param([chunk(choice(1, "Other", "stop"))], id="only-choice-1"),
        pytest.param([chunk(choice(2, "A"), choice(1, "B", "stop"))], id="several-none-is-0"),
        pytest.param([chunk(usage=usage(7, 2))], id="no-choices"),
    ],
)
def test_a_stream_that_never_had_choice_0_is_not_a_chat_completion(
    chunks: list[dict[str, Any]],
) -> None:
    with pytest.raises(ProviderError) as caught:
        decode(*chunks)
    assert str(caught.value) == (
        "the response stream had no choices: not a chat completion stream (a proxy's answer?),"
        " nothing to return"
    )


def _document(*choices: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion",
        "model": "gpt-test",
        "choices": list(choices),
        "usage": usage(7, 2),
    }


def _message_choice(index: int | None, text: str, finish: str) -> dict[str, Any]:
    fields: dict[str, Any] = {} if index is None else {"index": index}
    return {**fields, "message": {"role": "assistant", "content": text}, "finish_reason": finish}


@pytest.mark.parametrize(
    "choices",
    [
        pytest.param([_message_choice(0, "Hello", "stop")], id="one"),
        pytest.param([_message_choice(None, "Hello", "stop")], id="index-left-out"),
        pytest.param(
            [_message_choice(1, "Other", "length"), _message_choice(0, "Hello", "stop")],
            id="choice-0-second",
        ),
        pytest.param(
            [_message_choice(0, "Hello", "stop"), _message_choice(1, "Other", "length")],
            id="choice-0-first",
        ),
    ],
)
def test_a_whole_document_is_choice_0s(choices: list[dict[str, Any]]) -> None:
    builder = MessageBuilder(MODEL)
    decoder = Decoder(builder)
    decoder.feed_document(_document(*choices))
    decoder.finish(saw_done=True)
    assert summary(builder.message) == HELLO


AZURE_FILTER_CHUNK = {
    "id": "",
    "object": "",
    "model": "",
    "choices": [],
    "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}],
}


@pytest.mark.parametrize(
    "first",
    [
        pytest.param([], id="the-first-chunk"),
        pytest.param([AZURE_FILTER_CHUNK], id="after-azures-prompt-filter-chunk"),
        pytest.param([{"choices": []}], id="after-a-chunk-without-model"),
    ],
)
def test_the_response_id_and_model_are_the_first_chunk_naming_a_model(
    first: list[dict[str, Any]],
) -> None:
    later = {**chunk(choice(0, "lo", "stop")), "id": "other", "model": "gpt-other"}
    message = decode(*first, chunk(choice(0, "Hel")), later, chunk(usage=usage(7, 2)))
    assert (message.response_id, message.response_model) == ("c", "gpt-test")
    assert summary(message) == HELLO
