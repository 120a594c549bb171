"""``StreamOptions`` and ``RetryNotice`` (``pi_sdk/options.py``) rule by rule: the defaults, the
checked settings (``tool_choice``, ``reasoning``, ``output``), the resolved values a provider
sends (cache retention, thinking budget) and the masked repr."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from pi_sdk import Context, Model, StreamOptions, UserMessage
from pi_sdk.errors import ConfigurationError
from pi_sdk.options import Output, RetryNotice

HI = Context(messages=[UserMessage(content="hi")])


def test_the_defaults_a_call_gets() -> None:
    options = StreamOptions()
    assert (options.max_retries, options.max_retry_delay_ms) == (2, 60_000)
    assert (options.timeout_ms, options.idle_timeout_ms) == (600_000, 300_000)
    assert options.foreign_reasoning == "drop"
    assert options.provider_options == {} and options.provider_options is not (
        StreamOptions().provider_options
    )  # one dict per options object
    unset = (
        "temperature",
        "max_tokens",
        "signal",
        "api_key",
        "reasoning",
        "tool_choice",
        "output",
        "fallback",
        "server_tools",
        "client",
        "on_retry",
        "on_response",
        "on_payload",
    )
    assert all(getattr(options, name) is None for name in unset)


def test_options_are_keyword_only_and_a_notice_is_frozen() -> None:
    with pytest.raises(TypeError):
        StreamOptions(0.5)  # type: ignore[misc]
    notice = RetryNotice(attempt=1, max_attempts=3, delay_ms=500.0, error_message="503")
    assert notice.status is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        notice.attempt = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    ("choice", "resolved"),
    [
        (None, None),
        ("auto", ("auto", "")),
        ("none", ("none", "")),
        ("required", ("required", "")),
        ({"name": "search"}, ("tool", "search")),
    ],
)
def test_tool_choice_resolves_to_a_kind_and_a_name(choice: Any, resolved: Any) -> None:
    assert StreamOptions(tool_choice=choice).resolved_tool_choice() == resolved


@pytest.mark.parametrize("choice", ["any", "Auto", {"name": ""}, {"name": 3}, {"tool": "x"}, 1])
def test_any_other_tool_choice_is_a_configuration_error(choice: Any) -> None:
    with pytest.raises(ConfigurationError, match=r"tool_choice must be 'auto', 'none'") as raised:
        StreamOptions(tool_choice=choice).resolved_tool_choice()
    assert f"got {choice!r}" in str(raised.value)


@pytest.mark.parametrize(
    ("given", "env", "resolved"),
    [
        (None, None, "short"),
        (None, "long", "long"),
        (None, "LONG", "short"),  # only the exact value
        (None, "short", "short"),
        ("none", "long", "none"),  # set on the call: the environment is not read
        ("short", "long", "short"),
        ("long", None, "long"),
    ],
)
def test_cache_retention_defaults_from_the_environment(
    given: Any, env: str | None, resolved: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if env is None:
        monkeypatch.delenv("PI_CACHE_RETENTION", raising=False)
    else:
        monkeypatch.setenv("PI_CACHE_RETENTION", env)
    assert StreamOptions(cache_retention=given).resolved_cache_retention() == resolved


@pytest.mark.parametrize(
    ("reasoning", "budgets", "expected"),
    [
        ("minimal", None, (8_000 + 1_024, 1_024)),
        ("low", None, (8_000 + 2_048, 2_048)),
        ("medium", None, (8_000 + 8_192, 8_192)),
        ("high", None, (8_000 + 16_384, 16_384)),
        ("xhigh", None, (8_000 + 16_384, 16_384)),  # as high
        (None, None, (8_000 + 16_384, 16_384)),  # no level given: high
        ("low", {"low": 3_000}, (8_000 + 3_000, 3_000)),  # the caller's table wins
        ("medium", {"low": 3_000}, (8_000 + 8_192, 8_192)),  # ... for the levels it names
        ("xhigh", {"high": 5_000}, (8_000 + 5_000, 5_000)),
    ],
)
def test_the_thinking_budget_of_each_level_is_added_to_the_cap(
    reasoning: Any, budgets: dict[str, int] | None, expected: tuple[int, int]
) -> None:
    model = Model(id="m", api="a", provider="p", context_window=1_000_000, max_tokens=64_000)
    options = StreamOptions(reasoning=reasoning, thinking_budgets=budgets, max_tokens=8_000)
    assert options.resolved_thinking_budget(model, HI) == expected


@pytest.mark.parametrize(
    ("model_max", "window", "expected"),
    [
        (10_000, 1_000_000, (10_000, 10_000 - 1_024)),  # the model's cap bounds the sum
        (2_000, 1_000_000, (2_000, 2_000 - 1_024)),  # the answer keeps 1,024 tokens
        (1_000, 1_000_000, (1_000, 0)),  # no room for thinking at all
        (64_000, 20_000, (20_000 - 4_096 - 1, 20_000 - 4_096 - 1 - 1_024)),  # the window
    ],
)
def test_the_thinking_budget_leaves_room_for_the_answer(
    model_max: int, window: int, expected: tuple[int, int]
) -> None:
    model = Model(id="m", api="a", provider="p", context_window=window, max_tokens=model_max)
    options = StreamOptions(reasoning="high", max_tokens=model_max)
    assert options.resolved_thinking_budget(model, HI) == expected


def test_max_tokens_given_wins_over_the_models() -> None:
    model = Model(id="m", api="a", provider="p", context_window=0, max_tokens=4_096)
    assert StreamOptions().resolved_max_tokens(model, HI) == 4_096
    assert StreamOptions(max_tokens=123).resolved_max_tokens(model, HI) == 123
    assert StreamOptions(max_tokens=0).resolved_max_tokens(model, HI) == 1  # at least 1


@pytest.mark.parametrize(("given", "kept"), [("off", None), (None, None), ("low", "low")])
def test_reasoning_off_is_no_reasoning(given: Any, kept: Any) -> None:
    assert StreamOptions(reasoning=given).reasoning == kept


def test_an_unknown_reasoning_level_names_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="minimal") as raised:
        StreamOptions(reasoning="extreme")  # type: ignore[arg-type]
    assert "'extreme'" in str(raised.value)


def test_output_is_stored_as_an_output_and_resolved_as_is() -> None:
    options = StreamOptions(output={"type": "object"})
    assert isinstance(options.output, Output) and options.output.schema == {"type": "object"}
    assert options.resolved_output() is options.output
    spec = Output({"type": "array"})
    assert StreamOptions(output=spec).output is spec
    late = StreamOptions()
    late.output = {"type": "string"}  # set after construction: resolved on read
    resolved = late.resolved_output()
    assert isinstance(resolved, Output) and resolved.schema == {"type": "string"}


def test_the_repr_shows_what_is_set_and_masks_credentials() -> None:
    options = StreamOptions(
        api_key="sk-secret-123",
        headers={"x-api-key": "sk-other-456", "x-trace": "t"},
        temperature=0.2,
        provider_options={"k": 1},
    )
    text = repr(options)
    assert "sk-secret" not in text and "sk-other" not in text and "'t'" not in text
    assert "api_key='***'" in text
    assert "headers={'x-api-key': '***', 'x-trace': '***'}" in text
    assert "temperature=0.2" in text and "provider_options={'k': 1}" in text
    bare = repr(StreamOptions(api_key=None))
    assert "api_key" not in bare and "provider_options" not in bare and "temperature" not in bare
    assert bare.startswith("StreamOptions(max_retries=2, ")


DEFINITIONS = {"web_search": {"type": "web_search"}, "code_execution": {"type": "code"}}
MODEL = Model(id="gpt", api="openai-responses", provider="openai")


def test_server_tools_become_the_apis_definitions_in_order() -> None:
    own = {"type": "image_generation", "quality": "low"}
    options = StreamOptions(server_tools=["code_execution", own, "web_search"])
    tools = options.resolved_server_tools(MODEL, DEFINITIONS)
    assert tools == [{"type": "code"}, own, {"type": "web_search"}]
    assert tools[0] is not DEFINITIONS["code_execution"] and tools[1] is not own  # copies
    assert StreamOptions().resolved_server_tools(MODEL, DEFINITIONS) == []


@pytest.mark.parametrize(
    ("entry", "definitions", "text"),
    [
        ("search", DEFINITIONS, "unknown server tool 'search': use one of web_search, web_fetch,"),
        (
            "web_fetch",
            DEFINITIONS,
            "openai/gpt (openai-responses) has no web_fetch server tool"
            " (it offers: web_search, code_execution)",
        ),
        ("web_fetch", {}, "has no web_fetch server tool (it offers: none)"),
        (7, DEFINITIONS, "a server tool is a name or a dict, not 7"),
    ],
)
def test_a_server_tool_the_api_lacks_is_a_configuration_error(
    entry: Any, definitions: dict[str, Any], text: str
) -> None:
    options = StreamOptions(server_tools=[entry])
    with pytest.raises(ConfigurationError, match=re.escape(text)):
        options.resolved_server_tools(MODEL, definitions)
