"""One MCP server's connection: started, listed, called, watched and stopped.

The ``mcp`` SDK's ``Client`` is an async context manager built on anyio task groups, which must
be entered and left by the same task. So each server gets a *supervisor* task that enters the
client, lists the tools, then waits: for a stop, or for a tool-list change to list again. Calls
come from any task (the agent's tool tasks) and use the client the supervisor holds.

Nothing here raises at start: a server that fails to start or dies is ``state == "failed"``
with ``error`` saying why (its stderr's last lines for stdio), logged once as a WARNING on the
``pi_sdk_mcp`` logger, and its tools are gone. A call to it raises
:class:`~pi_sdk_mcp.McpServerError` naming the server.

List changes (MCP spec, "Tools: List Changed Notification"): a 2025-era server sends
``notifications/tools/list_changed`` on its own; a 2026-07-28 server sends it on a
``subscriptions/listen`` stream, which is opened when the server declares
``tools.listChanged``. Either marks the list stale and wakes the supervisor, which lists again
(within the list timeout) and reports the change.

Cancellation (MCP spec, "Utilities: Cancellation"): a call is cancelled when the agent run is
aborted, when its timeout passes, or when the task awaiting it is cancelled; the SDK then sends
``notifications/cancelled`` (stdio, SSE, 2025-era HTTP) or closes the request's HTTP stream
(2026-07-28 streamable HTTP), which is how the server learns of it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from importlib import metadata
from typing import Any, Literal, TypeAlias, cast

import anyio
import httpx2
import mcp.types as mcp
from mcp import Client
from mcp.client.subscriptions import SubscriptionLost
from mcp.shared.exceptions import MCPError

from pi_sdk import AbortSignal

from ._config import ServerConfig, StdioServer
from ._errors import McpServerError
from ._sampling import Sampler
from ._transport import StderrLog, open_transport

__all__ = ["ProgressCallback", "ServerConnection", "ServerState"]

ServerState: TypeAlias = Literal["stopped", "starting", "ready", "failed"]
"""``stopped`` (not started, or stopped), ``starting``, ``ready`` (tools listed), ``failed``
(did not start, or died; ``error`` says why)."""

ProgressCallback: TypeAlias = Callable[[float, float | None, str | None], None]
"""``on_progress(progress, total, message)`` for one call's progress notifications."""

_log = logging.getLogger("pi_sdk_mcp")
_STOP_WAIT_S = 5.0
"""How long a stop waits for the server to close (the SDK terminates, then kills, a stdio one)."""
_CANCEL_WAIT_S = 5.0
"""How long a cancelled call may take to send its cancellation and unwind."""
_MAX_PAGES = 100
"""``tools/list`` pages read at most (a server whose cursor never ends cannot hang a listing)."""
_RELISTEN_FIRST_S, _RELISTEN_LAST_S = 1.0, 30.0
"""Wait before listening again after a listen stream ended: 1 s, doubling up to 30 s."""


def _client_info() -> mcp.Implementation:
    try:
        version = metadata.version("pi-sdk-mcp")
    except metadata.PackageNotFoundError:  # a source tree on sys.path
        version = "0"
    return mcp.Implementation(name="pi-sdk-mcp", version=version)


class ServerConnection:
    """The live side of one configured server.

    Attributes:
        config: The server's configuration.
        state: See :data:`ServerState`.
        error: Why the server failed (secrets redacted), or ``None``.
        tools: The MCP tool definitions of the last ``tools/list`` (empty unless ready).
        protocol_version: The negotiated MCP protocol version, once connected.
    """

    def __init__(
        self,
        config: ServerConfig,
        *,
        sampler: Sampler | None,
        on_change: Callable[[ServerConnection], None],
    ) -> None:
        self.config = config
        self.state: ServerState = "stopped"
        self.error: str | None = None
        self.tools: list[mcp.Tool] = []
        self.protocol_version: str | None = None
        self._sampler = sampler
        self._on_change = on_change
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stderr: StderrLog | None = None
        self._ready = asyncio.Event()
        self._wake = asyncio.Event()
        self._settled = asyncio.Event()
        self._stale = False
        self._stopping = False

    @property
    def name(self) -> str:
        """The server's configured name."""
        return self.config.name

    def __repr__(self) -> str:
        return f"ServerConnection({self.name!r}, state={self.state!r})"

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the server and list its tools, within the start timeout; never raises."""
        if self._task is not None:
            return
        self.state, self.error = "starting", None
        self._stderr = StderrLog() if isinstance(self.config, StdioServer) else None
        self._task = asyncio.create_task(self._supervise(), name=f"pi-sdk-mcp {self.name}")
        limit = self.config.timeouts.startup_ms / 1000
        ready = asyncio.ensure_future(self._ready.wait())
        done, _ = await asyncio.wait(
            {ready, self._task}, timeout=limit, return_when=asyncio.FIRST_COMPLETED
        )
        ready.cancel()
        if not done:
            self._fail(f"did not start within {limit:g} s")
            self._stopping = True
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=_STOP_WAIT_S)

    async def stop(self) -> None:
        """Close the connection (a stdio server is terminated); never raises.

        A later :meth:`start` starts the server again.
        """
        self._stopping = True
        self._wake.set()
        await self._end_task()
        if self.state != "failed":
            self.state = "stopped"
        self.tools = []
        if self._stderr is not None:
            self._stderr.close()
        self._task, self._stale, self._stopping = None, False, False
        self._ready.clear()
        self._wake.clear()

    async def settled(self) -> None:
        """Return once no tool-list change is waiting to be listed (at most the list timeout)."""
        if self._settled.is_set() or self.state != "ready":
            return
        waiter = asyncio.ensure_future(self._settled.wait())
        await asyncio.wait({waiter}, timeout=self.config.timeouts.list_ms / 1000)
        waiter.cancel()

    def mark_stale(self) -> None:
        """Note a tool-list change: the supervisor lists the tools again."""
        self._stale = True
        self._settled.clear()
        self._wake.set()

    async def _end_task(self) -> None:
        task = self._task
        if task is None:
            return
        done, _ = await asyncio.wait({task}, timeout=_STOP_WAIT_S)
        if not done:
            task.cancel()
            await asyncio.wait({task}, timeout=_STOP_WAIT_S)

    # -- the supervisor ----------------------------------------------------------------------

    async def _supervise(self) -> None:
        try:
            client = Client(
                open_transport(self.config, self._stderr),
                mode=self.config.protocol,
                cache=None,
                message_handler=self._on_message,
                sampling_callback=self._sampler,
                client_info=_client_info(),
            )
            async with client:
                self._client = client
                self.protocol_version = client.protocol_version
                tools = await _list_tools(client)
                if self._stopping:  # given up on while it listed (deaf to the cancellation)
                    return
                self.tools, self.state = tools, "ready"
                self._settled.set()
                self._ready.set()
                async with anyio.create_task_group() as group:
                    tools = client.server_capabilities.tools
                    if tools is not None and tools.list_changed:
                        group.start_soon(self._listen, client)
                    await self._serve(client)
                    group.cancel_scope.cancel()
        except Exception as exc:  # noqa: BLE001 - any failure of the server is reported, by name
            if not self._stopping and self.state != "failed":
                was_ready = self.state == "ready"
                self._fail(self._describe(exc))
                if was_ready:  # it died between calls (an HTTP server's connection broke)
                    self._on_change(self)
        finally:
            self._client = None
            self._settled.set()
            self._ready.set()

    async def _serve(self, client: Client) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._stopping:
                return
            if self._stale:
                self._stale = False
                await self._relist(client)
            if not self._stale:
                self._settled.set()

    async def _relist(self, client: Client) -> None:
        try:
            with anyio.fail_after(self.config.timeouts.list_ms / 1000):
                tools = await _list_tools(client)
        except Exception as exc:  # noqa: BLE001 - keep the tools we have
            text = self.config.redact(_leaf_text(exc))
            _log.warning("MCP server %r: listing its tools again failed: %s", self.name, text)
            return
        self.tools = tools
        self._on_change(self)

    async def _listen(self, client: Client) -> None:
        """Hold a ``subscriptions/listen`` stream open; listen again after it ends or drops.

        Nothing is replayed (MCP spec, "Subscriptions"): after a gap the tools are listed again.
        A server that refuses the stream is left to its notifications.
        """
        delay = _RELISTEN_FIRST_S
        while not self._stopping:
            try:
                async with client.listen(tools_list_changed=True) as subscription:
                    delay = _RELISTEN_FIRST_S
                    async for _event in subscription:
                        self.mark_stale()
            except SubscriptionLost as exc:
                _log.debug("MCP server %r: the listen stream dropped: %s", self.name, exc)
            except Exception as exc:  # noqa: BLE001 - list changes then arrive as notifications
                _log.debug("MCP server %r: no subscriptions/listen stream: %s", self.name, exc)
                return
            self.mark_stale()  # changes during the gap were not seen
            await anyio.sleep(delay)
            delay = min(delay * 2, _RELISTEN_LAST_S)

    async def _on_message(self, message: mcp.ServerNotification | Exception) -> None:
        if isinstance(message, mcp.ToolListChangedNotification):
            self.mark_stale()
        elif isinstance(message, Exception):
            text = self.config.redact(_leaf_text(message))
            _log.debug("MCP server %r transport: %s", self.name, text)

    # -- calls -------------------------------------------------------------------------------

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        signal: AbortSignal | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> mcp.CallToolResult:
        """Call ``tool`` with ``arguments`` and return its result (an error result included).

        Args:
            tool: The MCP tool name.
            arguments: The tool's arguments (a JSON object).
            signal: Aborting it cancels the call; the server is told.
            on_progress: Receives the call's progress notifications.

        Raises:
            McpServerError: the server is not running, no longer offers ``tool``, did not
                answer within the call timeout, stopped during the call, refused it with a
                protocol error, or the call was aborted; the message names the server.
        """
        client = self._client
        if self.state != "ready" or client is None:
            raise McpServerError(self.name, self._unavailable())
        if all(t.name != tool for t in self.tools):
            raise McpServerError(
                self.name, f"MCP server {self.name!r} no longer offers the tool {tool!r}"
            )
        call = asyncio.ensure_future(self._call(client, tool, arguments, on_progress))
        try:
            aborted = await _until_done_or_aborted(call, signal)
        finally:
            if not call.done():  # aborted, or this task was cancelled
                call.cancel()
                await asyncio.wait({call}, timeout=_CANCEL_WAIT_S)
        if aborted:
            raise McpServerError(
                self.name,
                f"the call to {tool!r} on MCP server {self.name!r} was cancelled: the run was"
                " aborted",
            )
        return self._result(call, tool)

    async def _call(
        self,
        client: Client,
        tool: str,
        arguments: dict[str, Any],
        on_progress: ProgressCallback | None,
    ) -> mcp.CallToolResult:
        async def progress(progress: float, total: float | None, message: str | None) -> None:
            if on_progress is not None:
                on_progress(progress, total, message)

        with anyio.fail_after(self.config.timeouts.call_ms / 1000):
            return await client.call_tool(tool, arguments, progress_callback=progress)

    def _result(self, call: asyncio.Future[mcp.CallToolResult], tool: str) -> mcp.CallToolResult:
        try:
            return call.result()
        except TimeoutError:
            limit = self.config.timeouts.call_ms / 1000
            text = (
                f"MCP server {self.name!r} did not answer the call to {tool!r} within"
                f" {limit:g} s; the call was cancelled"
            )
        except MCPError as exc:
            if exc.code != mcp.CONNECTION_CLOSED:
                text = self.config.redact(str(exc))
                raise McpServerError(
                    self.name, f"MCP server {self.name!r} refused the call to {tool!r}: {text}"
                ) from None
            text = self._lost_during(tool, "the connection closed")
        except asyncio.CancelledError:  # the SDK gave up on it without an answer
            text = self._lost_during(tool, "the connection was lost")
        except (
            anyio.BrokenResourceError,
            anyio.ClosedResourceError,
            OSError,
            httpx2.HTTPError,
        ) as exc:
            text = self._lost_during(tool, self._describe(exc))
        except Exception as exc:  # noqa: BLE001 - e.g. a result that fails its output schema
            detail = self.config.redact(_leaf_text(exc))
            text = f"MCP server {self.name!r}: the call to {tool!r} failed: {detail}"
        raise McpServerError(self.name, text)

    # -- failures ----------------------------------------------------------------------------

    def _lost_during(self, tool: str, reason: str) -> str:
        """The server stopped during a call to ``tool``: the error text of that call."""
        self._lost(f"{reason} during a call to {tool!r}")
        return f"MCP server {self.name!r} stopped during the call to {tool!r}: {self.error}"

    def _lost(self, reason: str) -> None:
        """The server stopped answering: its tools go, its client is closed."""
        if self.state == "failed":
            return
        self._fail(reason)
        self._stopping = True
        self._wake.set()
        self._on_change(self)

    def _fail(self, reason: str) -> None:
        tail = self._stderr.tail() if self._stderr is not None else ""
        text = f"{reason}\nstderr:\n{tail}" if tail else reason
        self.state, self.error, self.tools = "failed", self.config.redact(text), []
        _log.warning("MCP server %r failed: %s", self.name, self.error)

    def _unavailable(self) -> str:
        if self.state == "failed":
            return f"MCP server {self.name!r} is not running: {self.error}"
        return f"MCP server {self.name!r} is not running ({self.state})"

    def _describe(self, exc: BaseException) -> str:
        leaf = _leaf(exc)
        config = self.config
        if isinstance(leaf, FileNotFoundError) and isinstance(config, StdioServer):
            return f"command {config.command!r} not found"
        if isinstance(leaf, httpx2.HTTPStatusError):
            return f"HTTP {leaf.response.status_code} from {leaf.request.url}"
        if isinstance(leaf, httpx2.ConnectError) and not isinstance(config, StdioServer):
            return f"cannot connect to {config.url}: {leaf}"
        if isinstance(leaf, MCPError) and leaf.code == mcp.CONNECTION_CLOSED:
            return "the server closed the connection"
        return _leaf_text(leaf)


async def _list_tools(client: Client) -> list[mcp.Tool]:
    tools: list[mcp.Tool] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


async def _until_done_or_aborted(call: asyncio.Future[Any], signal: AbortSignal | None) -> bool:
    """Wait for ``call``; return ``True`` when ``signal`` aborted first."""
    if signal is None:
        await asyncio.wait({call})
        return False
    if signal.aborted:
        return True
    aborted = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({call, aborted}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        aborted.cancel()
    return not call.done()


def _leaf(exc: BaseException) -> BaseException:
    """The first non-group exception inside ``exc`` (anyio task groups wrap failures)."""
    inner = cast(tuple[BaseException, ...], getattr(exc, "exceptions", ()))
    return _leaf(inner[0]) if inner else exc


def _leaf_text(exc: BaseException) -> str:
    leaf = _leaf(exc)
    text = str(leaf)
    return f"{type(leaf).__name__}: {text}" if text else type(leaf).__name__
