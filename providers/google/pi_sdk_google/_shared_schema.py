"""Tool parameter schemas: JSON Schema converted to what Gemini's ``parametersJsonSchema`` accepts.

Function declarations go out in ``parametersJsonSchema`` (pi-mono ``convertTools``), the field
that takes real JSON Schema (``anyOf``, ``$ref``/``$defs``, ``additionalProperties``,
``type: [..., "null"]``), not the legacy OpenAPI-subset ``parameters`` field. Gemini documents
that this schema "must describe an object where the properties are the parameters to the
function" (``FunctionDeclaration.parametersJsonSchema``, Gemini API and Vertex AI references).

:func:`to_gemini_parameters` returns a converted copy and never mutates the tool's schema:

* the root must describe an object: a root without ``type`` gets ``"type": "object"`` (and
  ``properties: {}`` when it has none); a root of another type raises ``ConfigurationError``;
* the meta keywords ``$schema``, ``$id`` and ``$comment`` are dropped at every level: they do not
  constrain values, and ``$schema`` is a reported cause of HTTP 400 ``Unknown name "$schema"``;
* ``const: v`` becomes ``enum: [v]`` (same meaning; ``enum`` is in Gemini's documented subset);
* ``oneOf`` becomes ``anyOf`` (Gemini documents ``anyOf`` only; for generating a value the two
  agree whenever the branches do not overlap, which is the usual tagged-union case).

Keys inside ``properties``, ``$defs`` and similar maps are property or definition names, not
keywords, and are kept as they are; ``enum``, ``default`` and ``examples`` values are data and are
copied unchanged.
"""

from __future__ import annotations

from typing import Any, cast

from pi_sdk import ConfigurationError

__all__ = ["to_gemini_parameters"]

_DROPPED = frozenset({"$schema", "$id", "$comment"})
_SCHEMA_VALUED = frozenset(
    {
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "additionalItems",
        "items",
    }
)
_SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems", "items"})
_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)


def _convert(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema  # a boolean schema, or a malformed value: pass it through untouched
    source = cast(dict[str, Any], schema)
    out: dict[str, Any] = {}
    one_of: list[Any] | None = None
    for key, value in source.items():
        if key in _DROPPED:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            members = cast(dict[str, Any], value)
            out[key] = {name: _convert(sub) for name, sub in members.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            converted = [_convert(sub) for sub in cast(list[Any], value)]
            if key == "oneOf":
                one_of = converted
            else:
                out[key] = converted
        elif key in _SCHEMA_VALUED:
            out[key] = _convert(value)
        elif key == "const":
            if "enum" not in source:
                out["enum"] = [value]
        else:
            out[key] = value
    if one_of is not None:
        if "anyOf" in out:
            # Both unions present: both must hold, so the oneOf joins as an allOf member.
            out["allOf"] = [*out.get("allOf", []), {"anyOf": one_of}]
        else:
            out["anyOf"] = one_of
    return out


def to_gemini_parameters(schema: dict[str, Any], tool_name: str) -> dict[str, Any]:
    """Return ``schema`` converted for ``FunctionDeclaration.parametersJsonSchema``.

    Args:
        schema: The tool's JSON Schema (``Tool.parameters``); not modified.
        tool_name: Used in the error message.

    Returns:
        A new dict describing an object (see the module docstring for every rule).

    Raises:
        ConfigurationError: The schema's root is not an object schema.
    """
    converted = cast(dict[str, Any], _convert(schema))
    root_type = converted.get("type")
    if root_type is None:
        converted["type"] = "object"
        converted.setdefault("properties", {})
    elif root_type != "object" and not (isinstance(root_type, list) and "object" in root_type):
        raise ConfigurationError(
            f"tool {tool_name!r}: Gemini needs the parameters schema to describe an object "
            f"(type 'object'), got type {root_type!r}"
        )
    return converted
