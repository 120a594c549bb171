"""What a configured MCP server is: :class:`StdioServer`, :class:`HttpServer` and their options.

A server is described in code with these classes, or in the ``mcpServers`` JSON that Claude
Desktop, Claude Code, Cursor and other clients read (:mod:`pi_sdk_mcp._config_file`). The
values are kept as given: ``env`` values and ``headers`` values are secrets as far as pi-sdk-mcp
is concerned, so ``repr()`` shows their names only, and every error message is passed through
:meth:`ServerOptions.redact`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias

from pi_sdk import ConfigurationError
from pi_sdk.plugins import MIN_SECRET_LENGTH, redact_text

if TYPE_CHECKING:
    import httpx2

__all__ = ["HttpServer", "Protocol", "ServerConfig", "ServerOptions", "StdioServer", "Timeouts"]

_SHORTEST_SECRET = MIN_SECRET_LENGTH
"""Shorter values (``"1"``, ``"on"``, ``"debug"``) are not redacted: replacing every ``1`` of a
message would garble it, and such a value protects nothing (pi-sdk's one rule,
:data:`pi_sdk.plugins.MIN_SECRET_LENGTH`, 8 characters)."""

Protocol: TypeAlias = Literal["auto", "legacy"]
"""How the protocol version is negotiated (the ``mcp`` SDK's ``Client(mode=...)``): ``"auto"``
probes ``server/discover`` (2026-07-28) and falls back to the ``initialize`` handshake of older
servers; ``"legacy"`` always runs the handshake (2025-11-25 and before)."""


@dataclass(frozen=True, kw_only=True)
class Timeouts:
    """How long pi-sdk-mcp waits for a server, in milliseconds.

    A timeout is reported as an error naming the server; a call that times out is cancelled
    (the server receives ``notifications/cancelled``).
    """

    startup_ms: float = 30_000
    """Start (spawn or connect), protocol negotiation and the first ``tools/list``."""
    list_ms: float = 30_000
    """Each later ``tools/list`` (after a list change)."""
    call_ms: float = 300_000
    """Each ``tools/call``, from request to result."""

    def __post_init__(self) -> None:
        """Check that every timeout is positive.

        Raises:
            ConfigurationError: a timeout is zero or negative.
        """
        for name in ("startup_ms", "list_ms", "call_ms"):
            value = getattr(self, name)
            if not value > 0:
                raise ConfigurationError(f"timeout {name} must be positive; got {value!r}")


@dataclass(frozen=True, kw_only=True)
class ServerOptions:
    """What every server has, whatever its transport."""

    name: str
    """The server's name (the key under ``mcpServers``); errors and tool prefixes use it."""
    timeouts: Timeouts = field(default_factory=Timeouts)
    allow_sampling: bool = False
    """Serve this server's ``sampling/createMessage`` requests with the model given to
    :class:`pi_sdk_mcp.McpServers` (off by default: the client then declares no sampling
    capability to this server)."""
    tool_prefix: str | None = None
    """Prepended to each of this server's tool names (``"git_"``: ``git_status``); see the
    naming rule in :mod:`pi_sdk_mcp._names`."""
    protocol: Protocol = "auto"

    def __post_init__(self) -> None:
        """Check the name and the protocol.

        Raises:
            ConfigurationError: an empty name, or an unknown protocol.
        """
        if not self.name:
            raise ConfigurationError("an MCP server needs a name")
        if self.protocol not in ("auto", "legacy"):
            raise ConfigurationError(
                f"MCP server {self.name!r}: protocol must be 'auto' or 'legacy'; got"
                f" {self.protocol!r}"
            )

    def secrets(self) -> list[str]:
        """The values that must never appear in a log, an error or a repr."""
        return []

    def redact(self, text: str) -> str:
        """``text`` with this server's secrets (and anything that looks like a key) replaced."""
        return redact_text(text, self.secrets())


@dataclass(frozen=True, kw_only=True, repr=False)
class StdioServer(ServerOptions):
    """A server run as a subprocess, spoken to over its stdin and stdout (MCP "stdio").

    The process gets a minimal environment (``HOME``, ``PATH``, ``USER``... as the ``mcp`` SDK's
    ``get_default_environment``) plus ``env``; its stderr is kept (the last lines are quoted
    when it fails) and never printed.
    """

    command: str
    """The executable (looked up on ``PATH``)."""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict[str, str])
    cwd: str | None = None

    def __post_init__(self) -> None:
        """Check the command.

        Raises:
            ConfigurationError: an empty command.
        """
        super().__post_init__()
        if not self.command:
            raise ConfigurationError(f"MCP server {self.name!r}: 'command' is empty")

    def secrets(self) -> list[str]:
        """The ``env`` values."""
        return [value for value in self.env.values() if len(value) >= _SHORTEST_SECRET]

    def __repr__(self) -> str:
        env = f", env=<{', '.join(sorted(self.env))}>" if self.env else ""
        args = self.redact(repr(list(self.args)))
        return f"StdioServer(name={self.name!r}, command={self.command!r}, args={args}{env})"


@dataclass(frozen=True, kw_only=True, repr=False)
class HttpServer(ServerOptions):
    """A server at a URL: streamable HTTP (``transport="http"``) or the older HTTP+SSE."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict[str, str])
    """Sent with every request (``Authorization: Bearer ...``)."""
    transport: Literal["http", "sse"] = "http"
    auth: httpx2.Auth | None = field(default=None, compare=False)
    """An ``httpx2.Auth`` for every request, e.g. the ``mcp`` SDK's ``OAuthClientProvider``
    (``mcp.client.auth``), which runs the OAuth flow the MCP authorization spec describes.
    Code only; a config file uses ``headers``."""

    def __post_init__(self) -> None:
        """Check the URL and the transport.

        Raises:
            ConfigurationError: a URL that is not ``http://`` or ``https://``, or an unknown
                transport.
        """
        super().__post_init__()
        if not self.url.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"MCP server {self.name!r}: 'url' must start with http:// or https://;"
                f" got {self.redact(self.url)!r}"
            )
        if self.transport not in ("http", "sse"):
            raise ConfigurationError(
                f"MCP server {self.name!r}: transport must be 'http' or 'sse'; got"
                f" {self.transport!r}"
            )

    def secrets(self) -> list[str]:
        """The ``headers`` values."""
        return [value for value in self.headers.values() if len(value) >= _SHORTEST_SECRET]

    def __repr__(self) -> str:
        headers = f", headers=<{', '.join(sorted(self.headers))}>" if self.headers else ""
        url = self.redact(self.url)
        return f"HttpServer(name={self.name!r}, url={url!r}, transport={self.transport!r}{headers})"


ServerConfig: TypeAlias = StdioServer | HttpServer
"""One configured MCP server."""
