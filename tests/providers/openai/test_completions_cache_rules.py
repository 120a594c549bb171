"""Chat Completions prompt caching, rule by rule (pi-ai 1.6).

``add_prompt_cache_fields``: ``prompt_cache_key`` (the session id) per the compat's key mode
(``enabled`` whenever caching is on; ``auto`` for api.openai.com or with long retention where
supported; ``disabled`` never), never with retention ``none``; ``prompt_cache_retention:
"24h"`` with long retention where supported. ``add_cache_markers``
(``cacheControlFormat: "anthropic"``): a copy of the marker on the first system/developer
prompt, the last tool and the last user/assistant/tool message that has text (a string
becomes one text part; in a list the last text part), never an image, an empty string, or a
second message.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai.completions._cache_markers import add_cache_markers, add_prompt_cache_fields
from pi_sdk_openai.completions._compat import CompletionsCompat

from pi_sdk import Model, StreamOptions

MARK = {"type": "ephemeral"}


def _fields(
    base_url: str, mode: Any, retention: str, long_ok: bool = True, session: str | None = "s-1"
) -> tuple[dict[str, Any], bool]:
    model = Model(id="m", api="openai-completions", provider="x", base_url=base_url)
    compat = CompletionsCompat(prompt_cache_key_mode=mode, supports_long_cache_retention=long_ok)
    payload: dict[str, Any] = {}
    result = add_prompt_cache_fields(
        payload, model, compat, StreamOptions(session_id=session, cache_retention=retention)
    )
    return payload, result


OPENAI = "https://api.openai.com/v1"
OTHER = "https://llm.example.test/v1"
KEY = {"prompt_cache_key": "s-1"}
LONG = {"prompt_cache_retention": "24h"}


@pytest.mark.parametrize(
    ("base_url", "mode", "retention", "long_ok", "expected"),
    [
        (OPENAI, "auto", "short", True, KEY),
        (OTHER, "auto", "short", True, {}),
        (OTHER, "auto", "long", True, {**KEY, **LONG}),
        (OTHER, "auto", "long", False, {}),
        (OPENAI, "auto", "long", False, KEY),
        (OPENAI, "auto", "none", True, {}),
        (OTHER, "enabled", "short", True, KEY),
        (OTHER, "enabled", "none", True, {}),
        (OPENAI, "disabled", "short", True, {}),
        (OPENAI, "disabled", "long", True, LONG),
    ],
)
def test_cache_fields(
    base_url: str, mode: str, retention: str, long_ok: bool, expected: dict[str, Any]
) -> None:
    payload, long_on = _fields(base_url, mode, retention, long_ok)
    assert payload == expected
    assert long_on is ("prompt_cache_retention" in expected)


def test_no_session_no_key() -> None:
    assert _fields(OPENAI, "enabled", "long", session=None)[0] == LONG


def test_markers_on_the_prompt_the_last_tool_and_the_last_text_message() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "developer", "content": "Be brief."},
        {"role": "system", "content": "Second prompt."},
        {"role": "user", "content": "first"},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        },
        {"role": "tool", "content": ""},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:x"}}]},
    ]
    tools = [
        {"type": "function", "function": {"name": "a"}},
        {"type": "function", "function": {"name": "b"}},
    ]
    add_cache_markers(messages, tools, MARK)
    assert messages[0]["content"] == [{"type": "text", "text": "Be brief.", "cache_control": MARK}]
    assert messages[1]["content"] == "Second prompt."  # only the first prompt
    assert messages[2]["content"] == "first"
    assert messages[3]["content"] == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b", "cache_control": MARK},
    ]
    assert messages[4]["content"] == ""
    assert "cache_control" not in messages[5]["content"][0]
    assert "cache_control" not in tools[0] and tools[1]["cache_control"] == MARK
    messages[0]["content"][0]["cache_control"]["ttl"] = "1h"  # copies, not the one object
    assert MARK == {"type": "ephemeral"} and "ttl" not in tools[1]["cache_control"]


def test_a_tool_result_with_text_is_the_last_text_message() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "tool", "content": "20C"},
    ]
    add_cache_markers(messages, None, MARK)
    assert messages[0]["content"] == "q"
    assert messages[2]["content"] == [{"type": "text", "text": "20C", "cache_control": MARK}]


def test_no_prompt_no_tools_no_text_nothing_marked() -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "image_url"}]}]
    add_cache_markers(messages, [], MARK)
    assert messages == [{"role": "user", "content": [{"type": "image_url"}]}]
