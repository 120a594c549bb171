"""Every Anthropic Messages compat flag: pi-ai 1.6's default, true, false, null and a bad value.

pi-ai 1.6 ``getAnthropicCompat`` (tests/node's ``dist/api/anthropic-messages.js``) reads each
flag as ``model.compat?.<flag> ?? <default>``; :data:`PI_DEFAULTS` is that table for a plain
host (not OpenRouter, not ``api.anthropic.com``), checked against pi-ai's own text where
tests/node has it installed. The flags without effect yet in pi-sdk are read all the same: the
reader is what a user's catalog entry meets first. A value that is not true or false is a
configuration error naming the flag and the value; ``null`` means "not set"; keys after a
``null`` are still read.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from _support import pi16_source
from pi_sdk_anthropic.messages._compat import (
    adaptive,
    cache_control_of,
    can_turn_off,
    effort_of,
    resolve_anthropic_compat,
)

from pi_sdk import ConfigurationError, Model, StreamOptions

PI_DEFAULTS: dict[str, tuple[str, bool]] = {  # pi's key: (pi-sdk field, pi-ai 1.6 default)
    "supportsEagerToolInputStreaming": ("supports_eager_tool_input_streaming", True),
    "supportsLongCacheRetention": ("supports_long_cache_retention", True),
    "sendSessionAffinityHeaders": ("send_session_affinity_headers", False),
    "supportsCacheControlOnTools": ("supports_cache_control_on_tools", True),
    "supportsTemperature": ("supports_temperature", True),
    "allowEmptySignature": ("allow_empty_signature", False),
    "supportsStrictTools": ("supports_strict_tools", False),
    "supportsMidConvoEffort": ("supports_mid_convo_effort", False),
    "supportsMidConvoSystemMessages": ("supports_mid_convo_system_messages", False),
    "supportsMidConvoToolChanges": ("supports_mid_convo_tool_changes", False),
    "supportsMessageThreads": ("supports_message_threads", False),
}
"""Boolean flags with a fixed default (``forceAdaptiveThinking`` has none: pi-sdk's id rule)."""


def _model(compat: dict[str, Any] | None = None, **fields: Any) -> Model:
    values: dict[str, Any] = {
        "id": "claude-x",
        "api": "anthropic-messages",
        "provider": "my-gateway",
        "base_url": "https://gateway.test",
    }
    return Model(**(values | fields), compat=compat)


@pytest.mark.skipif(not pi16_source.installed("anthropic-messages"), reason=pi16_source.SKIP_REASON)
def test_the_default_table_is_pi_ais() -> None:
    found = pi16_source.compat_defaults("anthropic-messages", "getAnthropicCompat")
    fixed = {key: default for key, (_, default) in PI_DEFAULTS.items() if key in found}
    assert fixed == {key: found[key] == "true" for key in fixed}
    assert len(fixed) >= 8 and set(found) <= set(PI_DEFAULTS)


def test_a_model_without_compat_gets_every_default() -> None:
    compat = resolve_anthropic_compat(_model())
    assert {key: getattr(compat, name) for key, (name, _) in PI_DEFAULTS.items()} == {
        key: default for key, (_, default) in PI_DEFAULTS.items()
    }
    assert compat.force_adaptive_thinking is None
    assert compat.session_affinity_format is None
    assert compat.allowed_fallback_models == ()


@pytest.mark.parametrize("key", list(PI_DEFAULTS))
@pytest.mark.parametrize("value", [True, False])
def test_each_flag_sets_its_own_field_and_no_other(key: str, value: bool) -> None:
    name = PI_DEFAULTS[key][0]
    plain = dataclasses.asdict(resolve_anthropic_compat(_model()))
    compat = dataclasses.asdict(resolve_anthropic_compat(_model({key: value})))
    assert compat == plain | {name: value}


@pytest.mark.parametrize("value", [True, False])
def test_force_adaptive_thinking_overrides_the_id_rule_both_ways(value: bool) -> None:
    for model_id in ("claude-opus-4-6", "claude-3-haiku"):
        model = _model({"forceAdaptiveThinking": value}, id=model_id)
        compat = resolve_anthropic_compat(model)
        assert compat.force_adaptive_thinking is value
        assert adaptive(model, compat) is value


def test_without_force_adaptive_thinking_the_id_rule_decides() -> None:
    for model_id, expected in (("claude-opus-4-6", True), ("claude-3-haiku", False)):
        model = _model(id=model_id)
        assert adaptive(model, resolve_anthropic_compat(model)) is expected


@pytest.mark.parametrize("key", [*PI_DEFAULTS, "forceAdaptiveThinking"])
@pytest.mark.parametrize("value", ["yes", 1, 0, "false", [True]])
def test_a_value_that_is_not_true_or_false_is_refused(key: str, value: Any) -> None:
    with pytest.raises(ConfigurationError) as refused:
        resolve_anthropic_compat(_model({key: value}))
    assert str(refused.value) == f"model.compat: {key} must be true or false, got {value!r}"


def test_null_means_not_set_and_later_keys_are_still_read() -> None:
    compat = resolve_anthropic_compat(
        _model(
            {
                "supportsTemperature": None,
                "sessionAffinityFormat": None,
                "allowedFallbackModels": None,
                "supportsStrictTools": True,
                "sendSessionAffinityHeaders": True,
            }
        )
    )
    assert compat.supports_temperature is True
    assert compat.session_affinity_format is None
    assert compat.supports_strict_tools is True
    assert compat.send_session_affinity_headers is True


def test_session_affinity_format_takes_only_openrouter() -> None:
    compat = resolve_anthropic_compat(_model({"sessionAffinityFormat": "openrouter"}))
    assert compat.session_affinity_format == "openrouter"
    assert compat.send_session_affinity_headers is False  # the format alone sends nothing
    for bad in ("openai", "", 1):
        with pytest.raises(ConfigurationError) as refused:
            resolve_anthropic_compat(_model({"sessionAffinityFormat": bad}))
        assert str(refused.value) == (
            f"model.compat: sessionAffinityFormat must be 'openrouter', got {bad!r}"
        )


def test_unknown_keys_are_left_alone() -> None:
    compat = resolve_anthropic_compat(_model({"supportsWarpDrive": "yes", "thinkingFormat": 3}))
    assert compat == resolve_anthropic_compat(_model())


@pytest.mark.parametrize(
    ("retention", "long_ok", "expected"),
    [
        ("none", True, None),
        ("none", False, None),
        ("short", True, {"type": "ephemeral"}),
        ("short", False, {"type": "ephemeral"}),
        ("long", True, {"type": "ephemeral", "ttl": "1h"}),
        ("long", False, {"type": "ephemeral"}),
    ],
)
def test_cache_control_by_retention_and_long_retention_support(
    retention: Any, long_ok: bool, expected: dict[str, Any] | None
) -> None:
    compat = resolve_anthropic_compat(_model({"supportsLongCacheRetention": long_ok}))
    assert cache_control_of(StreamOptions(cache_retention=retention), compat) == expected


@pytest.mark.parametrize(
    ("model_id", "level_map", "level", "effort"),
    [
        ("claude-sonnet-4-6", None, "minimal", "low"),
        ("claude-sonnet-4-6", None, "low", "low"),
        ("claude-sonnet-4-6", None, "medium", "medium"),
        ("claude-sonnet-4-6", None, "high", "high"),
        ("claude-sonnet-4-6", None, "xhigh", "high"),
        ("claude-opus-4-6", None, "xhigh", "max"),  # pi-sdk's rule for a hand-made Opus
        ("claude-opus-4-6", {}, "xhigh", "high"),  # a level map given: no Opus rule
        ("claude-opus-4-6", None, "high", "high"),
        ("claude-sonnet-4-6", {"xhigh": "max", "low": None}, "xhigh", "max"),
        ("claude-sonnet-4-6", {"xhigh": "max", "low": None}, "low", "low"),  # null: not a name
        ("claude-opus-4-6", {"xhigh": "xhigh"}, "xhigh", "xhigh"),
    ],
)
def test_effort_of_each_level(
    model_id: str, level_map: dict[str, Any] | None, level: str, effort: str
) -> None:
    assert effort_of(_model(id=model_id, thinking_level_map=level_map), level) == effort


@pytest.mark.parametrize(
    ("level_map", "expected"),
    [
        (None, True),
        ({}, True),
        ({"high": "high"}, True),
        ({"off": "none"}, True),
        ({"off": None}, False),
    ],
)
def test_thinking_can_be_turned_off_unless_the_map_says_off_null(
    level_map: dict[str, Any] | None, expected: bool
) -> None:
    assert can_turn_off(_model(thinking_level_map=level_map)) is expected
