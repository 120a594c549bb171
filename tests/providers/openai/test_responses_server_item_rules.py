"""One finished Responses server-tool item -> its blocks (``responses._server_tools``), by kind.

The call: ``id``, a name (the item type without ``_call``; an MCP call's own tool name) and
the item's input fields that are set (an MCP call's JSON ``arguments`` parsed, kept as text
when they are not JSON), the whole item as ``raw``. Then its outcome: a finished image
generation's image (``image/<output_format>``, PNG by default), else a result when the item
has an output, an error, or a ``failed`` / ``incomplete`` status.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai.responses._server_tools import server_blocks

from pi_sdk import ImageContent, ServerToolCall, ServerToolResult

SOURCES = [{"type": "url", "url": "https://e.x"}]


@pytest.mark.parametrize(
    ("item", "name", "arguments"),
    [
        ({"type": "web_search_call", "id": "ws_1", "status": "completed",
          "action": {"type": "search", "query": "q", "sources": SOURCES}},
         "web_search", {"action": {"type": "search", "query": "q", "sources": SOURCES}}),
        ({"type": "file_search_call", "id": "fs_1", "queries": ["a"], "results": None},
         "file_search", {"queries": ["a"]}),
        ({"type": "code_interpreter_call", "id": "ci_1", "code": "1+1", "container_id": "cntr",
          "outputs": None}, "code_interpreter", {"code": "1+1", "container_id": "cntr"}),
        ({"type": "code_interpreter_call", "id": "ci_2", "code": None, "container_id": "cntr"},
         "code_interpreter", {"container_id": "cntr"}),
        ({"type": "image_generation_call", "id": "ig_1", "status": "generating"},
         "image_generation", {}),
        ({"type": "mcp_call", "id": "mcp_1", "server_label": "docs", "name": "search",
          "arguments": '{"q": "x"}'},
         "search", {"server_label": "docs", "name": "search", "arguments": {"q": "x"}}),
        ({"type": "mcp_call", "id": "mcp_2", "server_label": "docs", "name": "search",
          "arguments": "{not json"},
         "search", {"server_label": "docs", "name": "search", "arguments": "{not json"}),
        ({"type": "mcp_call", "id": "mcp_3", "server_label": "docs", "arguments": {"q": 1}},
         "", {"server_label": "docs", "arguments": {"q": 1}}),
        ({"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "docs", "name": "ignored"},
         "mcp_list_tools", {"server_label": "docs"}),
        ({"type": "shell_call", "id": "sh_1", "action": {"commands": ["ls"]}}, "shell", {}),
        ({"type": "web_search_call"}, "web_search", {}),
    ],
)  # fmt: skip
def test_the_call_of_each_kind(item: dict[str, Any], name: str, arguments: dict[str, Any]):
    call = server_blocks(item)[0]
    assert call == ServerToolCall(id=item.get("id", ""), name=name, arguments=arguments, raw=item)
    assert call.raw is not item  # a copy: the block does not share the decoder's dict


@pytest.mark.parametrize(
    ("item", "content", "error"),
    [
        ({"type": "web_search_call", "id": "x", "status": "completed",
          "action": {"type": "search", "sources": SOURCES}}, SOURCES, None),
        ({"type": "web_search_call", "id": "x", "status": "failed",
          "action": {"type": "search", "query": "q"}}, None, "failed"),
        ({"type": "file_search_call", "id": "x", "results": [{"file_id": "f"}]},
         [{"file_id": "f"}], None),
        ({"type": "file_search_call", "id": "x", "status": "incomplete"}, None, "incomplete"),
        ({"type": "code_interpreter_call", "id": "x", "outputs": []}, [], None),
        ({"type": "code_interpreter_call", "id": "x", "outputs": [{"type": "logs", "logs": "2"}]},
         [{"type": "logs", "logs": "2"}], None),
        ({"type": "mcp_call", "id": "x", "name": "n", "output": "done"}, "done", None),
        ({"type": "mcp_call", "id": "x", "name": "n", "output": None, "error": "denied"},
         None, "denied"),
        ({"type": "mcp_call", "id": "x", "name": "n", "error": "denied", "status": "failed"},
         None, "denied"),
        ({"type": "mcp_list_tools", "id": "x", "tools": [{"name": "t"}]}, [{"name": "t"}], None),
        ({"type": "image_generation_call", "id": "x", "status": "failed", "result": "aGk="},
         "aGk=", "failed"),
        ({"type": "image_generation_call", "id": "x", "status": "completed", "result": ""},
         "", None),
    ],
)  # fmt: skip
def test_the_outcome_of_each_kind(item: dict[str, Any], content: Any, error: str | None):
    blocks = server_blocks(item)
    assert blocks[1:] == [
        ServerToolResult(tool_call_id="x", kind=item["type"], content=content, error=error)
    ]


@pytest.mark.parametrize(
    "item",
    [
        {"type": "web_search_call", "id": "x", "status": "completed"},
        {"type": "web_search_call", "id": "x", "status": "completed", "action": "search"},
        {"type": "web_search_call", "id": "x", "action": {"type": "search", "query": "q"}},
        {"type": "file_search_call", "id": "x", "status": "completed", "results": None},
        {"type": "image_generation_call", "id": "x", "status": "generating"},
        {"type": "mcp_call", "id": "x", "name": "n", "error": ""},
        {"type": "shell_call", "id": "x", "output": "ignored"},
    ],
)
def test_an_item_without_an_outcome_is_only_the_call(item: dict[str, Any]) -> None:
    assert len(server_blocks(item)) == 1


@pytest.mark.parametrize(
    ("fields", "mime"),
    [
        ({}, "image/png"),
        ({"output_format": None}, "image/png"),
        ({"output_format": "webp"}, "image/webp"),
        ({"output_format": "jpeg", "status": "completed"}, "image/jpeg"),
    ],
)
def test_a_generated_image_is_an_image_block(fields: dict[str, Any], mime: str) -> None:
    item = {"type": "image_generation_call", "id": "ig", "result": "aGk=", **fields}
    call, image = server_blocks(item)
    assert isinstance(call, ServerToolCall) and call.raw == item
    assert image == ImageContent(data="aGk=", mime_type=mime)
