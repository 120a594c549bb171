"""Request helpers both OpenAI wire APIs share (``_shared_request``), rule by rule.

``reasoning_effort``: ``None`` for a model without reasoning; ``provider_options
["reasoning_effort"]`` as given (a non-string is a ``ConfigurationError``); else the unified
level clamped to the model (``"off"`` is ``None``). ``prompt_cache_key``: the session id cut
to 64 code points (pi-ai 1.6), ``None`` without one.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.models import model_maker
from pi_sdk_openai._shared_request import prompt_cache_key, reasoning_effort

import pi_sdk

model = model_maker({"id": "o4-mini", "api": "openai-responses", "provider": "openai"})


@pytest.mark.parametrize(
    ("reasoning", "options", "effort"),
    [
        (False, {"reasoning": "high"}, None),
        (False, {"provider_options": {"reasoning_effort": "low"}}, None),
        (True, {}, None),
        (True, {"reasoning": "off"}, None),
        (True, {"reasoning": "medium"}, "medium"),
        (True, {"reasoning": "max"}, "high"),
        (
            True,
            {"reasoning": "low", "provider_options": {"reasoning_effort": "minimal"}},
            "minimal",
        ),
        (True, {"provider_options": {"reasoning_effort": ""}}, ""),
        (True, {"reasoning": "high", "provider_options": {"reasoning_effort": None}}, "high"),
    ],
)
def test_the_effort_to_request(reasoning: bool, options: dict[str, Any], effort: str | None):
    assert reasoning_effort(model(reasoning=reasoning), pi_sdk.StreamOptions(**options)) == effort


@pytest.mark.parametrize("bad", [1, True, ["high"], {"level": "high"}])
def test_an_explicit_effort_that_is_not_a_string_is_refused(bad: object) -> None:
    options = pi_sdk.StreamOptions(provider_options={"reasoning_effort": bad})
    with pytest.raises(pi_sdk.ConfigurationError, match="reasoning_effort must be a string") as e:
        reasoning_effort(model(reasoning=True), options)
    assert repr(bad) in str(e.value)


@pytest.mark.parametrize(
    ("session_id", "key"),
    [
        (None, None),
        ("", ""),
        ("s-1", "s-1"),
        ("x" * 64, "x" * 64),
        ("x" * 64 + "y", "x" * 64),
        ("é" * 70, "é" * 64),
    ],
)
def test_the_prompt_cache_key_is_the_session_id_cut_to_64(
    session_id: str | None, key: str | None
) -> None:
    assert prompt_cache_key(session_id) == key


def test_off_set_on_the_options_after_they_were_made_is_no_effort() -> None:
    # StreamOptions' fields are plain attributes: a caller may set the level read from a
    # settings file afterwards, "off" included (equal to the literal, not the same object).
    options = pi_sdk.StreamOptions()
    options.reasoning = json.loads('"off"')
    assert reasoning_effort(model(reasoning=True), options) is None
