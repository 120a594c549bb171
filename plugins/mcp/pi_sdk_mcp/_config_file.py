"""The ``mcpServers`` JSON: the configuration format Claude Desktop and most MCP clients read.

```json
{
  "mcpServers": {
    "time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]},
    "git": {"command": "mcp-server-git", "args": ["--repository", "."], "toolPrefix": "git_"},
    "docs": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}
  }
}
```

Per server, the keys the common format has: ``command``, ``args``, ``env``, ``cwd`` (stdio);
``url``, ``headers`` (HTTP); ``type`` (``"stdio"``, ``"http"`` or ``"streamable-http"``,
``"sse"``; default: stdio with ``command``, streamable HTTP with ``url``; Cline's
``transportType`` is read the same way); ``disabled: true`` skips the server (Cline, Cursor).
pi-sdk-mcp's own keys: ``startupTimeoutMs``, ``listTimeoutMs``, ``callTimeoutMs``
(:class:`~pi_sdk_mcp.Timeouts`), ``allowSampling``, ``toolPrefix``, ``protocol``. The top
level may say ``servers`` instead of ``mcpServers`` (VS Code); other top-level keys are ignored.

``${NAME}`` in any string value is replaced by the environment variable ``NAME`` (an error if it
is not set), ``${NAME:-default}`` by its value or ``default`` (Claude Code's expansion), so keys
stay out of the file. Keys other clients define (``autoApprove``, ``timeout``, ...) are ignored;
a key that is a near-miss of one of ours (``allowsampling``) is an error, so a typo cannot
silently switch sampling off.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from pi_sdk import ConfigurationError

from ._config import HttpServer, ServerConfig, StdioServer, Timeouts

__all__ = ["load_config"]

_COMMON_KEYS = frozenset(
    {"command", "args", "env", "cwd", "url", "headers", "type", "transportType", "disabled"}
)
_OUR_KEYS = {
    "startupTimeoutMs": "startup_ms",
    "listTimeoutMs": "list_ms",
    "callTimeoutMs": "call_ms",
    "allowSampling": "allow_sampling",
    "toolPrefix": "tool_prefix",
    "protocol": "protocol",
}
_TYPES = {"stdio": "stdio", "http": "http", "streamable-http": "http", "streamableHttp": "http",
          "sse": "sse"}  # fmt: skip
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def load_config(
    source: str | os.PathLike[str] | Mapping[str, Any],
    *,
    environ: Mapping[str, str] | None = None,
) -> list[ServerConfig]:
    """Read the servers of an ``mcpServers`` configuration, in file order.

    Args:
        source: A path to the JSON file, or the parsed JSON object.
        environ: Where ``${NAME}`` is looked up; default ``os.environ``.

    Returns:
        One :class:`~pi_sdk_mcp.StdioServer` or :class:`~pi_sdk_mcp.HttpServer` per enabled
        server.

    Raises:
        ConfigurationError: the file is missing or not JSON, or a server entry is invalid; the
            message names the file and the server, never a secret value.
    """
    label = "MCP configuration"
    if isinstance(source, Mapping):
        data: Any = source
    else:
        path = Path(source)
        label = str(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigurationError(f"cannot read {label}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise ConfigurationError(f"{label} is not valid JSON: {exc}") from None
    if not isinstance(data, Mapping):
        raise ConfigurationError(f"{label} must hold a JSON object with an 'mcpServers' object")
    document = cast(Mapping[str, Any], data)
    servers = document.get("mcpServers", document.get("servers"))
    if not isinstance(servers, Mapping):
        raise ConfigurationError(f"{label} has no 'mcpServers' object")
    env = os.environ if environ is None else environ
    configs: list[ServerConfig] = []
    for name, entry in cast(Mapping[Any, Any], servers).items():
        try:
            server = _server(str(name), entry, env)
        except ConfigurationError as exc:
            raise ConfigurationError(f"{label}: {exc}") from None
        if server is not None:
            configs.append(server)
    return configs


def _server(name: str, entry: Any, env: Mapping[str, str]) -> ServerConfig | None:
    where = f"server {name!r}"
    if not isinstance(entry, Mapping):
        raise ConfigurationError(f"{where} must be a JSON object")
    raw = _expand(cast(Mapping[str, Any], entry), env, where)
    _check_keys(raw, where)
    if raw.get("disabled") is True:
        return None
    kind = _kind(raw, where)
    options = _options(raw, where)
    if kind == "stdio":
        return StdioServer(
            name=name,
            command=_string(raw, "command", where, required=True) or "",
            args=tuple(_strings(raw, "args", where)),
            env=_string_map(raw, "env", where),
            cwd=_string(raw, "cwd", where),
            **options,
        )
    return HttpServer(
        name=name,
        url=_string(raw, "url", where, required=True) or "",
        headers=_string_map(raw, "headers", where),
        transport="sse" if kind == "sse" else "http",
        **options,
    )


def _check_keys(raw: Mapping[str, Any], where: str) -> None:
    ours = [*_OUR_KEYS, *_COMMON_KEYS]
    for key in raw:
        if key in _OUR_KEYS or key in _COMMON_KEYS:
            continue
        close = difflib.get_close_matches(key, ours, n=1, cutoff=0.8)
        if close or key.lower() in (k.lower() for k in ours):
            suggestion = close[0] if close else next(k for k in ours if k.lower() == key.lower())
            raise ConfigurationError(f"{where}: unknown key {key!r} (did you mean {suggestion!r}?)")


def _kind(raw: Mapping[str, Any], where: str) -> str:
    declared = raw.get("type", raw.get("transportType"))  # Cline says transportType
    if declared is not None:
        if declared not in _TYPES:
            known = ", ".join(repr(t) for t in _TYPES)
            raise ConfigurationError(
                f"{where}: unknown type {declared!r} (expected one of {known})"
            )
        kind = _TYPES[declared]
    elif "command" in raw and "url" in raw:
        raise ConfigurationError(f"{where}: has both 'command' and 'url'; set 'type'")
    elif "command" in raw:
        kind = "stdio"
    elif "url" in raw:
        kind = "http"
    else:
        raise ConfigurationError(f"{where}: needs 'command' (stdio) or 'url' (HTTP)")
    if kind == "stdio" and "url" in raw and "command" not in raw:
        raise ConfigurationError(f"{where}: type 'stdio' needs 'command'")
    return kind


def _options(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    timeouts: dict[str, float] = {}
    for key in ("startupTimeoutMs", "listTimeoutMs", "callTimeoutMs"):
        if key in raw:
            value = raw[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ConfigurationError(f"{where}: {key!r} must be a positive number (ms)")
            timeouts[_OUR_KEYS[key]] = float(value)
    options: dict[str, Any] = {"timeouts": Timeouts(**timeouts)}
    if "allowSampling" in raw:
        if not isinstance(raw["allowSampling"], bool):
            raise ConfigurationError(f"{where}: 'allowSampling' must be true or false")
        options["allow_sampling"] = raw["allowSampling"]
    prefix = _string(raw, "toolPrefix", where)
    if prefix is not None:
        options["tool_prefix"] = prefix
    protocol = _string(raw, "protocol", where)
    if protocol is not None:
        if protocol not in ("auto", "legacy"):
            raise ConfigurationError(f"{where}: 'protocol' must be 'auto' or 'legacy'")
        options["protocol"] = protocol
    return options


def _string(raw: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
    value = raw.get(key)
    if value is None:
        if required:
            raise ConfigurationError(f"{where}: {key!r} is missing")
        return None
    if not isinstance(value, str) or (required and not value):
        raise ConfigurationError(f"{where}: {key!r} must be a non-empty string")
    return value


def _strings(raw: Mapping[str, Any], key: str, where: str) -> list[str]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in cast(list[Any], value)):
        raise ConfigurationError(f"{where}: {key!r} must be a list of strings")
    return list(cast(list[str], value))


def _string_map(raw: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    value = raw.get(key, {})
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"{where}: {key!r} must be an object of strings")
    items = cast(Mapping[Any, Any], value).items()
    bad = [str(k) for k, v in items if not isinstance(v, str)]
    if bad:  # names only: the values may be secrets
        raise ConfigurationError(f"{where}: {key!r} values must be strings ({', '.join(bad)})")
    return {str(k): v for k, v in items}


def _expand(value: Any, env: Mapping[str, str], where: str) -> Any:
    """``value`` with ``${NAME}`` / ``${NAME:-default}`` replaced in every string."""
    if isinstance(value, str):

        def replace(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            found = env.get(name)
            if found is not None and (found or default is None):
                return found
            if default is not None:
                return default
            raise ConfigurationError(f"{where}: environment variable {name} is not set")

        return _VARIABLE.sub(replace, value)
    if isinstance(value, Mapping):
        items = cast(Mapping[Any, Any], value).items()
        return {k: _expand(v, env, where) for k, v in items}
    if isinstance(value, list):
        return [_expand(v, env, where) for v in cast(list[Any], value)]
    return value
