"""Session headers and compat keys read from a file send what their literals send.

A caller's cache retention, a models.json's ``sessionAffinityFormat`` and its compat keys
arrive parsed from JSON or a form: equal to the literals the other tests write, other string
objects (``_support.strings.built``). The session-affinity headers of both OpenAI wire APIs,
Mistral's ``x-affinity`` and the Chat Completions compat keys are checked here with both, so a
rule that compares by identity (``is``) where it means equality shows.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from _support.strings import built
from pi_sdk_mistral._client import build_headers
from pi_sdk_openai import completions, responses
from pi_sdk_openai.completions._compat import resolve_compat
from pi_sdk_openai.responses._compat import resolve_responses_compat

from pi_sdk import Model, StreamOptions

SESSION = "s-1"


def _model(api: str, compat: dict[str, Any] | None) -> Model:
    return Model(
        id="m-1",
        api=api,
        provider="vendor",
        base_url="https://vendor.test/v1",
        compat=compat,
    )


def _completions(fmt: str, retention: str) -> dict[str, str]:
    compat = {"sendSessionAffinityHeaders": True, "sessionAffinityFormat": fmt}
    flags = resolve_compat(_model("openai-completions", compat))
    options = StreamOptions(session_id=SESSION, cache_retention=retention)  # type: ignore[arg-type]
    return completions.session_affinity_headers(flags, options)


def _responses(fmt: str, retention: str) -> dict[str, str]:
    flags = resolve_responses_compat(_model("openai-responses", {"sessionAffinityFormat": fmt}))
    options = StreamOptions(session_id=SESSION, cache_retention=retention)  # type: ignore[arg-type]
    return responses.session_affinity_headers(flags, options)


ALL_THREE = {"session_id": SESSION, "x-client-request-id": SESSION, "x-session-affinity": SESSION}
AFFINITY: list[tuple[Callable[[str, str], dict[str, str]], str, str, dict[str, str]]] = [
    (_completions, "openrouter", "short", {"x-session-id": SESSION}),
    (_completions, "openrouter", "long", {"x-session-id": SESSION}),
    (_completions, "openrouter", "none", {}),
    (_completions, "openai", "short", ALL_THREE),
    (_completions, "openai", "none", {}),
    (
        _completions,
        "openai-nosession",
        "long",
        {"x-client-request-id": SESSION, "x-session-affinity": SESSION},
    ),
    (_completions, "openai-nosession", "none", {}),
    (_responses, "openrouter", "short", {"x-session-id": SESSION}),
    (_responses, "openrouter", "none", {}),
    (_responses, "openai", "long", {"session-id": SESSION, "x-client-request-id": SESSION}),
    (_responses, "openai", "none", {}),
    (_responses, "openai-nosession", "short", {"x-client-request-id": SESSION}),
    (_responses, "openai-nosession", "none", {}),
]


@pytest.mark.parametrize("read", [False, True], ids=["literal", "read-from-json"])
@pytest.mark.parametrize(
    ("headers", "fmt", "retention", "expected"),
    AFFINITY,
    ids=[f"{h.__name__[1:]}-{f}-{r}" for h, f, r, _ in AFFINITY],
)
def test_session_affinity_headers_follow_the_format_and_retention_however_they_were_read(
    headers: Callable[[str, str], dict[str, str]],
    fmt: str,
    retention: str,
    expected: dict[str, str],
    read: bool,
) -> None:
    if read:
        fmt, retention = built(fmt), built(retention)
    assert headers(fmt, retention) == expected


MISTRAL = Model(
    id="mistral-medium-latest",
    api="mistral-conversations",
    provider="mistral",
    base_url="https://api.mistral.ai",
)


@pytest.mark.parametrize(
    ("retention", "caller", "expected"),
    [
        ("none", {}, {}),
        ("short", {}, {"x-affinity": SESSION}),
        ("long", {}, {"x-affinity": SESSION}),
        # A caller's other headers, whatever their names sort as, leave x-affinity to the session.
        ("short", {"Accept": "a"}, {"Accept": "a", "x-affinity": SESSION}),
        ("short", {"zz-trace": "z"}, {"zz-trace": "z", "x-affinity": SESSION}),
        ("short", {"X-Affinity": "mine"}, {"X-Affinity": "mine"}),
        ("none", {"Accept": "a"}, {"Accept": "a"}),
    ],
)
@pytest.mark.parametrize("read", [False, True], ids=["literal", "read-from-json"])
def test_mistral_x_affinity_follows_the_retention_however_it_was_read(
    retention: str, caller: dict[str, str], expected: dict[str, str], read: bool
) -> None:
    if read:
        retention = built(retention)
    options = StreamOptions(session_id=SESSION, cache_retention=retention, headers=caller)  # type: ignore[arg-type]
    assert build_headers(MISTRAL, options) == expected


def test_a_snake_case_compat_key_read_from_a_models_file_is_checked_as_its_field() -> None:
    # models.json keys are parsed strings; snake_case names are accepted beside pi-ai's camelCase.
    compat = json.loads('{"vllm_priority": 5, "max_tokens_field": "max_tokens"}')
    flags = resolve_compat(_model("openai-completions", compat))
    assert (flags.vllm_priority, flags.max_tokens_field) == (5, "max_tokens")
