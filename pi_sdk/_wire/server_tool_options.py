"""``StreamOptions.server_tools``: the vendor-run tools a call enables, as each API names them.

Where the vendors agree, one neutral name enables the same kind of tool everywhere
(``docs/server-tools.md``, "Enabling them"):

* ``"web_search"``: search the web and answer with sources (Anthropic web search, Responses
  ``web_search``, Gemini Google Search grounding, OpenRouter's web search, Nova grounding);
* ``"web_fetch"``: read the pages whose URLs the prompt names (Anthropic web fetch, Gemini URL
  context);
* ``"code_execution"``: run code in the vendor's sandbox (Anthropic code execution, Responses
  code interpreter, Gemini code execution, Nova code interpreter).

Where they do not (file search, image generation, remote MCP...), an entry is the vendor's own
tool definition, a ``dict`` sent as it is. Each provider passes its table of definitions
(neutral name -> its API's definition) to :func:`server_tool_definitions`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pi_sdk.errors import ConfigurationError

__all__ = ["SERVER_TOOL_NAMES", "server_tool_definitions"]

SERVER_TOOL_NAMES = ("web_search", "web_fetch", "code_execution")
"""The neutral names of ``StreamOptions.server_tools``."""


def server_tool_definitions(
    entries: Sequence[str | Mapping[str, Any]] | None,
    definitions: Mapping[str, Mapping[str, Any]],
    where: str,
) -> list[dict[str, Any]]:
    """The tool definitions ``entries`` stand for on one API, in order.

    Args:
        entries: ``StreamOptions.server_tools``: neutral names and vendor definitions.
        definitions: The API's table: neutral name -> its definition (names it lacks have none).
        where: The model, as the error names it (``"openai/gpt-5 (openai-responses)"``).

    Raises:
        ConfigurationError: a name that is not neutral, or one the API has no tool for.
    """
    out: list[dict[str, Any]] = []
    for entry in entries or ():
        if isinstance(entry, str):
            if entry not in SERVER_TOOL_NAMES:
                raise ConfigurationError(
                    f"unknown server tool {entry!r}: use one of {', '.join(SERVER_TOOL_NAMES)}"
                    " or the vendor's own tool definition (a dict)"
                )
            found = definitions.get(entry)
            if found is None:
                offered = ", ".join(n for n in SERVER_TOOL_NAMES if n in definitions) or "none"
                raise ConfigurationError(
                    f"{where} has no {entry} server tool (it offers: {offered}); pass the"
                    " vendor's own tool definition (a dict) if it has one under another name"
                )
            out.append(dict(found))
        elif isinstance(entry, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
            out.append(dict(entry))
        else:
            raise ConfigurationError(f"a server tool is a name or a dict, not {entry!r}")
    return out
