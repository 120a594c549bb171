"""A pydantic validation error on one session entry, said in the file's own terms.

Both session formats (pi-sdk's and pi-coding-agent's) validate each message line against
pi-sdk's message models; :func:`describe_validation` names the JSON path (``content[0].mimeType``)
and the real problem, not pydantic's union branch labels or Python attribute names.
"""

from __future__ import annotations

from typing import Any, cast

from pydantic import ValidationError

__all__ = ["describe_validation"]


_JSON_TYPE_NAMES: dict[type[Any], str] = {
    dict: "object",
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def _data_path(data: Any, loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """The part of a pydantic error location that indexes into ``data`` (the JSON as written).

    pydantic adds union branch labels to locations (``str``, ``list[...]``, a tagged union's tag
    such as ``user`` or ``image``); they are not in the file, so they are dropped. The last
    element is kept when it names a missing field.
    """
    path: list[int | str] = []
    node: Any = data
    for position, item in enumerate(loc):
        last = position == len(loc) - 1
        if isinstance(node, dict):
            mapping = cast(dict[str, Any], node)
            if not last and item in (mapping.get("role"), mapping.get("type")):
                continue  # a tagged union's tag
            if item in mapping:
                path.append(item)
                node = mapping[item]
                continue
            if last and isinstance(item, str):
                path.append(item)  # a missing field
        elif isinstance(node, list) and isinstance(item, int):
            items = cast(list[Any], node)
            if 0 <= item < len(items):
                path.append(item)
                node = items[item]
    return tuple(path)


def _format_path(path: tuple[int | str, ...]) -> str:
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    return text or "message"


def describe_validation(exc: ValidationError, data: Any) -> str:
    """One line naming the real problem, in the file's own terms (JSON names and indexes).

    A union (``content`` is a string or a list of blocks) fails once per branch; the branch that
    got furthest into the data is the one the writer meant, so the deepest errors are reported.
    """
    errors = [(_data_path(data, tuple(e["loc"])), e) for e in exc.errors()]
    deepest = max(len(path) for path, _ in errors)
    where = next(path for path, _ in errors if len(path) == deepest)
    here = [e for path, e in errors if path == where]
    first = here[0]
    if first["type"] == "union_tag_invalid":
        ctx = first.get("ctx") or {}
        what = f"unknown block type {ctx.get('tag')!r} (expected {ctx.get('expected_tags')})"
    elif first["type"] == "union_tag_not_found":
        what = "a block without a 'type'"
    else:
        messages = list(dict.fromkeys(e["msg"] for e in here))
        prefix = "Input should be "
        if len(messages) > 1 and all(m.startswith(prefix) for m in messages):
            what = prefix + " or ".join(m.removeprefix(prefix) for m in messages)
        else:
            what = "; ".join(messages)
        if first["type"].endswith("_type"):
            value: object = first["input"]
            what += f" (got {_JSON_TYPE_NAMES.get(type(value), 'a value')})"
    # Errors elsewhere (not this location nor one of its parents, i.e. another union branch).
    others = dict.fromkeys(_format_path(path) for path, _ in errors if path != where[: len(path)])
    more = ""
    if others:
        names = ", ".join(list(others)[:3]) + (", ..." if len(others) > 3 else "")
        more = f" (+{len(others)} more: {names})"
    return f"{_format_path(where)}: {what}{more}"
