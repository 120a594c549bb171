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


# --- the model, its base URL and the tools, rule by rule ---------------------------------------


@pytest.mark.parametrize(
    ("provider", "variable"),
    [
        ("openai", "OPENAI_BASE_URL"),
        ("amazon-bedrock", "AMAZON_BEDROCK_BASE_URL"),
        ("google.vertex 2", "GOOGLE_VERTEX_2_BASE_URL"),
        ("a--b", "A_B_BASE_URL"),  # a run of others is one _
    ],
)
def test_the_base_url_variable_is_the_provider_upper_cased_with_underscores(
    provider: str, variable: str
) -> None:
    from pi_sdk._cli.setup import base_url_variable

    assert base_url_variable(provider) == variable


@pytest.mark.parametrize(
    ("option", "default", "env", "spec"),
    [
        ("a/1", "b/2", "c/3", "a/1"),
        (None, "b/2", "c/3", "b/2"),
        (None, None, "c/3", "c/3"),
        ("", "", "c/3", "c/3"),
    ],
)
def test_the_model_is_the_option_then_the_session_then_the_environment(
    monkeypatch: pytest.MonkeyPatch, option: str | None, default: str | None, env: str, spec: str
) -> None:
    from pi_sdk._cli.setup import model_spec

    monkeypatch.setenv("PI_SDK_MODEL", env)
    assert model_spec(argparse.Namespace(model=option), default) == spec


@pytest.mark.parametrize("env", [None, ""])
def test_no_model_anywhere_is_a_usage_error(monkeypatch: pytest.MonkeyPatch, env: str | None):
    from pi_sdk._cli.setup import model_spec

    if env is None:
        monkeypatch.delenv("PI_SDK_MODEL", raising=False)
    else:
        monkeypatch.setenv("PI_SDK_MODEL", env)
    with pytest.raises(UsageError) as raised:
        model_spec(argparse.Namespace(model=None))
    assert str(raised.value) == "no model: pass -m PROVIDER/ID (or set PI_SDK_MODEL)"


@pytest.mark.parametrize(
    ("given", "env", "url"),
    [
        ("http://given.test/v1/", "http://env.test", "http://given.test/v1"),
        (None, "http://env.test/v1/", "http://env.test/v1"),
        ("", "http://env.test", "http://env.test"),
        (None, None, "https://catalog.test/v1"),
        (None, "", "https://catalog.test/v1"),
    ],
)
def test_the_base_url_is_the_option_then_the_variable_then_the_catalogs(
    monkeypatch: pytest.MonkeyPatch, given: str | None, env: str | None, url: str
) -> None:
    from pi_sdk._cli.setup import with_base_url

    if env is None:
        monkeypatch.delenv("LAB_X_BASE_URL", raising=False)
    else:
        monkeypatch.setenv("LAB_X_BASE_URL", env)
    model = Model(id="m", api="x", provider="lab-x", base_url="https://catalog.test/v1")
    assert with_base_url(model, given).base_url == url
    assert model.base_url == "https://catalog.test/v1"  # the catalog's model is not changed


@pytest.mark.parametrize("spec", ["anthropic", "anthropic/", "/claude", ""])
def test_a_model_spec_needs_a_provider_and_an_id(spec: str) -> None:
    from pi_sdk._cli.setup import resolve_model

    with pytest.raises(UsageError) as raised:
        resolve_model(spec)
    assert str(raised.value) == (
        f"a model is PROVIDER/ID, e.g. anthropic/claude-sonnet-4-5; got {spec!r}"
    )


def test_the_first_slash_separates_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_sdk._cli.setup import resolve_model

    monkeypatch.delenv("OPENROUTER_BASE_URL", raising=False)
    model = resolve_model("openrouter/anthropic/claude-sonnet-4.5", "http://mine.test/")
    assert (model.provider, model.id) == ("openrouter", "anthropic/claude-sonnet-4.5")
    assert model.base_url == "http://mine.test"


def _tools_module(tmp_path: Path, text: str) -> str:
    path = tmp_path / "my_tools.py"
    path.write_text(text, "utf-8")
    return str(path)


TOOLS = '''
import pi_sdk

def weather(city: str) -> str:
    """The weather in city."""
    return city

def clock() -> str:
    """The time."""
    return "noon"

made = pi_sdk.tool(weather)
as_list = [weather, clock]
as_tuple = (clock,)
broken = [weather, 3]
'''


@pytest.mark.parametrize(
    ("attribute", "names"),
    [
        ("weather", ["weather"]),
        ("made", ["weather"]),  # an AgentTool as it is
        ("as_list", ["weather", "clock"]),
        ("as_tuple", ["clock"]),
    ],
)
def test_a_tools_attribute_is_a_tool_a_function_or_a_list_of_them(
    tmp_path: Path, attribute: str, names: list[str]
) -> None:
    module = _tools_module(tmp_path, TOOLS)
    tools = load_tools([f"{module}:{attribute}"])
    assert [t.name for t in tools] == names
    assert tools[0].description in ("The weather in city.", "The time.")


def test_an_agent_tool_is_offered_as_it_is(tmp_path: Path) -> None:
    import sys

    module = _tools_module(tmp_path, TOOLS)
    [made] = load_tools([f"{module}:made"])
    assert made is sys.modules["_pi_sdk_cli_tools_my_tools"].made


def test_a_list_with_something_else_names_it(tmp_path: Path) -> None:
    module = _tools_module(tmp_path, TOOLS)
    with pytest.raises(UsageError) as raised:
        load_tools([f"{module}:broken"])
    assert str(raised.value) == f"--tools {module}:broken: int is not a tool or a function"


def test_a_tools_file_that_raises_is_one_line_naming_the_error(tmp_path: Path) -> None:
    module = _tools_module(tmp_path, "raise RuntimeError('no network here')\n")
    with pytest.raises(UsageError) as raised:
        load_tools([f"{module}:weather"])
    assert str(raised.value) == (
        f"--tools {module}:weather: cannot import {module}: no network here"
    )


@pytest.mark.parametrize("spec", [":weather", "my_tools:", "weather"])
def test_a_tools_option_needs_a_module_and_an_attribute(spec: str) -> None:
    with pytest.raises(UsageError) as raised:
        load_tools([spec])
    assert str(raised.value) == (f"--tools takes MODULE:ATTR, e.g. my_tools:weather; got {spec!r}")


def test_the_agent_gets_the_system_prompt_the_tools_and_the_abort_grace(tmp_path: Path) -> None:
    module = _tools_module(tmp_path, TOOLS)
    args = _args(system="Be brief.", tools=[f"{module}:as_list"])
    model = Model(id="m", api="x", provider="lab")
    agent = build_agent(args, model)
    assert agent.system_prompt == "Be brief."
    assert [t.name for t in agent.tools] == ["weather", "clock"]
    assert agent.tool_abort_grace_ms == 500  # a tool gets half a second to stop after Ctrl-C
    assert agent.model is model
