"""The Compactor's constructor: its documented settings, their defaults and checks, nothing else.

The docstring's ``Args`` are the settings; the constructor takes exactly those, the model
first and the rest by keyword, with the documented defaults. The compactor's own state (the
agent it is attached to, the summary, what it covers) is not a setting: a caller cannot pass
it, so a compactor always starts with none. Each check of the settings gives its whole text.
"""

from __future__ import annotations

import dataclasses
import inspect
import re

import pytest
from pi_sdk_compaction import Compactor

from pi_sdk.testing import ScriptedProvider

SETTINGS = {
    "threshold": 0.8,
    "keep_recent_tokens": 20_000,
    "context_window": None,
    "summary_max_tokens": 4096,
    "summary_options": None,
    "stream_fn": None,
    "instructions": None,
    "convert_to_llm": None,
}


def _documented_args() -> list[str]:
    doc = inspect.getdoc(Compactor) or ""
    section = doc.split("\nArgs:\n", 1)[1].split("\nRaises:\n", 1)[0]
    return re.findall(r"^    (\w+):", section, flags=re.MULTILINE)


def test_the_constructor_takes_the_documented_settings_and_nothing_else() -> None:
    parameters = inspect.signature(Compactor).parameters
    assert list(parameters) == _documented_args() == ["summary_model", *SETTINGS]
    kinds = [p.kind for p in parameters.values()]
    assert kinds == [inspect.Parameter.POSITIONAL_OR_KEYWORD] + [
        inspect.Parameter.KEYWORD_ONLY
    ] * len(SETTINGS)
    assert {name: parameters[name].default for name in SETTINGS} == SETTINGS


@pytest.mark.parametrize(
    "name",
    [
        f.name
        for f in dataclasses.fields(Compactor)
        if f.name.startswith("_") or f.name == "history"
    ],
)
def test_the_compactors_own_state_is_not_a_setting(name: str) -> None:
    model = ScriptedProvider().model
    with pytest.raises(TypeError) as caught:
        Compactor(model, **{name: None})
    assert str(caught.value) == f"Compactor.__init__() got an unexpected keyword argument '{name}'"


def test_a_new_compactor_has_no_state() -> None:
    compactor = Compactor(ScriptedProvider(model_id="writer").model)
    assert (compactor.history, compactor.summary) == ([], None)
    assert repr(compactor) == "Compactor(summary_model='writer', compactions=0)"
    with pytest.raises(RuntimeError) as caught:
        compactor.apply()  # not attached to any agent
    assert str(caught.value) == "Compactor.apply needs an agent (pass one or attach() first)"


@pytest.mark.parametrize(
    ("settings", "text"),
    [
        ({"threshold": 0}, "threshold must be in (0, 1], got 0"),
        ({"threshold": -0.5}, "threshold must be in (0, 1], got -0.5"),
        ({"threshold": 1.5}, "threshold must be in (0, 1], got 1.5"),
        ({"threshold": float("nan")}, "threshold must be in (0, 1], got nan"),
        ({"keep_recent_tokens": 0}, "keep_recent_tokens and summary_max_tokens must be positive"),
        ({"keep_recent_tokens": -1}, "keep_recent_tokens and summary_max_tokens must be positive"),
        ({"summary_max_tokens": 0}, "keep_recent_tokens and summary_max_tokens must be positive"),
    ],
)
def test_each_check_of_the_settings(settings: dict[str, float], text: str) -> None:
    with pytest.raises(ValueError) as caught:
        Compactor(ScriptedProvider().model, **settings)  # type: ignore[arg-type]
    assert str(caught.value) == text


@pytest.mark.parametrize(
    "settings",
    [{"threshold": 1}, {"threshold": 1e-9}, {"keep_recent_tokens": 1, "summary_max_tokens": 1}],
)
def test_the_edges_of_the_settings_are_accepted(settings: dict[str, float]) -> None:
    compactor = Compactor(ScriptedProvider().model, **settings)  # type: ignore[arg-type]
    assert {name: getattr(compactor, name) for name in settings} == settings


def test_a_summary_read_without_its_counts_has_zero_for_each() -> None:
    # pi's message carries the summary; the counts default to 0 (nothing estimated, nothing
    # replaced) and the timestamp to the time it was read.
    from pi_sdk_compaction import CompactionSummary

    from pi_sdk import now_ms

    before = now_ms()
    summary = CompactionSummary.model_validate({"role": "compactionSummary", "summary": "s"})
    after = now_ms()
    wire = summary.model_dump(by_alias=True)
    assert before <= wire.pop("timestamp") <= after
    assert wire == {
        "role": "compactionSummary",
        "summary": "s",
        "tokensBefore": 0,
        "summarizedMessages": 0,
    }
    made = CompactionSummary(summary="s")
    assert (made.role, made.tokens_before, made.summarized_messages) == ("compactionSummary", 0, 0)


def test_a_new_compactor_has_run_no_compaction() -> None:
    compactor = Compactor(ScriptedProvider().model)
    state = {
        f.name: getattr(compactor, f.name) for f in dataclasses.fields(Compactor) if not f.init
    }
    assert state == {
        "history": [],
        "_agent": None,
        "_inner": None,
        "_summary": None,
        "_covered": 0,
        "_anchor": None,
        "_fresh_at": 0,
        "_handled_overflow": None,
    }
