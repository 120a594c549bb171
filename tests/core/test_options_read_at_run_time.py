"""Settings whose strings are built at run time (read from a file, a form, an environment) act
as the literals do.

A value read from JSON or joined from parts equals its literal but is not the same object:
these rows give each compared setting such a value, so a rule that tests identity (``is``)
where it means equality fails here, which the literals in the other tests cannot show.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.schemas import WEATHER
from _support.strings import built

import pi_sdk
from pi_sdk import StreamOptions, Tool
from pi_sdk._wire.constrained_sampling import JsonSchemaSampling
from pi_sdk.errors import ConfigurationError


@pytest.mark.parametrize(
    ("choice", "resolved"),
    [("auto", ("auto", "")), ("none", ("none", "")), ("required", ("required", ""))],
)
def test_a_tool_choice_built_at_run_time_resolves_like_its_literal(
    choice: str, resolved: tuple[str, str]
) -> None:
    assert StreamOptions(tool_choice=built(choice)).resolved_tool_choice() == resolved
    from_json = json.loads(json.dumps({"tool_choice": choice}))["tool_choice"]
    assert StreamOptions(tool_choice=from_json).resolved_tool_choice() == resolved


def test_reasoning_off_built_at_run_time_is_no_reasoning() -> None:
    assert StreamOptions(reasoning=built("off")).reasoning is None
    assert StreamOptions(reasoning=built("high")).reasoning == "high"


MODEL = pi_sdk.Model(id="m-1", api="openai-responses", provider="acme")
UNSTRICTABLE = {"type": "object", "x": 1}


def _tool(strict: str, parameters: dict[str, Any]) -> Tool:
    """A tool whose ``strict`` setting is assigned after validation, as the caller built it.

    A validated setting is pydantic's own literal object; one assigned later is the caller's.
    """
    tool = Tool(
        name="t",
        parameters=parameters,
        constrained_sampling={"type": "json_schema", "strict": "prefer"},
    )
    sampling = tool.constrained_sampling
    assert isinstance(sampling, JsonSchemaSampling)
    sampling.strict = built(strict)  # pyright: ignore[reportAttributeAccessIssue]
    return tool


def test_prefer_assigned_at_run_time_is_strict_only_where_it_can_be() -> None:
    tool = _tool("prefer", WEATHER)
    assert tool.prefers_strict() is True
    assert tool.strict_mode(MODEL, True) is True
    assert tool.strict_mode(MODEL, True, prefer=False) is None  # sent again non-strict
    assert tool.strict_mode(MODEL, False) is None
    assert _tool("prefer", UNSTRICTABLE).strict_mode(MODEL, True, lambda k, _: k == "x") is None


def test_require_assigned_at_run_time_is_strict_or_refused() -> None:
    tool = _tool("require", WEATHER)
    assert tool.prefers_strict() is False
    assert tool.strict_mode(MODEL, True, prefer=False) is True
    with pytest.raises(ConfigurationError) as cannot:
        tool.strict_mode(MODEL, False)
    assert str(cannot.value) == (
        "tool 't' on acme/m-1 (openai-responses) requires JSON-schema constrained sampling, but"
        " the model does not support strict tools"
    )
    with pytest.raises(ConfigurationError):
        _tool("require", UNSTRICTABLE).strict_mode(MODEL, True, lambda k, _: k == "x")


def test_a_model_type_chat_read_at_run_time_is_a_chat_model() -> None:
    model = pi_sdk.Model(id="m-1", api="openai-responses", provider="acme", type=built("chat"))
    assert model.type == "chat"
    with pytest.raises(ValueError, match="'embedding' model is not a chat model"):
        pi_sdk.Model(id="m-1", api="openai-responses", provider="acme", type=built("embedding"))


def test_plugins_active_read_at_run_time_is_the_active_manager() -> None:
    from pi_sdk._models.hooks import manager_of
    from pi_sdk.plugins import get_plugin_manager

    assert manager_of(built("active")) is get_plugin_manager()  # pyright: ignore[reportArgumentType]
    assert manager_of(None) is None


def test_a_provider_named_at_run_time_lists_its_models_and_suggests_its_ids() -> None:
    from pi_sdk.errors import ModelNotFoundError

    acme = [pi_sdk.Model(id=f"m-{n}", api="x-api", provider="acme") for n in (1, 2)]
    other = pi_sdk.Model(id="m-1", api="x-api", provider="zeta")
    models = pi_sdk.Models(
        [pi_sdk.Provider(id="acme", models=acme), pi_sdk.Provider(id="zeta", models=[other])],
        plugins=None,
    )
    named = built("acme")  # as `pi-sdk models acme` or a settings file gives it
    assert models.models(named) == acme
    with pytest.raises(ModelNotFoundError) as unknown:
        models.get_model(named, "m-3")
    assert str(unknown.value) == "unknown model acme/m-3; did you mean acme/m-2, acme/m-1?"
