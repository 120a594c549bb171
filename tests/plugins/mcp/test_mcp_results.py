"""MCP results, progress and names as the model sees them (pure functions, no server)."""

from __future__ import annotations

import base64

import mcp.types as mcp
import pytest
from pi_sdk_mcp import McpServerError, assign_names, effective_annotations, valid_name
from pi_sdk_mcp._results import progress_result, to_tool_result

from pi_sdk import ImageContent, TextContent


def result(*content: mcp.ContentBlock, structured: object = None, error: bool = False):
    return mcp.CallToolResult(content=list(content), structured_content=structured, is_error=error)


def texts(value) -> list[str]:  # noqa: ANN001
    return [b.text if isinstance(b, TextContent) else b.type for b in value.content]


def test_structured_content_is_shown_with_its_non_ascii_text_as_written():
    data = {"city": "Zürich", "sky": "☀"}
    seen = to_tool_result(result(structured=data), "w", "weather")
    assert texts(seen) == ['{"city": "Zürich", "sky": "☀"}']


def test_structured_content_is_shown_as_json_unless_a_text_block_already_holds_it():
    data = {"city": "Oslo", "celsius": 21.5}
    only = to_tool_result(result(structured=data), "w", "weather")
    assert texts(only) == ['{"city": "Oslo", "celsius": 21.5}']
    assert only.details == {"server": "w", "tool": "weather", "structured_content": data}
    same = to_tool_result(result(mcp.TextContent(text='{\n "celsius": 21.5, "city": "Oslo"}'),
                                 structured=data), "w", "weather")  # fmt: skip
    assert len(same.content) == 1
    wrapped = to_tool_result(
        result(mcp.TextContent(text="42"), structured={"result": 42}), "m", "t"
    )
    assert texts(wrapped) == ["42"]  # the mcp SDK's {"result": value} of a plain return value
    other = to_tool_result(
        result(mcp.TextContent(text="Weather fetched."), structured=data), "w", "x"
    )
    assert texts(other) == ["Weather fetched.", '{"city": "Oslo", "celsius": 21.5}']


def test_every_block_kind_maps_to_text_or_an_image():
    png = base64.b64encode(b"\x89PNG....").decode()
    mapped = to_tool_result(
        result(
            mcp.ImageContent(data=png, mime_type="image/png"),
            mcp.AudioContent(data=base64.b64encode(bytes(2048)).decode(), mime_type="audio/wav"),
            mcp.EmbeddedResource(resource=mcp.TextResourceContents(uri="file:///a.txt", text="A")),
            mcp.EmbeddedResource(
                resource=mcp.BlobResourceContents(
                    uri="file:///p.png", mime_type="image/png", blob=png
                )
            ),
            mcp.ResourceLink(name="spec", uri="https://example.com/spec"),
        ),  # fmt: skip
        "s",
        "t",
    )
    assert mapped.content[0] == ImageContent(data=png, mime_type="image/png")
    assert texts(mapped)[1:] == [
        "[audio: audio/wav, 2,048 bytes, not shown]",
        "[resource file:///a.txt]\nA",
        "image",
        "[resource link] spec: https://example.com/spec",
    ]
    assert [u["type"] for u in mapped.details["unseen"]] == ["audio", "resource_link"]


def test_an_error_result_raises_its_text_naming_no_more_than_the_server_said():
    with pytest.raises(McpServerError) as caught:
        to_tool_result(result(mcp.TextContent(text="no such repo"), error=True), "git", "git_log")
    assert str(caught.value) == "no such repo" and caught.value.server == "git"
    with pytest.raises(McpServerError, match="MCP tool 'x' of server 's' reported an error"):
        to_tool_result(result(error=True), "s", "x")


def test_progress_reads_as_a_short_line_with_the_numbers_in_details():
    assert texts(progress_result(3, 10, "cloning")) == ["cloning (3/10)"]
    assert texts(progress_result(0.5, None, None)) == ["0.5"]
    assert progress_result(1, 2, "x").details == {"progress": 1, "total": 2, "message": "x"}


def test_annotations_fill_in_the_spec_defaults():
    assert dict(effective_annotations(None)) == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }
    read_only = effective_annotations(mcp.ToolAnnotations(read_only_hint=True))
    assert read_only["destructiveHint"] is False and read_only["idempotentHint"] is True
    additive = effective_annotations(mcp.ToolAnnotations(destructive_hint=False))
    assert additive["destructiveHint"] is False and additive["readOnlyHint"] is False


def test_names_keep_the_first_server_and_prefix_later_collisions():
    tools = [("git", None, "status"), ("hg", None, "status"), ("hg", None, "log"),
             ("web", "web_", "fetch"), ("svn", None, "status")]  # fmt: skip
    assert assign_names(tools, taken={"log"}) == [
        "status",
        "hg__status",
        "hg__log",
        "web_fetch",
        "svn__status",
    ]
    assert assign_names([("a", None, "x"), ("a", None, "x")], taken={"a__x"}) == ["x", "a__x_2"]


def test_names_are_made_valid_for_every_vendor():
    assert valid_name("files.read/v2") == "files_read_v2"
    long = valid_name("t" * 80)
    assert len(long) == 64 and long != valid_name("t" * 81)
    assert valid_name("") == "_"


def test_a_long_name_keeps_55_characters_and_the_hash_of_the_whole_name():
    import hashlib

    assert valid_name("t" * 64) == "t" * 64
    name = "files.read/" + "t" * 60
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    assert valid_name(name) == ("files_read_" + "t" * 60)[:55] + "_" + digest


def test_collisions_count_up_and_a_long_name_makes_room_for_its_counter():
    tools = [("a", None, "x"), ("a", None, "x"), ("a", None, "x"), ("a", None, "x")]
    assert assign_names(tools, taken={"a__x"}) == ["x", "a__x_2", "a__x_3", "a__x_4"]
    server = "s" * 70
    first, second, third = assign_names([(server, None, "x")] * 3)
    assert (first, len(second), len(third)) == ("x", 64, 64)
    assert third == second[:62] + "_2" and third != second


def test_details_name_only_what_the_result_has():
    plain = to_tool_result(result(mcp.TextContent(text="ok")), "s", "t")
    assert plain.details == {"server": "s", "tool": "t"}
    empty = to_tool_result(result(structured={}), "s", "t")
    assert texts(empty) == ["{}"] and empty.details["structured_content"] == {}


@pytest.mark.parametrize(
    ("blocks", "structured", "shown"),
    [
        # The JSON is in a text block after an image or prose: it is not shown twice.
        ((mcp.ImageContent(data="eA==", mime_type="image/png"), mcp.TextContent(text='{"a": 1}')),
         {"a": 1}, ["image", '{"a": 1}']),
        ((mcp.TextContent(text="Done."), mcp.TextContent(text="[1, 2]")), [1, 2],
         ["Done.", "[1, 2]"]),
        # A one-field object's value alone stands for it; one of two fields does not.
        ((mcp.TextContent(text="1"),), {"a": 1, "b": 2}, ["1", '{"a": 1, "b": 2}']),
        ((mcp.TextContent(text="Zürich"),), {"city": "Zürich"}, ["Zürich"]),
        ((mcp.TextContent(text="3"),), 3, ["3"]),
    ],
)  # fmt: skip
def test_structured_content_is_shown_once(blocks, structured, shown):  # noqa: ANN001
    assert texts(to_tool_result(result(*blocks, structured=structured), "s", "t")) == shown


def test_resources_and_links_say_their_type_and_size():
    mapped = to_tool_result(
        result(
            mcp.EmbeddedResource(
                resource=mcp.TextResourceContents(
                    uri="file:///a.txt", mime_type="text/plain", text="A"
                )
            ),
            mcp.EmbeddedResource(resource=mcp.BlobResourceContents(uri="file:///b", blob="AAAA")),
            mcp.AudioContent(data="not base64!", mime_type="audio/ogg"),
            mcp.ResourceLink(
                name="spec", uri="https://e.com/s", mime_type="text/html", description="The spec"
            ),
        ),
        "s",
        "t",
    )
    assert texts(mapped) == [
        "[resource file:///a.txt (text/plain)]\nA",
        "[resource file:///b: application/octet-stream, 3 bytes, not shown]",
        "[audio: audio/ogg, 11 bytes, not shown]",
        "[resource link] spec: https://e.com/s (text/html) - The spec",
    ]
    # What the model did not see, as MCP JSON: camelCase names, no unset (null) fields.
    assert mapped.details["unseen"] == [
        {"type": "resource", "resource": {"uri": "file:///b", "blob": "AAAA"}},
        {"type": "audio", "data": "not base64!", "mimeType": "audio/ogg"},
        {
            "type": "resource_link",
            "name": "spec",
            "uri": "https://e.com/s",
            "mimeType": "text/html",
            "description": "The spec",
        },
    ]


def test_an_error_result_joins_its_blocks_and_names_images():
    failed = result(
        mcp.TextContent(text="first"),
        mcp.TextContent(text=""),
        mcp.ImageContent(data="eA==", mime_type="image/png"),
        mcp.TextContent(text="last"),
        error=True,
    )
    with pytest.raises(McpServerError) as caught:
        to_tool_result(failed, "s", "t")
    assert str(caught.value) == "first\n[image]\nlast"


def test_progress_with_a_zero_total_or_no_message():
    assert texts(progress_result(0, 0, "")) == ["0/0"]
    assert texts(progress_result(2.5, None, "copying")) == ["copying (2.5)"]


@pytest.mark.parametrize(
    ("declared", "hints"),
    [
        (
            mcp.ToolAnnotations(read_only_hint=True, destructive_hint=True),
            (True, False, True, True),
        ),
        (
            mcp.ToolAnnotations(read_only_hint=True, idempotent_hint=False),
            (True, False, False, True),
        ),
        (
            mcp.ToolAnnotations(idempotent_hint=True, open_world_hint=False),
            (False, True, True, False),
        ),
        (mcp.ToolAnnotations(destructive_hint=True), (False, True, False, True)),
        (mcp.ToolAnnotations(read_only_hint=False), (False, True, False, True)),
    ],
)
def test_declared_hints_win_and_a_read_only_tool_is_never_destructive(declared, hints):  # noqa: ANN001
    names = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
    assert dict(effective_annotations(declared)) == dict(zip(names, hints, strict=True))


async def test_an_mcp_tool_describes_itself_from_its_definition_and_calls_its_server():
    from types import SimpleNamespace

    from pi_sdk_mcp import McpTool

    calls: list[tuple[str, dict]] = []

    async def call(tool, arguments, signal, progress):  # noqa: ANN001, ANN202
        calls.append((tool, arguments))
        progress(1, 2, "half")
        return mcp.CallToolResult(content=[mcp.TextContent(text="done")])

    connection = SimpleNamespace(name="srv", call=call)
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    titled = mcp.Tool(name="find", title="Find it", input_schema=schema)
    tool = McpTool(name="srv_find", definition=titled, connection=connection, owner=None)  # type: ignore[arg-type]
    assert (tool.description, tool.label, tool.parameters) == ("Find it", "Find it", schema)
    assert repr(tool) == "McpTool(name='srv_find', server='srv')" and tool.mcp_name == "find"
    hinted = mcp.Tool(
        name="rm", description="Remove.", input_schema=schema,
        annotations=mcp.ToolAnnotations(title="Remove files", destructive_hint=True),
    )  # fmt: skip
    other = McpTool(name="rm", definition=hinted, connection=connection, owner=None)  # type: ignore[arg-type]
    assert (other.description, other.label) == ("Remove.", "Remove files")
    bare = mcp.Tool(name="ls", input_schema=schema)
    plain = McpTool(name="ls", definition=bare, connection=connection, owner=None)  # type: ignore[arg-type]
    assert (plain.description, plain.label) == ("", "ls")

    updates: list[object] = []
    result = await tool.execute("c1", {"q": "x"}, None, updates.append)  # type: ignore[arg-type]
    assert texts(result) == ["done"] and result.details == {"server": "srv", "tool": "find"}
    assert [texts(u) for u in updates] == [["half (1/2)"]]  # type: ignore[arg-type]
    await tool.execute("c2", "not a dict", None, updates.append)  # type: ignore[arg-type]
    assert calls == [("find", {"q": "x"}), ("find", {})]
