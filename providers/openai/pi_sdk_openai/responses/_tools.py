"""``tools`` (function and grammar tools) and ``text.format`` (typed answers) of a Responses body.

OpenAI API docs: "Function calling" (strict mode), "Custom tools" (grammars), "Structured
Outputs"; pi-ai 1.6 ``convertResponsesTools``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pi_sdk
from pi_sdk.options import Output

from .._shared_request import declared_tools, grammar_inputs
from ._compat import resolve_responses_compat
from ._system import read_parts

__all__ = ["convert_tools", "request_grammar", "text_format"]


def convert_tools(
    tools: Sequence[pi_sdk.Tool],
    model: pi_sdk.Model,
    *,
    strict_field: bool,
    grammar_tools: bool = False,
) -> list[dict[str, Any]]:
    """Return Responses tools (pi-ai 1.6 ``convertResponsesTools``).

    A grammar tool on a model with ``grammar_tools`` is a custom tool ``{"type": "custom",
    name, description, "format": {"type": "grammar", "syntax": "lark" | "regex",
    definition}}`` (OpenAI "Custom tools"). Every other tool is a function tool; where the model
    takes the field (``strict_field``: compat ``supportsStrictMode``, on by default on Azure)
    it carries ``strict``: ``true`` for a tool whose constrained sampling resolves to strict
    (its schema made strict-compatible), else ``false``.

    Raises:
        ConfigurationError: a ``strict: "require"`` tool the model cannot take strict, or a bad
            grammar tool (:meth:`pi_sdk.Tool.strict_mode`, :meth:`pi_sdk.Tool.grammar`).
    """
    out: list[dict[str, Any]] = []
    for tool in tools:
        grammar = tool.grammar(model, grammar_tools)
        if grammar is not None:
            fmt = {"type": "grammar", "syntax": grammar.syntax, "definition": grammar.definition}
            out.append(
                {
                    "type": "custom",
                    "name": tool.name,
                    "description": tool.description,
                    "format": fmt,
                }
            )
            continue
        strict = tool.strict_mode(model, strict_field)
        entry: dict[str, Any] = {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.wire_parameters(strict),
        }
        if strict_field:
            entry["strict"] = bool(strict)
        out.append(entry)
    return out


def request_grammar(model: pi_sdk.Model, context: pi_sdk.Context) -> dict[str, str]:
    """The grammar tools a request to ``model`` sends as custom tools, for the decoder.

    Name -> the argument that carries a call's text; empty without grammar support.
    """
    compat = resolve_responses_compat(model, azure=model.api == "azure-openai-responses")
    if not compat.supports_openai_grammar_tools:
        return {}
    return grammar_inputs(model, declared_tools(read_parts(model, context)), True)


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
