"""JSON data from Python values: the one rule a tool's ``details`` are stored by (issue 31, item 3).

A tool's ``details`` are free-form, but a transcript is saved as JSON (:func:`pi_sdk.save_session`)
and sent as JSON (``--json``, the proxy). :func:`to_json_data` turns a value into JSON data by a
fixed rule, at the tool boundary, so that whatever a tool returns can be saved:

* JSON data passes unchanged: ``dict`` with ``str`` keys, ``list``, ``str``, ``bool``, ``None``,
  ``int``, finite ``float``;
* ``NaN`` and ``±Infinity`` become ``None`` (JSON has no such numbers; pydantic's JSON mode does
  the same);
* ``tuple`` (named tuples too), ``deque``, ``set`` and ``frozenset`` become lists (sets sorted
  when their items compare, since their order changes from one run to the next); mapping keys
  that are ``int``, ``float``, ``bool`` or ``None`` become their JSON text (``1`` → ``"1"``,
  ``True`` → ``"true"``), as :func:`json.dumps` writes them; other mappings become ``dict``;
* everything pydantic's JSON mode knows (:func:`pydantic_core.to_jsonable_python`): ``datetime``,
  ``date``, ``time`` → ISO 8601 text; ``timedelta`` → ISO 8601 duration (``"PT3S"``);
  ``Decimal``, ``UUID``, paths (``PurePath`` too), IP addresses → their text; ``Enum`` → its
  value; ``bytes`` → UTF-8 text; dataclasses and pydantic models → objects; then the result by
  this same rule.

Anything else (an object pydantic cannot serialize, ``bytes`` that are not UTF-8, a mapping key
of another type), nesting deeper than :data:`pi_sdk._wire.strict_json.MAX_NESTING` levels and
integers longer than Python converts are refused with :class:`NotJsonData`, whose message names
where the value sits (``details['rows'][3]``) and its type. The agent loop applies the rule to
every tool result (:mod:`pi_sdk._agent.tool_calls`), after the ``after_tool_call`` hooks.
"""

from __future__ import annotations

import json
import math
import sys
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Set
from pathlib import PurePath
from typing import Any, cast

from pi_sdk._wire.strict_json import MAX_NESTING

__all__ = ["NotJsonData", "to_json_data"]


class NotJsonData(ValueError):
    """A value :func:`to_json_data` cannot turn into JSON data; the text says where and why."""


_Setter = Callable[[Any], None]


def to_json_data(value: Any, where: str = "details") -> Any:
    """Return ``value`` as JSON data, by the rule of this module's docstring.

    Args:
        value: Any Python value (a tool's ``details``).
        where: How the value is named in an error (``"details"``).

    Returns:
        ``value`` itself when it already is JSON data (no copy), else a converted copy; the
        input is never mutated.

    Raises:
        NotJsonData: a part has no JSON form, nests deeper than ``MAX_NESTING`` levels, or is an
            integer longer than Python converts; the message names the part
            (``details['rows'][3]: socket is not JSON data (no JSON form)``).
    """
    if _is_json_data(value):
        return value
    result: list[Any] = [None]
    # Iterative, so that any depth is measured without recursion: (value, where, depth, put).
    stack: list[tuple[Any, str, int, _Setter, bool]] = [
        (value, where, 0, lambda item: result.__setitem__(0, item), False)
    ]
    while stack:
        node, path, depth, put, converted = stack.pop()
        if isinstance(node, _SCALARS):
            put(node)
        elif isinstance(node, int):
            put(_int(node, path))
        elif isinstance(node, float):
            put(node if math.isfinite(node) else None)
        elif depth >= MAX_NESTING:
            raise NotJsonData(f"{where}: nested deeper than {MAX_NESTING} levels")
        elif isinstance(node, Mapping):
            out: dict[str, Any] = {}
            for key, item in cast("Mapping[Any, Any]", node).items():
                name = _key(key, path)
                out[name] = None  # the key's place, in order; the value is put below
                stack.append((item, f"{path}[{name!r}]", depth + 1, _put_key(out, name), False))
            put(out)
        elif _is_sequence(node):
            items = _items(node)
            slots: list[Any] = [None] * len(items)
            for index, item in enumerate(items):
                stack.append((item, f"{path}[{index}]", depth + 1, _put_index(slots, index), False))
            put(slots)
        elif isinstance(node, PurePath):  # pydantic knows Path, not PurePath
            put(str(node))
        elif converted:  # pydantic's answer is always JSON-able; never loop on it
            raise NotJsonData(f"{path}: {type(node).__name__} is not JSON data (no JSON form)")
        else:
            stack.append((_leaf(node, path), path, depth, put, True))
    return result[0]


def _put_key(out: dict[str, Any], name: str) -> _Setter:
    return lambda item: out.__setitem__(name, item)


def _put_index(out: list[Any], index: int) -> _Setter:
    return lambda item: out.__setitem__(index, item)


_SCALARS = (str, bool, type(None))


def _is_json_data(value: Any) -> bool:
    """True when ``value`` is JSON data already (the common case: no copy is made)."""
    limit = sys.get_int_max_str_digits()
    long_bits = 3 * limit if limit else math.inf
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        kind = cast("type[Any]", type(node))
        if kind is str or kind is bool or node is None:
            continue
        if kind is int:
            if node.bit_length() >= long_bits:
                return False
        elif kind is float:
            if not math.isfinite(node):
                return False
        elif depth >= MAX_NESTING:
            return False
        elif kind is dict:
            for key, item in cast("dict[Any, Any]", node).items():
                if type(key) is not str:
                    return False
                stack.append((item, depth + 1))
        elif kind is list:
            stack.extend((item, depth + 1) for item in cast("list[Any]", node))
        else:
            return False
    return True


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (list, tuple, Set, deque))


def _items(value: Any) -> list[Any]:
    if isinstance(value, Set):
        try:
            return sorted(cast("Set[Any]", value))  # a set's order is not stable across runs
        except TypeError:  # items that do not compare: iteration order
            return list(cast("Set[Any]", value))
    return list(cast("Iterable[Any]", value))


def _key(key: Any, where: str) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int, float)):
        return json.dumps(key)
    raise NotJsonData(f"{where}: a key of type {type(key).__name__} is not JSON (keys are text)")


def _int(value: int, where: str) -> int:
    limit = sys.get_int_max_str_digits()
    # Under 3 bits per allowed digit an integer has at most 0.91 * limit digits: below it.
    if limit and value.bit_length() >= 3 * limit:
        try:
            str(value)
        except ValueError:
            raise NotJsonData(
                f"{where}: an integer longer than Python converts"
                f" (sys.get_int_max_str_digits(): {limit} digits)"
            ) from None
    return value


def _leaf(value: Any, where: str) -> Any:
    """``value`` through pydantic's JSON mode (its parts are converted by the caller)."""
    from pydantic_core import PydanticSerializationError, to_jsonable_python

    try:
        return to_jsonable_python(value)
    except (PydanticSerializationError, UnicodeDecodeError, ValueError) as exc:
        reason = "not UTF-8" if isinstance(exc, UnicodeDecodeError) else "no JSON form"
        raise NotJsonData(f"{where}: {type(value).__name__} is not JSON data ({reason})") from None
