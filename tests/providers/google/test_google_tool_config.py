"""Gemini ``toolConfig`` for every tool choice, with plain and with strict tools.

``toolConfig.functionCallingConfig.mode`` (Gemini API reference, ``FunctionCallingConfig``):
``AUTO``, ``ANY`` (optionally ``allowedFunctionNames``), ``NONE``, ``VALIDATED``. The neutral
``StreamOptions.tool_choice`` maps ``auto``/``none``/``required`` to ``AUTO``/``NONE``/``ANY``
and a named tool to ``ANY`` restricted to it; ``provider_options["tool_choice"]`` (any case)
wins over it. A strict tool on Gemini 3 asks for ``VALIDATED`` unless the choice is ``NONE``
or ``ANY`` (pi-ai 1.6 ``resolveGoogleFunctionCallingMode``); nothing set and nothing strict
sends no ``toolConfig``; a request without tools sends none either.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_google._shared_request import build_request

import pi_sdk
from pi_sdk import ConfigurationError, Context, StreamOptions, Tool, UserMessage

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
MODEL = pi_sdk.get_model("google", "gemini-3-flash-preview")


def _tool(strict: bool) -> Tool:
    sampling = {"type": "json_schema", "strict": "require"} if strict else None
    return Tool(name="find", description="Find.", parameters=SCHEMA, constrained_sampling=sampling)


def _config(strict: bool, tools: bool = True, **options: Any) -> Any:
    context = Context(
        messages=[UserMessage(content="go")], tools=[_tool(strict)] if tools else None
    )
    body = build_request(MODEL, context, StreamOptions(api_key="k", **options))
    return body.get("toolConfig")


def _mode(mode: str) -> dict[str, Any]:
    return {"functionCallingConfig": {"mode": mode}}


@pytest.mark.parametrize(
    ("choice", "plain", "strict"),
    [
        (None, None, _mode("VALIDATED")),
        ("auto", _mode("AUTO"), _mode("VALIDATED")),
        ("none", _mode("NONE"), _mode("NONE")),
        ("required", _mode("ANY"), _mode("ANY")),
    ],
)
def test_the_neutral_tool_choice(choice: Any, plain: Any, strict: Any) -> None:
    assert _config(False, tool_choice=choice) == plain
    assert _config(True, tool_choice=choice) == strict


@pytest.mark.parametrize("strict", [False, True])
def test_a_named_tool_is_any_restricted_to_it(strict: bool) -> None:
    named = {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["find"]}}
    assert _config(strict, tool_choice={"name": "find"}) == named


@pytest.mark.parametrize(
    ("choice", "plain", "strict"),
    [
        ("auto", "AUTO", "VALIDATED"),
        ("AUTO", "AUTO", "VALIDATED"),
        ("none", "NONE", "NONE"),
        ("None", "NONE", "NONE"),
        ("any", "ANY", "ANY"),
        ("required", "ANY", "ANY"),
    ],
)
def test_the_provider_option_in_any_case_wins(choice: str, plain: str, strict: str) -> None:
    for neutral in (None, "required", "none"):
        given = {"provider_options": {"tool_choice": choice}, "tool_choice": neutral}
        assert _config(False, **given) == _mode(plain)
        assert _config(True, **given) == _mode(strict)


@pytest.mark.parametrize("choice", ["always", "", "validated", 3])
def test_an_unknown_provider_choice_is_refused(choice: Any) -> None:
    with pytest.raises(ConfigurationError) as refused:
        _config(False, provider_options={"tool_choice": choice})
    assert str(refused.value) == (
        f"provider_options['tool_choice'] must be one of 'auto', 'none', 'any'; got {choice!r}"
    )


def test_no_tools_no_tool_config() -> None:
    assert _config(False, tools=False, tool_choice="required") is None
    assert _config(False, tools=False, provider_options={"tool_choice": "any"}) is None
