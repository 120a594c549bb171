"""The agent layer's public records are keyword-only and refuse unknown attributes (issue 34).

:class:`pi_sdk.agent.RetryCallbacks` and :class:`pi_sdk.agent.AgentToolCallOutcome` are built
with keywords only (fields may be added or reordered), and a misspelled attribute is an
``AttributeError``, not a callback that silently never runs.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support.agent import isolated_plugins  # noqa: F401 - autouse fixture

from pi_sdk import AgentToolResult, ToolCall
from pi_sdk.agent import AgentToolCallOutcome, RetryCallbacks


def _noop(*args: Any) -> None:
    return None


RECORDS: list[tuple[type, dict[str, Any], str]] = [
    (
        RetryCallbacks,
        {"on_retry_scheduled": _noop, "on_retry_attempt_start": _noop, "on_retry_finished": _noop},
        "on_retry_schedule",
    ),
    (
        AgentToolCallOutcome,
        {
            "tool_call": ToolCall(id="c1", name="t", arguments={}),
            "result": AgentToolResult.text("ok"),
            "is_error": False,
            "duration_ms": 3,
        },
        "durationMs",
    ),
]


@pytest.mark.parametrize(("kind", "fields", "typo"), RECORDS, ids=["retry-callbacks", "outcome"])
def test_a_record_is_built_by_keyword_and_refuses_a_misspelled_attribute(
    kind: type, fields: dict[str, Any], typo: str
) -> None:
    with pytest.raises(TypeError, match="positional argument"):
        kind(*fields.values())
    record = kind(**fields)
    assert {name: getattr(record, name) for name in fields} == fields
    with pytest.raises(AttributeError):
        setattr(record, typo, _noop)
    assert not hasattr(record, typo)
