"""Tool-argument validation: AJV-style coercion, JSON Schema checks, pi-mono's error text.

pi-mono validates every tool call with AJV (``allErrors``, ``coerceTypes: true``, formats) on a
deep copy of the arguments and hands the coerced copy to the tool (pi-spec §6.2,
``utils/validation.ts``). This module does the same with ``jsonschema`` (imported on first use)
plus its own coercion step:

* a value whose JSON type does not match the schema's ``type`` is converted when AJV would:
  string ↔ number/integer/boolean/null (``"5"`` → ``5``, ``"true"`` → ``True``, ``""`` → ``None``,
  ``3`` → ``"3"``), boolean/null → number (``True`` → ``1``, ``None`` → ``0``), number/null →
  boolean (``1`` → ``True``);
* a scalar where an array is expected is wrapped (``"a"`` → ``["a"]``; AJV's ``"array"`` mode);
* coercion descends through ``properties``, ``additionalProperties``, ``items``/``prefixItems``,
  ``allOf`` and local ``$ref``; for ``anyOf``/``oneOf`` the first branch the coerced value then
  satisfies is used (AJV may leave a failed branch's coercion behind; we do not).

A failure raises :class:`pi_sdk.ToolArgumentsError` whose text is pi-mono's::

    Validation failed for tool "<name>":
      - <path>: <message>

    Received arguments:
    <the original arguments as JSON, indented 2>

``<path>`` is the instance path without its leading ``/`` (``items/0/qty``), the missing
property for a top-level ``required`` error, or ``root``; messages follow AJV's wording for the
common keywords.

:func:`schema_from_model` derives a tool's JSON Schema from a pydantic model. The module imports
only the data layer (pydantic, :mod:`pi_sdk.errors`), so the :class:`pi_sdk.AgentTool` base in
:mod:`pi_sdk._wire.agent_types` can use it.
"""

from __future__ import annotations

import ast
import copy
import json
import math
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel

from pi_sdk.errors import ToolArgumentsError

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

__all__ = [
    "coerce_arguments",
    "compile_validator",
    "empty_object_schema",
    "format_validation_error",
    "schema_from_model",
    "validate_arguments",
]

_NUMERIC = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*")
_JSON_TYPES = {
    "string": str,
    "object": dict,
    "array": list,
}


def compile_validator(schema: dict[str, Any]) -> Validator:
    """Return a ``jsonschema`` validator for ``schema`` (dialect from ``$schema``, default 2020-12).

    ``format`` is checked (AJV uses ajv-formats). Raises ``jsonschema.SchemaError`` for an
    invalid schema.
    """
    from jsonschema.validators import Draft202012Validator, validator_for

    cls = validator_for(schema, default=Draft202012Validator)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


# --- coercion ---------------------------------------------------------------------------------


def _is_type(value: Any, type_name: str) -> bool:
    if type_name == "null":
        return value is None
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if type_name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    python_type = _JSON_TYPES.get(type_name)
    return python_type is not None and isinstance(value, python_type)


def _number_text(value: float) -> str:
    if isinstance(value, float) and value.is_integer() and math.isfinite(value):
        return str(int(value))
    return str(value)


_NO = object()


def _coerce_to(value: Any, type_name: str) -> Any:
    """AJV ``coerceTypes`` for one target type; ``_NO`` when it does not apply."""
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if type_name == "string":
        if is_number:
            return _number_text(value)
        if isinstance(value, bool):
            return "true" if value else "false"
        if value is None:
            return ""
    elif type_name in ("number", "integer"):
        if isinstance(value, bool):
            return int(value)
        if value is None:
            return 0
        if isinstance(value, str) and value.strip() and _NUMERIC.fullmatch(value):
            number = float(value)
            if number.is_integer() and math.isfinite(number):
                return int(number)
            return number if type_name == "number" else _NO
    elif type_name == "boolean":
        if isinstance(value, str) and value in ("true", "false"):
            return value == "true"
        if is_number and value in (0, 1):
            return bool(value)
        if value is None:
            return False
    elif type_name == "null":
        if value == "" or value is False or (is_number and value == 0):
            return None
    return _NO


def _coerce_type(value: Any, types: Sequence[str]) -> Any:
    if any(_is_type(value, t) for t in types):
        return value
    for type_name in types:
        coerced = _coerce_to(value, type_name)
        if coerced is not _NO:
            return coerced
    if "array" in types and _is_scalar(value):
        return [value]
    return value


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _as_dict(node: Any) -> dict[str, Any] | None:
    return cast(dict[str, Any], node) if isinstance(node, dict) else None


def _as_list(node: Any) -> list[Any] | None:
    return cast(list[Any], node) if isinstance(node, list) else None


def _resolve_ref(ref: str, root: dict[str, Any]) -> dict[str, Any] | None:
    if not ref.startswith("#"):
        return None
    node: dict[str, Any] | None = root
    for part in ref[1:].split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        node = _as_dict(node.get(part)) if node is not None else None
    return node


def _coerce(value: Any, node: Any, root: dict[str, Any], validator: Validator, depth: int) -> Any:
    schema = _as_dict(node)
    if schema is None or depth > 64:
        return value
    ref = schema.get("$ref")
    if isinstance(ref, str):
        value = _coerce(value, _resolve_ref(ref, root), root, validator, depth + 1)
    types: Any = schema.get("type")
    if isinstance(types, str):
        value = _coerce_type(value, [types])
    elif (type_list := _as_list(types)) is not None:
        value = _coerce_type(value, [t for t in type_list if isinstance(t, str)])
    if (obj := _as_dict(value)) is not None:
        _coerce_object(obj, schema, root, validator, depth)
    elif (array := _as_list(value)) is not None:
        _coerce_array(array, schema, root, validator, depth)
    for sub in _as_list(schema.get("allOf")) or ():
        value = _coerce(value, sub, root, validator, depth + 1)
    for keyword in ("anyOf", "oneOf"):
        branches = _as_list(schema.get(keyword))
        if branches:
            value = _coerce_branches(value, branches, root, validator, depth)
    return value


def _coerce_object(
    value: dict[str, Any],
    schema: dict[str, Any],
    root: dict[str, Any],
    validator: Validator,
    depth: int,
) -> None:
    properties = _as_dict(schema.get("properties")) or {}
    for key, sub in properties.items():
        if key in value:
            value[key] = _coerce(value[key], sub, root, validator, depth + 1)
    extra = _as_dict(schema.get("additionalProperties"))
    if extra is not None:
        for key in value:
            if key not in properties:
                value[key] = _coerce(value[key], extra, root, validator, depth + 1)


def _coerce_array(
    value: list[Any], schema: dict[str, Any], root: dict[str, Any], validator: Validator, depth: int
) -> None:
    prefix = _as_list(schema.get("prefixItems"))
    items: Any = schema.get("items")
    if (tuple_items := _as_list(items)) is not None:  # draft-07 tuple form
        prefix, items = tuple_items, schema.get("additionalItems")
    start = 0
    if prefix is not None:
        for i, sub in enumerate(prefix[: len(value)]):
            value[i] = _coerce(value[i], sub, root, validator, depth + 1)
        start = len(prefix)
    if isinstance(items, dict):
        for i in range(start, len(value)):
            value[i] = _coerce(value[i], items, root, validator, depth + 1)


def _is_valid(validator: Validator, schema: Any, value: Any) -> bool:
    evolve: Any = getattr(validator, "evolve")  # noqa: B009 - untyped kwargs in the protocol
    return bool(evolve(schema=schema).is_valid(value))


def _coerce_branches(
    value: Any, branches: list[Any], root: dict[str, Any], validator: Validator, depth: int
) -> Any:
    if any(_is_valid(validator, b, value) for b in branches):
        return value
    for branch in branches:
        candidate = _coerce(copy.deepcopy(value), branch, root, validator, depth + 1)
        if _is_valid(validator, branch, candidate):
            return candidate
    return value


def coerce_arguments(
    arguments: Any, schema: dict[str, Any], validator: Validator | None = None
) -> Any:
    """Return a coerced deep copy of ``arguments`` for ``schema`` (AJV ``coerceTypes``).

    The input is not mutated. Values that cannot be coerced are left for validation to report.
    """
    validator = validator or compile_validator(schema)
    return _coerce(copy.deepcopy(arguments), schema, schema, validator, 0)


# --- errors -----------------------------------------------------------------------------------


def _missing_property(error: ValidationError) -> str:
    try:
        value = ast.literal_eval(error.message.removesuffix(" is a required property"))
    except (ValueError, SyntaxError):
        return ""
    return value if isinstance(value, str) else ""


def _ajv_message(error: ValidationError) -> str:
    """AJV's wording for the common keywords; ``jsonschema``'s message otherwise."""
    keyword, expected = error.validator, error.validator_value
    if keyword == "type":
        names = _as_list(expected) or [expected]
        return "must be " + ",".join(str(n) for n in names)
    if keyword == "required":
        return f"must have required property '{_missing_property(error)}'"
    simple = {
        "enum": "must be equal to one of the allowed values",
        "const": "must be equal to constant",
        "additionalProperties": "must NOT have additional properties",
        "anyOf": "must match a schema in anyOf",
        "oneOf": "must match exactly one schema in oneOf",
        "minimum": f"must be >= {expected}",
        "maximum": f"must be <= {expected}",
        "exclusiveMinimum": f"must be > {expected}",
        "exclusiveMaximum": f"must be < {expected}",
        "minLength": f"must NOT have fewer than {expected} characters",
        "maxLength": f"must NOT have more than {expected} characters",
        "minItems": f"must NOT have fewer than {expected} items",
        "maxItems": f"must NOT have more than {expected} items",
        "minProperties": f"must NOT have fewer than {expected} properties",
        "maxProperties": f"must NOT have more than {expected} properties",
        "multipleOf": f"must be multiple of {expected}",
        "pattern": f'must match pattern "{expected}"',
        "format": f'must match format "{expected}"',
    }
    return simple.get(str(keyword), error.message)


def _path_text(path: Iterable[Any]) -> str:
    return "/".join(str(p) for p in path)


def format_validation_error(
    tool_name: str, lines: Sequence[tuple[str, str]], arguments: Any
) -> str:
    """Return pi-mono's validation message from ``(path, message)`` pairs."""
    body = "\n".join(f"  - {path}: {message}" for path, message in lines) or (
        "  - root: Unknown validation error"
    )
    received = json.dumps(arguments, indent=2, ensure_ascii=False, default=str)
    return f'Validation failed for tool "{tool_name}":\n{body}\n\nReceived arguments:\n{received}'


def _error_lines(errors: Iterable[ValidationError]) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    for error in errors:
        path = _path_text(error.absolute_path)
        if not path and error.validator == "required":
            path = _missing_property(error)
        lines.append((path or "root", _ajv_message(error)))
    return sorted(lines, key=lambda line: line[0])


def validate_arguments(
    tool_name: str, schema: dict[str, Any], arguments: Any, validator: Validator | None = None
) -> Any:
    """Coerce and validate ``arguments`` against ``schema``; return the coerced copy.

    Args:
        tool_name: Used in the error text.
        schema: The tool's JSON Schema.
        arguments: The model's arguments (not mutated).
        validator: A validator from :func:`compile_validator` (compiled here if omitted).

    Raises:
        ToolArgumentsError: the arguments do not satisfy the schema; the text is pi-mono's.
    """
    validator = validator or compile_validator(schema)
    coerced = _coerce(copy.deepcopy(arguments), schema, schema, validator, 0)
    errors = list(validator.iter_errors(coerced))
    if errors:
        raise ToolArgumentsError(
            format_validation_error(tool_name, _error_lines(errors), arguments)
        )
    return coerced


def empty_object_schema() -> dict[str, Any]:
    """Return a fresh ``{"type": "object", "properties": {}}``: the schema of no arguments."""
    return {"type": "object", "properties": {}}


# --- schemas from pydantic models -------------------------------------------------------------


def schema_from_model(model: type[BaseModel]) -> dict[str, Any]:
    """Return the JSON Schema of ``model`` with local ``$ref`` inlined where not recursive.

    Several vendor APIs accept only a subset of JSON Schema (Gemini function declarations,
    pi-mono's Anthropic conversion keeps only ``properties``/``required``), so ``$defs``
    references are expanded; recursive models keep their ``$defs``.
    """
    schema = model.model_json_schema()
    defs: dict[str, Any] = schema.pop("$defs", {})
    inlined, recursive = _inline(schema, defs, ())
    if recursive:
        schema["$defs"] = defs
        return schema
    return cast(dict[str, Any], inlined)


def _inline(node: Any, defs: dict[str, Any], stack: tuple[str, ...]) -> tuple[Any, bool]:
    if isinstance(node, list):
        items = [_inline(n, defs, stack) for n in cast(list[Any], node)]
        return [i for i, _ in items], any(r for _, r in items)
    if not isinstance(node, dict):
        return node, False
    node = cast(dict[str, Any], node)
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name in stack or name not in defs:
            return node, True
        target, recursive = _inline(copy.deepcopy(defs[name]), defs, (*stack, name))
        if recursive:
            return node, True
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return merged, False
    out: dict[str, Any] = {}
    any_recursive = False
    for key, value in node.items():
        out[key], recursive = _inline(value, defs, stack)
        any_recursive = any_recursive or recursive
    return out, any_recursive
