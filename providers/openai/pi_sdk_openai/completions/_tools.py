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
    tools: list[pi_sdk.Tool], compat: CompletionsCompat | None, model: pi_sdk.Model
) -> list[dict[str, Any]]:
    """Return Chat Completions function tools (pi-ai 1.6 ``convertTools``).

    Where the server takes ``strict`` (compat ``supportsStrictMode``; always without a compat),
    each function carries it: ``true`` for a tool whose constrained sampling resolves to strict,
    its schema made strict-compatible (:meth:`pi_sdk.Tool.strict_mode`), else ``false``. A
    grammar tool on a model with compat ``supportsOpenAIGrammarTools`` is a custom tool
    (OpenAI "Custom tools": ``{"type": "custom", "custom": {name, description, "format":
    {"type": "grammar", "grammar": {"syntax": "lark" | "regex", "definition"}}}}``).

    Raises:
        ConfigurationError: a ``strict: "require"`` tool the model cannot take strict, a bad
            grammar tool.
    """
    field = compat.supports_strict_mode if compat is not None else True
    grammar_tools = compat.supports_openai_grammar_tools if compat is not None else False
    out: list[dict[str, Any]] = []
    for tool in tools:
        grammar = tool.grammar(model, grammar_tools)
        if grammar is not None:
            fmt = {"syntax": grammar.syntax, "definition": grammar.definition}
            custom: dict[str, Any] = {"name": tool.name, "description": tool.description}
            custom["format"] = {"type": "grammar", "grammar": fmt}
            out.append({"type": "custom", "custom": custom})
            continue
        strict = tool.strict_mode(model, field)
        function: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.wire_parameters(strict),
        }
        if field:
            function["strict"] = bool(strict)
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
