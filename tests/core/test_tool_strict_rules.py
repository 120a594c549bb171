"""How a tool goes strict (``pi_sdk/_wire/tool.py``, pi-ai 1.6
``resolveJsonSchemaStrictSampling``), setting by setting, and the refusal that sends its
``prefer`` tools again non-strict."""

from __future__ import annotations

from typing import Any

import pytest
from _support.schemas import WEATHER

import pi_sdk
from pi_sdk import Tool
from pi_sdk._wire.constrained_sampling import STRICT_TOOL_LIMIT_ERRORS

MODEL = pi_sdk.Model(id="m-1", api="openai-responses", provider="acme")
PREFER = {"type": "json_schema", "strict": "prefer"}
REQUIRE = {"type": "json_schema", "strict": "require"}


@pytest.mark.parametrize(
    ("sampling", "supported", "prefer", "strict"),
    [
        (PREFER, True, True, True),
        (PREFER, True, False, None),  # sent again after a refusal: prefer goes non-strict
        (PREFER, False, True, None),
        (REQUIRE, True, True, True),
        (REQUIRE, True, False, True),  # require is unaffected by the resend
        (None, True, True, None),
        (False, True, True, None),
    ],
)
def test_strict_mode_by_setting_support_and_resend(
    sampling: Any, supported: bool, prefer: bool, strict: bool | None
) -> None:
    tool = Tool(name="t", parameters=WEATHER, constrained_sampling=sampling)
    assert tool.strict_mode(MODEL, supported, prefer=prefer) is strict


@pytest.mark.parametrize(
    ("sampling", "prefers"),
    [(PREFER, True), (REQUIRE, False), (None, False), (False, False)],
)
def test_prefers_strict_only_for_prefer(sampling: Any, prefers: bool) -> None:
    tool = Tool(name="t", parameters=WEATHER, constrained_sampling=sampling)
    assert tool.prefers_strict() is prefers


def test_the_refusals_that_send_prefer_tools_again() -> None:
    for text in STRICT_TOOL_LIMIT_ERRORS:
        assert Tool.is_strict_limit_error(f"400 Bad Request: invalid_request_error: {text}.")
    assert not Tool.is_strict_limit_error("400 Bad Request: invalid_request_error: bad schema")
    assert not Tool.is_strict_limit_error("")


def test_a_tool_answers_the_refusal_question_too() -> None:
    """A static method: a provider holding a tool asks it, with the text as the only argument."""
    tool = Tool(name="t", parameters=WEATHER, constrained_sampling=PREFER)
    for text in STRICT_TOOL_LIMIT_ERRORS:
        assert tool.is_strict_limit_error(text) is True
    assert tool.is_strict_limit_error("bad schema") is False
