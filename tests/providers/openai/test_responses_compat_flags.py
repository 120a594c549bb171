"""Every Responses compat flag: pi-ai 1.6's default, each value, null and a bad value.

pi-ai 1.6 ``getCompat`` (tests/node's ``dist/api/openai-responses.js``) reads each flag as
``model.compat?.<flag> ?? <default>``; :data:`PI_DEFAULTS` is that table, checked against
pi-ai's own text where tests/node has it installed. Azure's module defaults ``supportsStrictMode``
to true (``azure-openai-responses.js``). The flags without effect yet in pi-sdk (tool search,
mid-conversation effort, additional tools) are read all the same. A boolean flag that is not
true or false, or a string flag outside its choices, is a configuration error naming the flag
and the value; ``null`` means "not set"; keys after a ``null`` are still read.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from _support import pi16_source
from pi_sdk_openai.responses._compat import resolve_responses_compat

from pi_sdk import ConfigurationError, Model

PI_DEFAULTS: dict[str, tuple[str, bool]] = {  # pi's key: (pi-sdk field, pi-ai 1.6 default)
    "supportsDeveloperRole": ("supports_developer_role", True),
    "supportsMidConvoSystemMessages": ("supports_mid_convo_system_messages", False),
    "supportsLongCacheRetention": ("supports_long_cache_retention", True),
    "supportsStrictMode": ("supports_strict_mode", False),
    "supportsOpenAIGrammarTools": ("supports_openai_grammar_tools", False),
    "supportsAdditionalTools": ("supports_additional_tools", False),
    "supportsToolSearch": ("supports_tool_search", False),
    "supportsExplicitPromptCacheMode": ("supports_explicit_prompt_cache_mode", False),
    "supportsMaxOutputTokens": ("supports_max_output_tokens", True),
    "supportsMidConvoEffort": ("supports_mid_convo_effort", False),
}
CHOICES: dict[str, tuple[str, tuple[str, ...], str]] = {  # key: (field, choices, default)
    "sessionAffinityFormat": (
        "session_affinity_format",
        ("openai", "openai-nosession", "openrouter"),
        "openai",
    ),
    "promptCacheKeyMode": ("prompt_cache_key_mode", ("auto", "enabled", "disabled"), "auto"),
}


def _model(compat: dict[str, Any] | None = None, **fields: Any) -> Model:
    values: dict[str, Any] = {
        "id": "gpt-x",
        "api": "openai-responses",
        "provider": "my-gateway",
        "base_url": "https://gateway.test/v1",
    }
    return Model(**(values | fields), compat=compat)


@pytest.mark.skipif(not pi16_source.installed("openai-responses"), reason=pi16_source.SKIP_REASON)
def test_the_default_table_is_pi_ais() -> None:
    found = pi16_source.compat_defaults("openai-responses", "getCompat")
    expected = {key: str(default).lower() for key, (_, default) in PI_DEFAULTS.items()}
    expected |= {key: f'"{default}"' for key, (_, _, default) in CHOICES.items() if key in found}
    assert found == expected


@pytest.mark.parametrize("azure", [False, True])
def test_a_model_without_compat_gets_every_default(azure: bool) -> None:
    compat = resolve_responses_compat(_model(), azure=azure)
    expected = {name: default for name, default in PI_DEFAULTS.values()}
    expected["supports_strict_mode"] = azure  # pi-ai's Azure module: strict on
    expected |= {name: default for name, _, default in CHOICES.values()}
    assert dataclasses.asdict(compat) == expected


@pytest.mark.parametrize("key", list(PI_DEFAULTS))
@pytest.mark.parametrize("value", [True, False])
@pytest.mark.parametrize("azure", [False, True])
def test_each_flag_sets_its_own_field_and_no_other(key: str, value: bool, azure: bool) -> None:
    name = PI_DEFAULTS[key][0]
    plain = dataclasses.asdict(resolve_responses_compat(_model(), azure=azure))
    compat = dataclasses.asdict(resolve_responses_compat(_model({key: value}), azure=azure))
    assert compat == plain | {name: value}


@pytest.mark.parametrize("key", list(CHOICES))
def test_each_choice_is_taken_and_others_refused(key: str) -> None:
    name, choices, _ = CHOICES[key]
    plain = dataclasses.asdict(resolve_responses_compat(_model()))
    for choice in choices:
        compat = dataclasses.asdict(resolve_responses_compat(_model({key: choice})))
        assert compat == plain | {name: choice}
    for bad in ("OpenAI", "", True, 1):
        with pytest.raises(ConfigurationError) as refused:
            resolve_responses_compat(_model({key: bad}))
        assert str(refused.value) == (
            f"model.compat: {key} must be one of {', '.join(choices)}, got {bad!r}"
        )


@pytest.mark.parametrize("key", list(PI_DEFAULTS))
@pytest.mark.parametrize("value", ["yes", 1, 0, "false", [True]])
def test_a_value_that_is_not_true_or_false_is_refused(key: str, value: Any) -> None:
    with pytest.raises(ConfigurationError) as refused:
        resolve_responses_compat(_model({key: value}))
    assert str(refused.value) == f"model.compat: {key} must be true or false, got {value!r}"


def test_null_means_not_set_and_later_keys_are_still_read() -> None:
    compat = resolve_responses_compat(
        _model(
            {
                "supportsDeveloperRole": None,
                "sessionAffinityFormat": None,
                "unknownFlag": "left alone",
                "supportsToolSearch": True,
                "promptCacheKeyMode": "disabled",
            }
        ),
        azure=True,
    )
    assert compat.supports_developer_role is True
    assert compat.session_affinity_format == "openai"
    assert compat.supports_strict_mode is True
    assert compat.supports_tool_search is True
    assert compat.prompt_cache_key_mode == "disabled"


@pytest.mark.parametrize(
    ("provider", "base_url", "expected"),
    [
        ("openrouter", "https://gateway.test/v1", "openrouter"),
        ("my-gateway", "https://openrouter.ai/api/v1", "openrouter"),
        ("openai", "https://api.openai.com/v1", "openai"),
        ("openrouterx", "https://gateway.test/v1", "openai"),
    ],
)
def test_session_affinity_default_by_provider_or_host(
    provider: str, base_url: str, expected: str
) -> None:
    model = _model(provider=provider, base_url=base_url)
    assert resolve_responses_compat(model).session_affinity_format == expected
    explicit = _model({"sessionAffinityFormat": "openai-nosession"}, provider=provider)
    assert resolve_responses_compat(explicit).session_affinity_format == "openai-nosession"
