"""An MCP server for pi-sdk-mcp's edge cases, written with the ``mcp`` SDK's own server API.

``python mcp_edge_server.py``: stdio. ``python mcp_edge_server.py http|sse``: streamable HTTP
or HTTP+SSE on a free loopback port, printed as the first line of stdout. ``EDGE_LOG`` names a
file where the server notes what it saw (``started slow-1``, ``cancelled slow-1``), so a test
can tell that the server received a cancellation.
"""

from __future__ import annotations

import base64
import os
import socket
import sys
from typing import Annotated

import anyio
from mcp.server.mcpserver import Context, Image, MCPServer, Resolve, Sample
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CreateMessageResult,
    EmbeddedResource,
    ResourceLink,
    SamplingMessage,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)
from pydantic import BaseModel

server = MCPServer("edge", version="1.0")
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def note(line: str) -> None:
    path = os.environ.get("EDGE_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(line + "\n")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def header(name: str, ctx: Context) -> str:
    """The value of the HTTP request header ``name`` ("-" when absent or not HTTP)."""
    return (ctx.headers or {}).get(name.lower(), "-")


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def wipe(path: str) -> str:
    """Pretend to delete a file (a destructive tool)."""
    return f"wiped {path}"


@server.tool()
async def slow(seconds: float, tag: str, ctx: Context) -> str:
    """Work for a while, reporting progress every 50 ms."""
    note(f"started {tag}")
    steps = max(1, int(seconds * 20))
    try:
        for step in range(steps):
            await ctx.report_progress(step + 1, steps, f"{tag} step {step + 1}")
            await anyio.sleep(0.05)
    except BaseException:
        note(f"cancelled {tag}")
        raise
    note(f"finished {tag}")
    return f"{tag} done"


@server.tool()
def crash() -> str:
    """Exit the server process in the middle of the call."""
    print("edge server: crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool called ``name`` and announce the change."""

    def added(text: str) -> str:
        return f"{name}: {text}"

    server.add_tool(added, name=name, description=f"A tool added at run time ({name}).")
    await announce(ctx)
    return f"added {name}"


@server.tool()
async def shrink(name: str, ctx: Context) -> str:
    """Remove the tool called ``name`` and announce the change."""
    server.remove_tool(name)
    await announce(ctx)
    return f"removed {name}"


async def announce(ctx: Context) -> None:
    await ctx.notify_tools_changed()  # 2026-07-28: subscriptions/listen streams
    if ctx.protocol_version is not None and ctx.protocol_version < "2026":
        await ctx.session.send_tool_list_changed()  # 2025-era sessions


class Weather(BaseModel):
    city: str
    celsius: float


@server.tool()
def weather(city: str) -> Weather:
    """Structured output: the weather in a city."""
    return Weather(city=city, celsius=21.5)


@server.tool(structured_output=False)
def weather_json_only(city: str) -> dict[str, object]:
    """Unstructured: a dict returned as JSON text only."""
    return {"city": city, "celsius": 21.5}


@server.tool()
def picture() -> Image:
    """A one-pixel PNG."""
    return Image(data=PNG, format="png")


@server.tool(structured_output=False)
def media() -> list[object]:
    """One block of every other kind: audio, embedded resources, a resource link."""
    return [
        AudioContent(type="audio", data=base64.b64encode(b"RIFF" + bytes(60)).decode(),
                     mime_type="audio/wav"),
        EmbeddedResource(type="resource", resource=TextResourceContents(
            uri="file:///notes.txt", mime_type="text/plain", text="remember the milk")),
        EmbeddedResource(type="resource", resource=BlobResourceContents(
            uri="file:///pixel.png", mime_type="image/png", blob=base64.b64encode(PNG).decode())),
        EmbeddedResource(type="resource", resource=BlobResourceContents(
            uri="file:///data.bin", mime_type="application/octet-stream",
            blob=base64.b64encode(bytes(10)).decode())),
        ResourceLink(type="resource_link", name="report", uri="file:///report.pdf",
                     mime_type="application/pdf", description="the full report"),
    ]  # fmt: skip


@server.tool()
def fail(reason: str) -> str:
    """Fail with ``reason`` (an ``isError`` result)."""
    raise ToolError(reason)


def ask_model(text: str) -> Sample:
    message = SamplingMessage(
        role="user", content=TextContent(type="text", text=f"Summarize: {text}")
    )
    return Sample([message], max_tokens=64, system_prompt="Answer in five words.")


@server.tool()
async def summarize(text: str, answer: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
    """Summarize with the client's model (sampling)."""
    content = answer.content
    return f"summary: {content.text if isinstance(content, TextContent) else '?'}"


def serve_http(kind: str) -> None:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(sock.getsockname()[1], flush=True)
    app = server.streamable_http_app() if kind == "http" else server.sse_app()
    uvicorn_server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    anyio.run(lambda: uvicorn_server.serve(sockets=[sock]))


if __name__ == "__main__":
    if len(sys.argv) > 1:
        serve_http(sys.argv[1])
    else:
        server.run()
