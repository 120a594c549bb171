"""``StreamOptions.server_tools`` on Chat Completions: OpenRouter's web search.

OpenRouter runs a web search for any model when the request declares its server tool
(OpenRouter docs, "Web search"): ``{"type": "openrouter:web_search"}`` in ``tools``; the
sources come back as ``url_citation`` annotations (:mod:`._annotations`). Other Chat
Completions servers have no tool of this kind.
"""

from __future__ import annotations

__all__ = ["OPENROUTER_TOOLS"]

OPENROUTER_TOOLS = {"web_search": {"type": "openrouter:web_search"}}
"""``StreamOptions.server_tools`` names -> OpenRouter's server tools."""
