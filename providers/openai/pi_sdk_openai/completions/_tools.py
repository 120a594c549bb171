"""Chat Completions function tools and ``response_format`` (OpenAI Structured Outputs).

OpenAI "Function calling" and "Structured Outputs" guides; pi-mono ``convertTools`` of
``openai-completions.ts`` (pi-spec §4.2).
"""

from __future__ import annotations

from typing import Any

import pi_sdk
from pi_sdk.options import Output

from ._compat import CompletionsCompat

__all__ = ["convert_tools", "response_format"]


def convert_tools(
    tools: list[pi_sdk.Tool], compat: CompletionsCompat | None = None
) -> list[dict[str, Any]]:
    """Return Chat Completions function tools; ``strict: false`` unless the server rejects it."""
    strict = compat.supports_strict_mode if compat is not None else True
    out: list[dict[str, Any]] = []
    for tool in tools:
        function: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        }
        if strict:
            function["strict"] = False
        out.append({"type": "function", "function": function})
    return out


def response_format(output: Output) -> dict[str, Any]:
    """Chat Completions' ``response_format`` for a typed answer.

    (OpenAI Structured Outputs:
    ``{"type": "json_schema", "json_schema": {name, schema, strict}}``; ``strict`` only when
    the schema is strict-compatible, see :attr:`pi_sdk.options.Output.strict_schema`).
    """
    schema: dict[str, Any] = {"name": output.name, "schema": output.wire_schema}
    if output.description:
        schema["description"] = output.description
    schema["strict"] = output.strict_schema is not None
    return {"type": "json_schema", "json_schema": schema}
