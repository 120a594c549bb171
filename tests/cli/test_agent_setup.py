"""What ``prompt`` and ``chat`` share (pi_sdk/_cli/setup.py): ``--tools`` files, retry notes."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from pi_sdk import Model
from pi_sdk._cli.common import UsageError
from pi_sdk._cli.setup import build_agent, load_tools
from pi_sdk.options import RetryNotice


@pytest.mark.parametrize("name", ["missing.py", "a-folder/"])
def test_tools_from_a_python_file_that_is_not_there_is_a_usage_error(
    tmp_path: Path, name: str
) -> None:
    (tmp_path / "a-folder").mkdir()
    module = str(tmp_path / name)
    with pytest.raises(UsageError) as raised:
        load_tools([f"{module}:weather"])
    assert str(raised.value) == f"--tools: no Python file at {module}"


def test_a_tools_file_is_loaded_under_a_name_that_shadows_nothing(tmp_path: Path) -> None:
    (tmp_path / "json.py").write_text(
        "def weather(city: str) -> str:\n    '''The weather in city.'''\n    return city\n",
        "utf-8",
    )
    [tool] = load_tools([f"{tmp_path / 'json.py'}:weather"])
    assert tool.name == "weather"
    import json

    assert hasattr(json, "dumps")  # the standard module is still the one imported


def _args(**overrides: object) -> argparse.Namespace:
    values: dict[str, object] = {"reasoning": None, "system": "", "tools": []}
    return argparse.Namespace(**{**values, **overrides})


def test_each_retry_is_one_note_naming_the_current_model() -> None:
    notes: list[str] = []
    first = Model(id="m-1", api="x", provider="lab")
    agent = build_agent(_args(), first, note=notes.append)
    notice = RetryNotice(attempt=1, max_attempts=3, delay_ms=1250, error_message="429 slow down")
    on_retry = agent.stream_options.on_retry
    assert on_retry is not None
    on_retry(notice)
    agent.model = Model(id="m-2", api="x", provider="other")
    on_retry(notice)
    assert notes == [
        "lab/m-1: attempt 1 of 3 failed (429 slow down); retrying in 1.2 s",
        "other/m-2: attempt 1 of 3 failed (429 slow down); retrying in 1.2 s",
    ]


def test_without_a_note_a_retry_is_silent() -> None:
    agent = build_agent(_args(), Model(id="m", api="x", provider="lab"))
    on_retry = agent.stream_options.on_retry
    assert on_retry is not None
    on_retry(RetryNotice(attempt=1, max_attempts=2, delay_ms=0, error_message="x"))


@pytest.mark.parametrize(
    ("reasoning", "session_level", "level"),
    [(None, None, "off"), ("high", None, "high"), (None, "low", "low"), ("high", "low", "high")],
)
def test_the_reasoning_level_is_the_option_then_the_session_then_off(
    reasoning: str | None, session_level: str | None, level: str
) -> None:
    model = Model(id="m", api="x", provider="lab", reasoning=True)
    agent = build_agent(_args(reasoning=reasoning), model, thinking_level=session_level)
    assert agent.thinking_level == level
