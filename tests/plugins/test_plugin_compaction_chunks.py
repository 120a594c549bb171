"""What the summary model is asked to read: every summarized message, in order, in chunks.

The compactor cuts the old part of the conversation into chunks its summary model's window can
take (60% of the window less the summary's own tokens, 4 characters a token, at least 1,000
tokens) and asks for one summary per chunk, each updating the last. A message that serializes
to nothing (an errored reply, an empty user message) adds nothing and must not end the reading.
"""

from __future__ import annotations

import re

from _support.compaction import SummaryWriter
from pi_sdk_compaction import Compactor

from pi_sdk import AssistantMessage, TextContent, UserMessage

WINDOW = 10_000
SUMMARY_WINDOW = 2500  # chunks of max(2500 * 0.6 - 400, 1000) * 4 = 4,400 characters
LIMIT = 4400


def _errored() -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text="half an answer")],
        api="faux",
        provider="faux",
        model="m",
        stop_reason="error",
        error_message="529 Overloaded",
    )


async def _compact(messages: list) -> tuple[list, SummaryWriter]:
    summarizer = SummaryWriter(SUMMARY_WINDOW)
    compactor = Compactor(
        summarizer.provider.model,
        stream_fn=summarizer.provider.stream_fn,
        summary_max_tokens=400,
        context_window=WINDOW,
        threshold=0.5,
        keep_recent_tokens=10,
    )
    out = await compactor.transform_context(messages, None)  # type: ignore[arg-type]
    return out, summarizer


def _user(n: int, size: int = 900) -> UserMessage:
    return UserMessage(content=f"<m{n}> " + "x" * size)


async def test_an_empty_message_between_others_does_not_end_the_reading():
    messages = [
        _user(1),
        _errored(),  # serializes to nothing
        UserMessage(content=""),  # nothing either
        *[_user(n) for n in range(2, 30)],
        UserMessage(content="the last question"),
    ]
    _, summarizer = await _compact(messages)
    read = "\n\n".join(summarizer.conversations())
    markers = re.findall(r"<m(\d+)>", read)
    summarized = [int(m) for m in markers]
    assert summarized[:1] == [1] and summarized == sorted(set(summarized))
    assert len(summarized) >= 15  # the messages after the empty ones were read
    assert "half an answer" not in read and "529" not in read


async def test_chunks_fill_up_to_the_limit_and_keep_message_order():
    messages = [*[_user(n) for n in range(1, 25)], UserMessage(content="the last question")]
    _, summarizer = await _compact(messages)
    conversations = summarizer.conversations()
    assert len(conversations) > 1  # one summary call per chunk, each updating the last
    requests = summarizer.requests
    for i, (conversation, request) in enumerate(zip(conversations, requests, strict=True)):
        assert len(conversation) <= LIMIT
        if i:
            assert f"<previous-summary>\nsummary {i}\n</previous-summary>" in request
        else:
            assert "<previous-summary>" not in request
    parts = [p for c in conversations for p in c.split("\n\n")]
    numbers = [int(re.match(r"User: <m(\d+)>", p).group(1)) for p in parts]  # type: ignore[union-attr]
    assert numbers == list(range(1, len(numbers) + 1))
    # Each chunk but the last is full: the next message would not have fitted.
    for conversation, following in zip(conversations, conversations[1:], strict=False):
        first_next = following.split("\n\n")[0]
        assert len(conversation) + 2 + len(first_next) > LIMIT
