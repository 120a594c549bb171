"""The names the model sees: MCP tool names made valid and unique across servers.

The rule, applied to every server's tools in configuration order, then in each server's
``tools/list`` order:

1. The name is the server's ``tool_prefix`` (if any) followed by the MCP tool name, with every
   character other than ``A-Z a-z 0-9 _ -`` replaced by ``_`` (the names every vendor accepts:
   OpenAI and Anthropic allow ``^[a-zA-Z0-9_-]{1,64}$``; MCP also allows ``.`` and ``/``).
2. A name that is already taken (by the agent's own tools, or by a server earlier in the
   configuration) becomes ``<server>__<tool>``, made valid the same way; if that is taken too,
   ``_2``, ``_3``, ... is appended.
3. A name longer than 64 characters keeps its first 55 and ends in ``_`` and 8 hex digits of its
   SHA-256, so two long names stay distinct.

So the first server to offer a name keeps it, and a collision never hides a tool. Names change
only when the set of tools changes (a server added, a list change); a server with a
``tool_prefix`` never collides with one without.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence

__all__ = ["MAX_NAME_LENGTH", "assign_names", "valid_name"]

MAX_NAME_LENGTH = 64
_INVALID = re.compile(r"[^A-Za-z0-9_-]")


def valid_name(name: str) -> str:
    """``name`` with invalid characters replaced by ``_`` and cut to 64 characters (rule 1, 3)."""
    cleaned = _INVALID.sub("_", name) or "_"
    if len(cleaned) <= MAX_NAME_LENGTH:
        return cleaned
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"{cleaned[: MAX_NAME_LENGTH - 9]}_{digest}"


def assign_names(
    tools: Sequence[tuple[str, str | None, str]], taken: Iterable[str] = ()
) -> list[str]:
    """The exposed name of each tool, by the rule in this module's docstring.

    Args:
        tools: ``(server name, tool prefix or None, MCP tool name)`` in configuration order.
        taken: Names that are not available (the agent's own tools).

    Returns:
        One name per entry of ``tools``, all distinct and none in ``taken``.
    """
    used = set(taken)
    names: list[str] = []
    for server, prefix, tool in tools:
        name = valid_name(f"{prefix or ''}{tool}")
        if name in used:
            name = valid_name(f"{server}__{tool}")
            base, counter = name, 2
            while name in used:
                suffix = f"_{counter}"
                name = f"{base[: MAX_NAME_LENGTH - len(suffix)]}{suffix}"
                counter += 1
        used.add(name)
        names.append(name)
    return names
