"""A tool's ``details`` become JSON data at the tool boundary: every transcript can be saved."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import socket
import uuid
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

import pi_sdk
from pi_sdk import AfterToolCallResult, AgentToolResult, ToolResultMessage
from pi_sdk._wire.json_data import NotJsonData, to_json_data
from pi_sdk._wire.strict_json import MAX_NESTING
from pi_sdk.testing import ScriptedProvider, ScriptedReply

WHEN = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
ID = uuid.UUID("12345678-1234-5678-1234-567812345678")


class Colour(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Row:
    at: datetime.date
    price: decimal.Decimal


RICH = {
    "when": WHEN,
    "price": decimal.Decimal("1.10"),
    "id": ID,
    "path": PurePosixPath("/tmp/x"),
    "colour": Colour.RED,
    "tags": {"b", "a"},
    "pair": (1, 2),
    "raw": b"bytes",
    "row": Row(datetime.date(2026, 1, 2), decimal.Decimal("2")),
    7: "an int key",
    "ratio": float("nan"),
    "wait": datetime.timedelta(seconds=3),
}
RICH_AS_JSON = {
    "when": "2026-01-02T03:04:05Z",
    "price": "1.10",
    "id": "12345678-1234-5678-1234-567812345678",
    "path": "/tmp/x",
    "colour": "red",
    "tags": ["a", "b"],
    "pair": [1, 2],
    "raw": "bytes",
    "row": {"at": "2026-01-02", "price": "2"},
    "7": "an int key",
    "ratio": None,
    "wait": "PT3S",
}


def test_the_rule_converts_what_pydantic_json_mode_knows():
    assert to_json_data(RICH) == RICH_AS_JSON


def test_json_data_passes_unchanged_without_a_copy():
    value = {"a": [1, 2.5, "s", None, True, {"b": []}]}
    assert to_json_data(value) is value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"rows": [1, object()]}, r"details\['rows'\]\[1\]: object is not JSON data"),
        ({"b": b"\xff"}, r"details\['b'\]: bytes is not JSON data \(not UTF-8\)"),
        ({(1, 2): "x"}, "details: a key of type tuple is not JSON"),
        ({"n": 10**5000}, r"details\['n'\]: an integer longer than Python converts"),
    ],
)
def test_what_has_no_json_form_is_refused_naming_where(value: Any, message: str):
    with pytest.raises(NotJsonData, match=message):
        to_json_data(value)


def test_nesting_past_the_session_limit_is_refused_without_recursion():
    deep: Any = 0
    for _ in range(50_000):
        deep = (deep,)  # not JSON data: the converting walk runs, not only the check
    with pytest.raises(NotJsonData, match=f"details: nested deeper than {MAX_NESTING} levels"):
        to_json_data(deep)


def _tool(details: Any) -> pi_sdk.AgentTool:
    async def run(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
        return AgentToolResult.text("done", details=details)

    return pi_sdk.AgentTool(name="lookup", description="Look up.", execute=run)


async def _run(tool: pi_sdk.AgentTool, **agent_options: Any) -> list[Any]:
    provider = ScriptedProvider([ScriptedReply.tool_call("lookup", {}), "ok"])
    agent = pi_sdk.Agent(model=provider.model, tools=[tool], **agent_options)
    await agent.prompt("go")
    return agent.messages


async def test_a_tools_details_are_stored_as_json_and_the_session_saves(tmp_path: Path):
    provider_messages = await _run(_tool(RICH))
    result = next(m for m in provider_messages if isinstance(m, ToolResultMessage))
    assert result.details == RICH_AS_JSON
    assert not result.is_error
    path = tmp_path / "s.jsonl"
    pi_sdk.save_session(path, provider_messages)  # main: "not JSON data", nothing written
    assert pi_sdk.load_session(path).messages == provider_messages


async def test_a_function_tools_return_value_is_stored_as_json(tmp_path: Path):
    @pi_sdk.tool
    def lookup() -> dict[str, Any]:
        """Look up."""
        return {"when": WHEN, "id": ID}

    messages = await _run(lookup)
    result = next(m for m in messages if isinstance(m, ToolResultMessage))
    assert result.details == {"when": "2026-01-02T03:04:05Z", "id": str(ID)}
    pi_sdk.save_session(tmp_path / "s.jsonl", messages)


async def test_details_an_after_tool_call_hook_sets_are_stored_as_json():
    def after(context: Any, signal: Any) -> AfterToolCallResult:
        return AfterToolCallResult(details={"checked": WHEN})

    messages = await _run(_tool(None), after_tool_call=after)
    result = next(m for m in messages if isinstance(m, ToolResultMessage))
    assert result.details == {"checked": "2026-01-02T03:04:05Z"}


async def test_details_with_no_json_form_make_an_error_result_that_keeps_the_output(
    tmp_path: Path,
):
    events: list[Any] = []
    with socket.socket() as handle:
        provider = ScriptedProvider([ScriptedReply.tool_call("lookup", {}), "ok"])
        agent = pi_sdk.Agent(model=provider.model, tools=[_tool({"conn": handle})])
        agent.subscribe(events.append)
        await agent.prompt("go")
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert result.is_error and result.details is None
    texts = [block.text for block in result.content]
    assert texts[0].startswith("Tool lookup ran, but its details cannot be stored:")
    assert "details['conn']: socket is not JSON data" in texts[0]
    assert texts[1] == "done"  # the tool's own output is kept for the model
    ends = [e for e in events if e.type == "tool_execution_end"]
    assert ends[0].is_error and ends[0].result.details is None  # the event says the same
    pi_sdk.save_session(tmp_path / "s.jsonl", agent.messages)
