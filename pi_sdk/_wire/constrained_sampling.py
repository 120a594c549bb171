"""Per-tool constrained sampling (pi-ai 1.6 ``constrainedSampling``): strict and grammar tools.

Decided per model, before any request.

A :class:`~pi_sdk.types.Tool` may ask for

* ``{"type": "json_schema", "strict": "prefer" | "require"}`` (:class:`JsonSchemaSampling`): the
  vendor samples arguments that match the schema. Sent where the model's compat flag says the
  API takes it (OpenAI ``strict: true``, Anthropic ``strict: true``, Bedrock ``toolSpec.strict``,
  Mistral ``strict: true``, Gemini 3 ``VALIDATED`` function calling), with the schema made
  strict-compatible (:func:`make_strict_json_schema`). ``prefer`` is dropped silently where the
  model cannot, or where the schema uses a keyword the vendor's strict mode rejects; ``require``
  then raises :class:`~pi_sdk.errors.ConfigurationError` naming the tool and the model. Claude
  (Anthropic API, Bedrock) refuses a request whose strict tools exceed its limits
  (:data:`STRICT_TOOL_LIMIT_ERRORS`): the request goes once more with its ``prefer`` tools
  non-strict (pi-ai 1.6 ``strict-tool-limits.ts``).
* ``{"type": "grammar", "variants": {"openai_lark" | "openai_regex": definition}}``
  (:class:`GrammarSampling`): on models whose compat has ``supportsOpenAIGrammarTools``, the tool
  goes as an OpenAI custom tool with a Lark (preferred) or regex grammar; its call's free text is
  the value of the tool's one required string property (:class:`ToolGrammar`). Elsewhere the tool
  goes as an ordinary function tool.

Behaviour and messages follow pi-ai 1.6 ``api/constrained-sampling.ts``; the error text adds the
model. OpenAI docs: "Function calling" (strict mode: every property required, nullable where
optional, ``additionalProperties: false``) and "Custom tools" (``format: {type: "grammar",
syntax: "lark" | "regex", definition}``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, cast

from pi_sdk._wire.wire_model import WireModel

__all__ = [
    "STRICT_TOOL_LIMIT_ERRORS",
    "GrammarSampling",
    "JsonSchemaSampling",
    "ToolGrammar",
    "UnsupportedKeyword",
    "UnsupportedStrictSchema",
    "make_strict_json_schema",
]

STRICT_TOOL_LIMIT_ERRORS = (
    "The compiled grammar is too large",
    "Too many strict tools (",
    "Schemas contains too many parameters with union types (",
)
"""Parts of the messages with which Claude (Anthropic API and Bedrock) refuses a request whose
strict tools exceed its limits: 20 strict tools, 16 optional or union-typed parameters across
them (pi-ai 1.6 ``STRICT_TOOL_LIMIT_ERROR_MESSAGES``)."""

UnsupportedKeyword = Callable[[str, Any], bool]
"""A vendor's check: does its strict mode reject this schema keyword with this value?"""


class JsonSchemaSampling(WireModel):
    """``{"type": "json_schema", "strict": "prefer" | "require"}``: strict arguments.

    ``prefer``: strict where the model supports it, silently not elsewhere; ``require``: a
    :class:`~pi_sdk.errors.ConfigurationError` before the request where it cannot be strict.
    """

    type: Literal["json_schema"] = "json_schema"
    strict: Literal["prefer", "require"]


class GrammarSampling(WireModel):
    """``{"type": "grammar", "variants": {"openai_lark"?: str, "openai_regex"?: str}}``.

    The grammar's language is the text of the tool's one required string property. Lark wins
    when both variants are given (pi-ai 1.6).
    """

    type: Literal["grammar"] = "grammar"
    variants: dict[str, str]
    """Grammar definitions by format: ``openai_lark`` (Lark), ``openai_regex`` (a regex)."""


@dataclass(frozen=True, slots=True)
class ToolGrammar:
    """How one grammar tool goes on the wire (:meth:`pi_sdk.types.Tool.grammar`)."""

    syntax: Literal["lark", "regex"]
    definition: str
    input_property: str
    """The tool's argument that carries the call's free text."""


class UnsupportedStrictSchema(ValueError):
    """The schema has a construct strict sampling cannot take (the text says which)."""


_UNSUPPORTED_KEYS = (
    "$ref",
    "$defs",
    "definitions",
    "allOf",
    "oneOf",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "prefixItems",
    "not",
    "if",
    "then",
    "else",
)


def _types(node: dict[str, Any]) -> list[Any]:
    kind = node.get("type")
    return [kind] if isinstance(kind, str) else list(cast("list[Any]", kind or []))


def _nullable(obj: dict[str, Any]) -> bool:
    """Whether ``obj`` (a node :func:`_close` took, so its variants are dicts) admits ``null``."""
    if "null" in _types(obj) or ("const" in obj and obj["const"] is None):
        return True
    if isinstance(obj.get("enum"), list) and None in obj["enum"]:
        return True
    variants = obj.get("anyOf")
    return isinstance(variants, list) and any(
        _nullable(v) for v in cast("list[dict[str, Any]]", variants)
    )


def _structured(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    obj = cast("dict[str, Any]", node)
    kinds = _types(obj)
    return "object" in kinds or "array" in kinds or "properties" in obj or "items" in obj


def _close(node: Any, unsupported: UnsupportedKeyword | None) -> None:
    """Make ``node`` (a copy) strict in place, or raise :class:`UnsupportedStrictSchema`."""
    if not isinstance(node, dict):
        raise UnsupportedStrictSchema("boolean schemas are unsupported")
    obj = cast("dict[str, Any]", node)
    for key in _UNSUPPORTED_KEYS:
        if obj.get(key) is not None:
            raise UnsupportedStrictSchema(f"{key} schemas are unsupported")
    if unsupported is not None:
        for key, value in obj.items():
            if unsupported(key, value):
                raise UnsupportedStrictSchema(f"{key}: {json.dumps(value)} is unsupported")
    if obj.get("type") is None and obj.get("anyOf") is None and obj.get("enum") is None:
        raise UnsupportedStrictSchema("schemas without a type are unsupported")
    if obj.get("anyOf") is not None:
        variants = obj["anyOf"]
        if not isinstance(variants, list) or not variants:
            raise UnsupportedStrictSchema("anyOf must contain at least one schema")
        for variant in cast("list[Any]", variants):
            if _structured(variant):
                raise UnsupportedStrictSchema("object and array unions are unsupported")
            _close(variant, unsupported)
    if obj.get("items") is not None:
        if isinstance(obj["items"], list):
            raise UnsupportedStrictSchema("tuple schemas are unsupported")
        _close(obj["items"], unsupported)
    is_object = obj.get("type") == "object"
    if obj.get("properties") is not None and not is_object:
        raise UnsupportedStrictSchema("properties require type object")
    if not is_object:
        return
    if obj.get("additionalProperties") not in (None, False):
        raise UnsupportedStrictSchema("schema-valued or true additionalProperties is unsupported")
    properties = obj.get("properties")
    if properties is None:
        properties = {}
    if not isinstance(properties, dict):
        raise UnsupportedStrictSchema("object properties must be a schema map")
    required = obj.get("required")
    if required is not None and (
        not isinstance(required, list)
        or not all(isinstance(k, str) for k in cast("list[Any]", required))
    ):
        raise UnsupportedStrictSchema("object required must be a string array")
    props = cast("dict[str, Any]", properties)
    wanted = set(cast("list[str]", required or []))
    if wanted - set(props):
        raise UnsupportedStrictSchema("required contains an unknown property")
    for name, prop in list(props.items()):
        _close(prop, unsupported)
        if name not in wanted and not _nullable(prop):
            props[name] = {"anyOf": [prop, {"type": "null"}]}  # optional -> nullable
    obj["required"] = list(props)
    obj["additionalProperties"] = False


def make_strict_json_schema(
    schema: Any, unsupported: UnsupportedKeyword | None = None
) -> dict[str, Any]:
    """A copy of ``schema`` in the subset strict sampling takes.

    pi-ai 1.6 ``makeStrictJsonSchema``. Every object lists all its properties as required and
    gets ``additionalProperties: false``; a property that was optional becomes ``anyOf:
    [schema, {"type": "null"}]`` unless it already allows ``null``. ``schema`` is not
    modified.

    Raises:
        UnsupportedStrictSchema: the root is not an object schema, or some node uses ``$ref``,
            ``oneOf``, ``allOf``, tuples, unions of objects or arrays, an untyped schema, a
            ``true`` / schema-valued ``additionalProperties``, or a keyword ``unsupported`` flags.
    """
    clone = copy.deepcopy(schema)
    if not isinstance(clone, dict):
        raise UnsupportedStrictSchema("root schema must have type object")
    _close(clone, unsupported)
    if cast("dict[str, Any]", clone).get("type") != "object":
        raise UnsupportedStrictSchema("root schema must have type object")
    return cast("dict[str, Any]", clone)


def grammar_input_property(parameters: dict[str, Any]) -> str:
    """The one required string property of a grammar tool's schema.

    Raises:
        ValueError: the schema is not an object with exactly one required string property.
    """
    if parameters.get("type") != "object":
        raise ValueError("grammar constrained sampling requires an object parameter schema")
    required = parameters.get("required")
    if not isinstance(required, list) or len(cast("list[Any]", required)) != 1:
        raise ValueError(
            "grammar constrained sampling requires exactly one required string property"
        )
    name = cast("list[Any]", required)[0]
    if not isinstance(name, str):
        raise ValueError(
            "grammar constrained sampling requires exactly one required string property"
        )
    prop = cast("dict[str, Any]", parameters.get("properties") or {}).get(name)
    if not prop:
        raise ValueError(f"grammar constrained sampling requires a properties entry for {name}")
    if cast("dict[str, Any]", prop).get("type") != "string":
        raise ValueError(f"grammar constrained sampling property {name} must have type string")
    return name
