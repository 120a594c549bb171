"""Responses ``reasoning`` / ``include`` fields for every input that changes them (pi-ai 1.6).

A level (``options.reasoning`` clamped, or ``provider_options["reasoning_effort"]`` as given) or
a summary asked for sends ``reasoning: {effort, summary}`` (the level mapped by the model's
``thinkingLevelMap``, ``medium`` unmapped when only a summary is asked for; summary ``auto``
by default) plus ``include: ["reasoning.encrypted_content"]``; with ``configuration_update``
items the top-level effort stays ``medium``. Off: ``reasoning: {effort: <off>}`` where the model
can turn reasoning off. xAI always gets the ``include``; a model without reasoning gets nothing.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai.responses._reasoning import (
    configuration_update_effort,
    off_effort,
    reasoning_fields,
)

from pi_sdk import Model, StreamOptions

INCLUDE = ["reasoning.encrypted_content"]


def _model(model_id: str = "o-x", **fields: Any) -> Model:
    values: dict[str, Any] = {"api": "openai-responses", "provider": "openai", "reasoning": True}
    return Model(id=model_id, **(values | fields))


@pytest.mark.parametrize(
    ("model", "options", "summary", "update", "expected"),
    [
        (
            _model(),
            {"reasoning": "high"},
            None,
            None,
            {"reasoning": {"effort": "high", "summary": "auto"}, "include": INCLUDE},
        ),
        (
            _model(thinking_level_map={"high": "hi", "medium": "med"}),
            {"reasoning": "high"},
            "concise",
            None,
            {"reasoning": {"effort": "hi", "summary": "concise"}, "include": INCLUDE},
        ),
        (
            _model(thinking_level_map={"medium": "med"}),
            {},
            "detailed",
            None,
            {"reasoning": {"effort": "medium", "summary": "detailed"}, "include": INCLUDE},
        ),
        (
            _model(),
            {"reasoning": "low"},
            None,
            "low",
            {"reasoning": {"effort": "medium", "summary": "auto"}, "include": INCLUDE},
        ),
        (
            _model(),
            {"provider_options": {"reasoning_effort": "minimal"}},
            None,
            None,
            {"reasoning": {"effort": "minimal", "summary": "auto"}, "include": INCLUDE},
        ),
        (_model(), {}, None, None, {"reasoning": {"effort": "none"}}),
        (
            _model(thinking_level_map={"off": "low"}),
            {},
            None,
            None,
            {"reasoning": {"effort": "low"}},
        ),
        (_model("gpt-5-x"), {}, None, None, {}),
        (
            _model("grok-x", provider="xai"),
            {},
            None,
            None,
            {"reasoning": {"effort": "none"}, "include": INCLUDE},
        ),
        # Another provider, whichever way its name sorts beside "xai": no include.
        (_model("glm-x", provider="zai"), {}, None, None, {"reasoning": {"effort": "none"}}),
        (_model(reasoning=False), {"reasoning": "high"}, "auto", None, {}),
    ],
)
def test_reasoning_fields(
    model: Model, options: dict[str, Any], summary: Any, update: Any, expected: dict[str, Any]
) -> None:
    assert reasoning_fields(model, StreamOptions(**options), summary, update) == expected


@pytest.mark.parametrize(
    ("model", "off"),
    [
        (_model(), "none"),
        (_model("gpt-5.1"), None),
        (_model("gpt-5.1", thinking_level_map={"off": "none"}), "none"),
        (_model(thinking_level_map={"off": None}), None),
        (_model(thinking_level_map={"high": "high"}), "none"),  # no off entry: the id rule
        (_model(compat={"thinkingLevelMap": {"off": "minimal"}}), "minimal"),
        (_model(provider="github-copilot"), None),
    ],
)
def test_off_effort(model: Model, off: str | None) -> None:
    assert off_effort(model) == off


@pytest.mark.parametrize(
    ("model", "options", "effort"),
    [
        (_model(compat={"supportsMidConvoEffort": True}), {"reasoning": "high"}, "high"),
        (
            _model(compat={"supportsMidConvoEffort": True}, thinking_level_map={"high": "hi"}),
            {"reasoning": "high"},
            "hi",
        ),
        (_model(compat={"supportsMidConvoEffort": True}), {}, None),
        (_model(), {"reasoning": "high"}, None),
        (
            _model(api="azure-openai-responses", compat={"supportsMidConvoEffort": True}),
            {"reasoning": "high"},
            None,
        ),
    ],
)
def test_configuration_update_effort(
    model: Model, options: dict[str, Any], effort: str | None
) -> None:
    assert configuration_update_effort(model, StreamOptions(**options)) == effort
