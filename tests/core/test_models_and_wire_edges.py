"""Edges of the model layer and of the wire helpers, each with its whole result:
merging a provider given twice (``_models/merge.py``), a token count whose endpoint times out
or is cancelled (``_models/count_tokens.py``), a tool-call id that already fits
(``_wire/ids.py``), the clamp of a thinking level (``_wire/levels.py``), a text document that
is not UTF-8 (``_wire/documents.py``) and a value the strict JSON writer cannot write
(``_wire/strict_json.py``).
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest

import pi_sdk
from pi_sdk import ConfigurationError, Provider
from pi_sdk._models.merge import merge_provider
from pi_sdk._wire.documents import document_as_text
from pi_sdk._wire.estimate import estimate_context_tokens
from pi_sdk._wire.ids import fit_id, short_hash
from pi_sdk._wire.levels import clamp_thinking_level
from pi_sdk._wire.strict_json import dumps_strict
from pi_sdk.provider import ApiProvider
from pi_sdk.types import DocumentContent


def test_merging_a_provider_with_itself_is_itself_and_headers_must_agree():
    one = Provider(id="acme", headers={"x-team": "a"})
    assert merge_provider(one, one) is one
    merged = merge_provider(one, Provider(id="acme", headers={"x-team": "a", "x-more": "b"}))
    assert dict(merged.headers or {}) == {"x-team": "a", "x-more": "b"}
    with pytest.raises(ConfigurationError) as caught:
        merge_provider(one, Provider(id="acme", headers={"x-team": "z"}))
    assert str(caught.value) == (
        "provider 'acme' is given twice with a different header 'x-team'; configure one"
    )


async def _never(model: Any, context: Any, options: Any):  # noqa: ANN202
    yield None


def _models(counter: Any) -> tuple[pi_sdk.Models, pi_sdk.Model]:
    model = pi_sdk.Model(id="m", api="count-api", provider="acme")
    api = ApiProvider(api="count-api", stream=_never, count_tokens=counter)
    return pi_sdk.Models([Provider(id="acme", models=[model], apis=(api,))], plugins=None), model


async def test_a_count_that_does_not_answer_in_time_falls_back_naming_the_wait():
    async def hangs(model: Any, context: Any, options: Any) -> int:
        await asyncio.Event().wait()
        return 0

    models, model = _models(hangs)
    context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="x" * 40)])
    counted = await models.count_tokens(model, context, pi_sdk.StreamOptions(timeout_ms=1))
    assert counted.source == "estimate"
    assert counted.reason == "count_tokens endpoint failed: no answer within 1 ms"
    assert counted.tokens > 0


async def test_a_count_cancelled_inside_the_endpoint_is_not_an_estimate():
    async def cancelled(model: Any, context: Any, options: Any) -> int:
        raise asyncio.CancelledError

    models, model = _models(cancelled)
    with pytest.raises(asyncio.CancelledError):
        await models.count_tokens(model, pi_sdk.Context(messages=[]))


def test_an_id_that_fits_is_kept_and_one_that_does_not_is_cut_with_a_hash():
    assert fit_id("call_1", "call_1", 40) == "call_1"
    rebuilt = "CALL_1".lower()  # a normalizer's own equal copy (lower-cased, joined...)
    assert fit_id("call_1", rebuilt, 40) == "call_1"
    long = "toolu_" + "x" * 60
    fitted = fit_id(long, long, 40)
    assert fitted == long[: 40 - 1 - len(short_hash(long))] + "_" + short_hash(long)
    assert len(fitted) == 40
    assert fit_id("a|b", "a_b", 40) == "a_b_" + short_hash("a|b")  # changed: hashed


@pytest.mark.parametrize(
    ("level", "reasoning", "level_map", "clamped"),
    [
        ("high", False, None, "off"),
        ("off", False, None, "off"),
        ("medium", True, None, "medium"),
        ("xhigh", True, None, "high"),
        ("xhigh", True, {"xhigh": "max"}, "xhigh"),
        ("low", True, {"low": None, "minimal": None}, "medium"),
        ("high", True, {"high": None, "medium": None}, "low"),
        ("high", True, dict.fromkeys(("off", "minimal", "low", "medium", "high")), "off"),
    ],
)
def test_a_thinking_level_is_clamped_to_the_nearest_supported(
    level: str, reasoning: bool, level_map: Any, clamped: str
):
    assert clamp_thinking_level(level, reasoning, level_map) == clamped


def test_a_text_document_that_is_not_utf8_is_refused_naming_its_type():
    block = DocumentContent(
        data=base64.b64encode("caf\xe9".encode("latin-1")).decode(), mime_type="text/csv"
    )
    with pytest.raises(ConfigurationError) as caught:
        document_as_text(block, "messages[0].content[1]")
    assert str(caught.value) == "messages[0].content[1]: the text/csv document is not UTF-8 text"


def test_the_strict_writer_passes_on_other_value_errors():
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError) as caught:
        dumps_strict(loop)
    assert str(caught.value) == "Circular reference detected"


@pytest.mark.parametrize(
    ("answer", "vendor"),
    [(0, True), (7, True), (-1, False), (True, False), (3.0, False), ("5", False), (None, False)],
)
async def test_only_a_whole_number_of_zero_or_more_is_the_vendor_s_count(answer: Any, vendor: bool):
    async def answers(model: Any, context: Any, options: Any) -> Any:
        return answer

    models, model = _models(answers)
    context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="x" * 40)])
    counted = await models.count_tokens(model, context)
    if vendor:
        assert counted == pi_sdk.TokenCount(answer, "vendor")
    else:
        estimate = estimate_context_tokens(context).tokens
        reason = f"count_tokens endpoint answered {answer!r}, not a count"
        assert counted == pi_sdk.TokenCount(estimate, "estimate", reason)


@pytest.mark.parametrize(
    ("first", "second", "merged"),
    [
        ({"x-team": "a"}, None, {"x-team": "a"}),
        (None, {"x-team": "b"}, {"x-team": "b"}),
        ({"x-team": "a"}, {}, {"x-team": "a"}),
        ({}, {"x-more": "b"}, {"x-more": "b"}),
        ({"x-team": "a"}, {"x-more": "b"}, {"x-team": "a", "x-more": "b"}),
        (None, None, None),
    ],
)
def test_merged_headers_are_both_providers_headers(
    first: dict[str, str] | None, second: dict[str, str] | None, merged: dict[str, str] | None
):
    one, two = Provider(id="acme", headers=first), Provider(id="acme", headers=second)
    headers = merge_provider(one, two).headers
    assert (dict(headers) if headers is not None else None) == merged


@pytest.mark.parametrize(
    ("first", "second", "merged"),
    [
        (None, "http://b/v1", "http://b/v1"),
        ("http://a/v1", None, "http://a/v1"),
        ("http://a/v1", "http://a/v1", "http://a/v1"),
        (None, None, None),
    ],
)
def test_a_base_url_one_provider_gives_is_the_merged_one(
    first: str | None, second: str | None, merged: str | None
):
    one, two = Provider(id="acme", base_url=first), Provider(id="acme", base_url=second)
    assert merge_provider(one, two).base_url == merged


def test_a_provider_s_settings_go_on_each_model_and_the_model_s_headers_win():
    from pi_sdk._models.merge import with_provider_settings

    models = [
        pi_sdk.Model(id="a", api="x", provider="acme", base_url="http://old/v1"),
        pi_sdk.Model(id="b", api="x", provider="acme", headers={"x-team": "own"}),
    ]
    bare = Provider(id="acme")
    assert with_provider_settings(bare, models) == models
    configured = Provider(id="acme", base_url="http://new/v1", headers={"x-team": "p", "x-k": "v"})
    applied = with_provider_settings(configured, models)
    assert [(m.id, m.base_url, m.headers) for m in applied] == [
        ("a", "http://new/v1", {"x-team": "p", "x-k": "v"}),
        ("b", "http://new/v1", {"x-team": "own", "x-k": "v"}),
    ]
    assert models[0].base_url == "http://old/v1" and models[1].headers == {"x-team": "own"}
    only_headers = with_provider_settings(Provider(id="acme", headers={"x-k": "v"}), models)
    assert [(m.base_url, m.headers) for m in only_headers] == [
        ("http://old/v1", {"x-k": "v"}),
        ("", {"x-team": "own", "x-k": "v"}),
    ]
