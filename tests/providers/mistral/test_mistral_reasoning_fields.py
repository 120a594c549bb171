"""Mistral's reasoning fields for every level-map shape, reasoning on and off (pi-ai 1.6).

``reasoning_fields``: a model with a level map (``model.thinking_level_map``, else
``compat["thinkingLevelMap"]``) sends ``reasoning_effort``: the clamped level's entry, else
``"high"``; with reasoning off, the map's ``off`` entry when it is a string, else nothing.
Without a map: ``reasoning_effort: "high"`` for the models pi-ai 0.73 knew to take it,
``prompt_mode: "reasoning"`` for the others, nothing with reasoning off. A model without
reasoning sends nothing whatever the options.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pi_sdk_mistral.conversations._request import reasoning_fields

from pi_sdk import Model, StreamOptions


def _model(model_id: str = "mistral-small-2603", **fields: Any) -> Model:
    values: dict[str, Any] = {"api": "mistral-conversations", "provider": "mistral"}
    values |= {"reasoning": True} | fields
    return Model(id=model_id, **values)


@pytest.mark.parametrize("where", ["thinking_level_map", "compat"])
@pytest.mark.parametrize(
    ("level_map", "level", "expected"),
    [
        ({"low": "lo", "high": "hi"}, "low", {"reasoning_effort": "lo"}),
        ({"low": "lo", "high": "hi"}, "high", {"reasoning_effort": "hi"}),
        ({"low": "lo", "medium": None, "high": "hi"}, "high", {"reasoning_effort": "hi"}),
        ({"off": "none", "high": "hi"}, None, {"reasoning_effort": "none"}),
        ({"off": "none", "high": "hi"}, "off", {"reasoning_effort": "none"}),
        ({"high": "hi"}, None, {}),  # off not named: nothing
        ({"off": None, "high": "hi"}, None, {}),
    ],
)
def test_a_level_map_gives_reasoning_effort(
    where: str, level_map: dict[str, Any], level: Any, expected: dict[str, str]
) -> None:
    fields = (
        {"thinking_level_map": level_map}
        if where == "thinking_level_map"
        else {"compat": {"thinkingLevelMap": level_map}}
    )
    assert reasoning_fields(_model(**fields), StreamOptions(reasoning=level)) == expected


def test_a_level_the_map_names_without_a_value_is_high() -> None:
    # compat's map is not read for clamping: the level stays, its entry is not a string
    model = _model(compat={"thinkingLevelMap": {"low": None}})
    assert reasoning_fields(model, StreamOptions(reasoning="low")) == {"reasoning_effort": "high"}


def test_the_model_map_wins_over_compat() -> None:
    model = _model(
        thinking_level_map={"medium": "m1"}, compat={"thinkingLevelMap": {"medium": "m2"}}
    )
    assert reasoning_fields(model, StreamOptions(reasoning="medium")) == {"reasoning_effort": "m1"}


@pytest.mark.parametrize(
    ("model_id", "level", "expected"),
    [
        ("mistral-small-2603", "minimal", {"reasoning_effort": "high"}),
        ("mistral-small-latest", "medium", {"reasoning_effort": "high"}),
        ("mistral-medium-3.5", "high", {"reasoning_effort": "high"}),
        ("magistral-small-latest", "low", {"prompt_mode": "reasoning"}),
        ("mistral-small-2603", None, {}),
        ("mistral-small-2603", "off", {}),
        ("magistral-small-latest", None, {}),
    ],
)
def test_without_a_map(model_id: str, level: Any, expected: dict[str, str]) -> None:
    assert reasoning_fields(_model(model_id), StreamOptions(reasoning=level)) == expected


@pytest.mark.parametrize("level", [None, "low", "high"])
def test_a_model_without_reasoning_sends_nothing(level: Any) -> None:
    for fields in ({}, {"thinking_level_map": {"off": "none", "low": "lo"}}):
        model = _model(**(fields | {"reasoning": False}))
        assert reasoning_fields(model, StreamOptions(reasoning=level)) == {}


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        ("xhigh", {"reasoning_effort": "xh"}),  # an opt-in level the map names: its entry
        ("max", {"reasoning_effort": "mx"}),
        ("minimal", {"reasoning_effort": "mn"}),
    ],
)
def test_every_level_the_model_map_names_sends_its_entry(
    level: str, expected: dict[str, str]
) -> None:
    level_map = {"off": "none", "minimal": "mn", "high": "hi", "xhigh": "xh", "max": "mx"}
    model = _model(thinking_level_map=level_map)
    assert reasoning_fields(model, StreamOptions(reasoning=level)) == expected  # type: ignore[arg-type]


def test_off_set_on_the_options_after_they_were_made_is_reasoning_off() -> None:
    # A level read from a settings file and set afterwards: "off", not the literal's object.
    options = StreamOptions()
    options.reasoning = json.loads('"off"')
    model = _model(thinking_level_map={"off": "none", "high": "hi"})
    assert reasoning_fields(model, options) == {"reasoning_effort": "none"}
    assert reasoning_fields(_model("magistral-medium-latest"), options) == {}
