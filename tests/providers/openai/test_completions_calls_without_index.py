"""Chat Completions tool-call deltas that carry no ``index`` (some OpenAI-compatible servers).

The decoder's rule (``_tool_delta``): a delta without an index continues the open call with its
id; with an id no open call has, it opens a new call; with no id, it continues the last open
call, or opens one when none is open. Each row is a stream of such deltas and the calls it
must give, on the fast path and on the general rules.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support.decoding import started
from pi_sdk_openai.completions._decode import Decoder

from pi_sdk import Model, ToolCall

MODEL = Model(id="m", api="openai-completions", provider="acme")


def _delta(call: dict[str, Any]) -> dict[str, Any]:
    # Through JSON, as a stream's chunks come: each id a string of its own, equal to the id of
    # an earlier chunk but never the same object (a rule comparing ids by identity shows).
    return json.loads(json.dumps({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}))


def _call(arguments: str, call_id: str | None = None, name: str | None = None) -> dict[str, Any]:
    function: dict[str, Any] = {"arguments": arguments}
    if name is not None:
        function["name"] = name
    return {"function": function, **({"id": call_id} if call_id is not None else {})}


ROWS = [
    pytest.param(  # the same id again: the same call
        [_call('{"a"', "c1", "f"), _call(":1}", "c1")],
        [("c1", "f", {"a": 1})],
        id="same-id-continues",
    ),
    pytest.param(  # no id: the last open call
        [_call('{"a"', "c1", "f"), _call(":1}")],
        [("c1", "f", {"a": 1})],
        id="no-id-continues-the-last",
    ),
    pytest.param(  # a new id: a new call
        [_call("{}", "c1", "f"), _call('{"b":2}', "c2", "g")],
        [("c1", "f", {}), ("c2", "g", {"b": 2})],
        id="new-id-opens-a-call",
    ),
    pytest.param(  # a new id that sorts before the open one: a new call all the same
        [_call("{}", "c2", "f"), _call('{"b":2}', "c1", "g")],
        [("c2", "f", {}), ("c1", "g", {"b": 2})],
        id="new-lower-id-opens-a-call",
    ),
    pytest.param(  # back to the first id: its call again, the second one left as it was
        [_call('{"a"', "c1", "f"), _call("{}", "c2", "g"), _call(":1}", "c1")],
        [("c1", "f", {"a": 1}), ("c2", "g", {})],
        id="an-earlier-id-continues-its-call",
    ),
    pytest.param(  # the same, the call between them with an id that sorts before the first
        [_call('{"a"', "c1", "f"), _call("{}", "c0", "g"), _call(":1}", "c1")],
        [("c1", "f", {"a": 1}), ("c0", "g", {})],
        id="an-earlier-id-continues-its-call-past-a-lower-id",
    ),
    pytest.param(  # no id and nothing open: a call of its own
        [_call('{"a":1}', name="f")],
        [("", "f", {"a": 1})],
        id="no-id-nothing-open",
    ),
]


@pytest.mark.parametrize("general", [False, True])
@pytest.mark.parametrize(("deltas", "calls"), ROWS)
def test_deltas_without_an_index_go_to_the_call_their_id_names(
    general: bool, deltas: list[dict[str, Any]], calls: list[tuple[str, str, dict[str, Any]]]
) -> None:
    decoder, builder, feed = started(Decoder, MODEL, general=general)
    for call in deltas:
        feed(_delta(call))
    feed({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    decoder.finish(saw_done=True)
    message = builder.message
    found = [b for b in message.content if isinstance(b, ToolCall)]
    assert [(c.id, c.name, c.arguments) for c in found] == calls


NOTHING_TO_ADD = [
    pytest.param({"index": 0}, id="index-only"),
    pytest.param({"index": 0, "id": "c1", "type": "function"}, id="no-function"),
    pytest.param({"index": 0, "function": {"arguments": ""}}, id="empty-arguments"),
    pytest.param({"index": 0, "function": {"arguments": 5}}, id="number-arguments"),
    pytest.param({"index": 0, "function": {"arguments": ["x"]}}, id="list-arguments"),
    pytest.param({"index": 0, "function": {"arguments": None}}, id="null-arguments"),
    pytest.param({"index": 0, "custom": None, "function": {}}, id="null-custom"),
]


@pytest.mark.parametrize("general", [False, True])
@pytest.mark.parametrize("empty", NOTHING_TO_ADD)
def test_a_call_delta_with_nothing_to_add_changes_nothing(
    general: bool, empty: dict[str, Any]
) -> None:
    """Between two argument pieces, a delta without text (no function, empty, not text) adds
    no event and no text; the call keeps its id and name."""
    decoder, builder, feed = started(Decoder, MODEL, general=general)
    feed(_delta({"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a"'}}))
    assert feed(_delta(empty)) == []
    feed(_delta({"index": 0, "function": {"arguments": ":1}"}}))
    feed({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    decoder.finish(saw_done=True)
    found = [b for b in builder.message.content if isinstance(b, ToolCall)]
    assert [(c.id, c.name, c.arguments) for c in found] == [("c1", "f", {"a": 1})]


@pytest.mark.parametrize("general", [False, True])
@pytest.mark.parametrize("second", ["c0", "c2"])
def test_a_new_id_at_an_open_index_ends_that_call_and_opens_another(
    general: bool, second: str
) -> None:
    decoder, builder, feed = started(Decoder, MODEL, general=general)
    feed(_delta({"index": 0, "id": "c1", "function": {"name": "f", "arguments": "{}"}}))
    feed(_delta({"index": 0, "id": second, "function": {"name": "g", "arguments": '{"b":2}'}}))
    feed({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    decoder.finish(saw_done=True)
    found = [b for b in builder.message.content if isinstance(b, ToolCall)]
    assert [(c.id, c.name, c.arguments) for c in found] == [
        ("c1", "f", {}),
        (second, "g", {"b": 2}),
    ]
