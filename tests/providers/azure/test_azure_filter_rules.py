"""Azure content-filter annotations, rule by rule (Microsoft Learn, "Content filtering").

:func:`filtered_categories` names a category only when its entry is an object with
``filtered: true`` (``"<name> (<severity>)"`` when the severity is a string); the decoders keep
the last *non-empty* annotations (an empty one later in the stream does not erase them) and
name prompt and completion categories apart; :func:`with_filter_detail` adds the categories to
a ``code: content_filter`` HTTP refusal only, keeping status, retry flag and wait, and leaves
every other error as it is (the same object).
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_azure._filters import filter_message, filtered_categories, with_filter_detail
from pi_sdk_azure.completions._decode import Decoder as ChatDecoder
from pi_sdk_azure.responses._decode import Decoder as ResponsesDecoder

from pi_sdk import Model
from pi_sdk.provider import MessageBuilder, ProviderError

VIOLENCE = {"violence": {"filtered": True, "severity": "high"}}
JAILBREAK = {"jailbreak": {"filtered": True, "detected": True}}


@pytest.mark.parametrize(
    ("results", "names"),
    [
        (None, []),
        ([VIOLENCE], []),
        ({}, []),
        ({"hate": {"filtered": False, "severity": "safe"}}, []),
        ({"hate": {"filtered": "true"}}, []),  # not the boolean
        ({"hate": {"filtered": 1}}, []),
        ({"hate": True}, []),  # not an object
        ({"hate": "filtered", **VIOLENCE}, ["violence (high)"]),
        ({"hate": {"severity": "high"}}, []),
        ({"hate": {"filtered": True, "severity": 3}}, ["hate"]),
        ({**VIOLENCE, **JAILBREAK, "sexual": {"filtered": True, "severity": "medium"}},
         ["violence (high)", "jailbreak", "sexual (medium)"]),
        ({"hate": {"filtered": False}, **JAILBREAK}, ["jailbreak"]),
    ],
)  # fmt: skip
def test_filtered_categories(results: Any, names: list[str]) -> None:
    assert filtered_categories(results) == names


@pytest.mark.parametrize(
    ("prompt", "completion", "detail"),
    [
        ([], [], "the annotations name no filtered category"),
        (["jailbreak"], [], "prompt: jailbreak"),
        ([], ["violence (high)", "hate"], "completion: violence (high), hate"),
        (["jailbreak"], ["hate"], "prompt: jailbreak; completion: hate"),
    ],
)
def test_filter_message(prompt: list[str], completion: list[str], detail: str) -> None:
    text = filter_message("why", prompt=prompt, completion=completion)
    assert text == f"Azure's content filter blocked the reply (why): {detail}"


def _chat() -> ChatDecoder:
    builder = MessageBuilder(Model(id="m", api="azure-openai-completions", provider="azure"))
    builder.start()
    return ChatDecoder(builder)


def test_the_chat_decoder_keeps_the_last_non_empty_annotations() -> None:
    decoder = _chat()
    decoder.feed(
        {
            "choices": [],
            "model": "",
            "prompt_filter_results": [{"content_filter_results": JAILBREAK}],
        }
    )
    decoder.feed({"choices": [], "model": "", "prompt_filter_results": []})
    choice = {"index": 0, "delta": {"content": "x"}, "content_filter_results": VIOLENCE}
    decoder.feed({"choices": [choice], "model": "m"})
    decoder.feed(
        {"choices": [{"index": 0, "delta": {"content": "y"}, "content_filter_results": {}}]}
    )
    decoder.feed({"choices": [{"index": 0, "delta": {"content": "z"}}]})
    decoder.feed({"choices": ["not a choice"]})
    assert decoder.content_filter_message() == (
        "Azure's content filter blocked the reply (finish_reason: content_filter):"
        " prompt: jailbreak; completion: violence (high)"
    )


def test_the_chat_decoder_without_annotations() -> None:
    assert _chat().content_filter_message().endswith("the annotations name no filtered category")


def _responses() -> ResponsesDecoder:
    builder = MessageBuilder(Model(id="m", api="azure-openai-responses", provider="azure"))
    builder.start()
    return ResponsesDecoder(builder)


def test_the_responses_decoder_reads_terminal_events_and_sources() -> None:
    decoder = _responses()
    filters = [
        {"source_type": "prompt", "content_filter_results": JAILBREAK},
        {"source_type": "completion", "content_filter_results": VIOLENCE},
        {"source_type": "other", "content_filter_results": {"hate": {"filtered": True}}},
        {"source_type": 7, "content_filter_results": {"hate": {"filtered": True}}},
    ]
    # a non-terminal event's filters are not read
    decoder.feed({"type": "response.created", "response": {"content_filters": [filters[2]]}})
    assert decoder.content_filters == []
    decoder.feed({"type": "response.in_progress", "response": {"content_filters": filters}})
    assert decoder.content_filters == []
    for kind in ("response.completed", "response.incomplete", "response.failed"):
        fresh = _responses()
        try:
            fresh.feed({"type": kind, "response": {"content_filters": filters}})
        except ProviderError:
            pass  # response.failed raises after the filters are kept
        assert fresh.content_filters == filters, kind
        assert fresh.content_filter_message() == (
            "Azure's content filter blocked the reply (incomplete: content_filter):"
            " prompt: jailbreak; completion: violence (high)"
        )


class _Cause(Exception):
    def __init__(self, body: Any) -> None:
        super().__init__("sdk error")
        self.body = body


def _error(body: Any) -> ProviderError:
    error = ProviderError("400 Bad Request: content_filter: refused", status=400, retryable=False)
    error.__cause__ = _Cause(body) if body is not _NO_CAUSE else None
    return error


_NO_CAUSE = object()
_INNER = {"content_filter_result": {**JAILBREAK, "hate": {"filtered": False}}}


@pytest.mark.parametrize(
    "body",
    [
        _NO_CAUSE,
        None,
        "content_filter",
        {"code": "other", "innererror": _INNER},
        {"code": "content_filter"},
        {"code": "content_filter", "innererror": "x"},
        {"code": "content_filter", "innererror": {"content_filter_result": {}}},
    ],
    ids=[
        "no-cause",
        "no-body",
        "text-body",
        "other-code",
        "no-inner",
        "inner-text",
        "none-filtered",
    ],
)
def test_other_errors_are_left_as_they_are(body: Any) -> None:
    error = _error(body)
    assert with_filter_detail(error) is error


@pytest.mark.parametrize(
    ("param", "where"), [("prompt", "prompt"), (None, "request"), ("", "request"), (3, "request")]
)
def test_a_content_filter_refusal_names_where_and_what(param: Any, where: str) -> None:
    error = ProviderError("400 Bad Request: content_filter: refused", status=400, retryable=True)
    error.retry_after_ms = 1500
    error.__cause__ = _Cause({"code": "content_filter", "param": param, "innererror": _INNER})
    detailed = with_filter_detail(error)
    assert (
        str(detailed) == f"400 Bad Request: content_filter: refused (filtered: {where}: jailbreak)"
    )
    assert (detailed.status, detailed.retryable, detailed.retry_after_ms) == (400, True, 1500)
