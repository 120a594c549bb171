"""Function ``tools`` and ``text.format`` (typed answers) of a Responses body (OpenAI API docs)."""

from __future__ import annotations

from typing import Any

import pi_sdk
from pi_sdk.options import Output

__all__ = ["convert_tools", "text_format"]


def convert_tools(tools: list[pi_sdk.Tool], *, strict: bool | None = False) -> list[dict[str, Any]]:
    """Return Responses function tools with ``strict: <strict>``, or no ``strict`` for ``None``.

    pi-ai 1.6 sends ``strict: false`` only where the model's compat says the server takes the
    field (``supportsStrictMode``; on by default on Azure).
    """
    out: list[dict[str, Any]] = []
    for tool in tools:
        entry: dict[str, Any] = {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        }
        if strict is not None:
            entry["strict"] = strict
        out.append(entry)
    return out


def text_format(output: Output) -> dict[str, Any]:
    """Responses' ``text.format`` for a typed answer.

    (OpenAI Structured Outputs:
    ``{"type": "json_schema", name, schema, strict}``, flat, unlike Chat Completions).
    """
    fmt: dict[str, Any] = {"type": "json_schema", "name": output.name}
    if output.description:
        fmt["description"] = output.description
    fmt["schema"] = output.wire_schema
    fmt["strict"] = output.strict_schema is not None
    return fmt
