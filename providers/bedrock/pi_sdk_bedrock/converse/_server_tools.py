"""``StreamOptions.server_tools`` on Converse: Amazon Nova's system tools.

Nova models run two tools themselves (Amazon Nova user guide, "Built-in tools"), declared as
``{"systemTool": {"name": ...}}`` in ``toolConfig.tools``: ``nova_grounding`` (web search
with citations) and ``nova_code_interpreter``. Other Bedrock models have none.
"""

from __future__ import annotations

from typing import Any

import pi_sdk

__all__ = ["server_tool_definitions"]

_NOVA = {
    "web_search": {"systemTool": {"name": "nova_grounding"}},
    "code_execution": {"systemTool": {"name": "nova_code_interpreter"}},
}


def server_tool_definitions(model: pi_sdk.Model) -> dict[str, dict[str, Any]]:
    """Neutral name -> system tool for ``model`` (none unless it is a Nova model)."""
    return _NOVA if "nova" in model.id.lower() else {}
