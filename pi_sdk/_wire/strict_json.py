"""Strict JSON (RFC 8259), read and written by one rule, every refusal a named ``ValueError``.

Session files (:mod:`pi_sdk._agent.jsonl`) and the proxy server's request bodies
(:mod:`pi_sdk._serve.server`) read JSON that someone else wrote; this module is what they share.
Python's :mod:`json` accepts more than JSON and can fail in ways that name nothing; here:

* ``NaN``, ``Infinity`` and ``-Infinity`` are refused both ways (JSON has no such values;
  pi-mono's ``JSON.parse`` rejects them), and so are numbers beyond the float range (``1e400``,
  which Python would read as infinity);
* integers longer than Python converts (``sys.get_int_max_str_digits()``, 4,300 digits by
  default) are refused both ways, instead of the bare ``ValueError`` the codec raises;
* values nested deeper than :data:`MAX_NESTING` levels are refused both ways, instead of a
  ``RecursionError`` (the C codec recurses on the stack).

Every refusal is a :class:`StrictJsonError` (a ``ValueError``) whose text says what was refused;
invalid JSON text is :class:`json.JSONDecodeError`, as with :func:`json.loads`.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable
from typing import Any, cast

__all__ = [
    "MAX_NESTING",
    "NestingError",
    "StrictJsonError",
    "dumps_strict",
    "loads_strict",
    "nesting_exceeds",
]

MAX_NESTING = 500
"""Deepest JSON nesting (arrays and objects) read or written, in levels.

Python's JSON codec and ``==`` recurse on the C stack; 500 levels leave room for the caller's own
stack under the default recursion limit (1000) while being far beyond any real transcript.
"""


class StrictJsonError(ValueError):
    """A value strict JSON refuses; the text says which and why."""


class NestingError(StrictJsonError):
    """A value nested deeper than :data:`MAX_NESTING`."""

    def __init__(self) -> None:
        super().__init__(f"nested deeper than {MAX_NESTING} levels")


def nesting_exceeds(value: Any, limit: int = MAX_NESTING) -> bool:
    """True if ``value`` (JSON data: dicts, lists, scalars) nests deeper than ``limit`` levels.

    Iterative: any depth is measured without recursion.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Iterable[Any] = cast(dict[str, Any], node).values()
        elif isinstance(node, list):
            children = cast(list[Any], node)
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _check_nesting(text: str, value: Any) -> None:
    # Cheap bound first: the nesting depth is at most the number of opening brackets.
    if text.count("[") + text.count("{") > MAX_NESTING and nesting_exceeds(value):
        raise NestingError


def _too_long(digits: int) -> StrictJsonError:
    limit = sys.get_int_max_str_digits()
    return StrictJsonError(
        f"an integer of {digits} digits is longer than Python converts"
        f" (sys.get_int_max_str_digits(): {limit})"
    )


def dumps_strict(value: Any) -> str:
    r"""One line of compact JSON for ``value`` (no newline).

    Non-ASCII text is written as UTF-8, except lone UTF-16 surrogates, which are kept exactly
    as ``\u`` escapes (as JavaScript's ``JSON.stringify`` writes them).

    Raises:
        NestingError: nested deeper than :data:`MAX_NESTING`.
        StrictJsonError: ``NaN`` / ``Infinity``, or an integer longer than Python converts.
        TypeError: an object that is not JSON data (a ``set``, a ``datetime``).
    """
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: kept exactly as JSON \\u escapes
            text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    except RecursionError:
        raise NestingError from None
    except ValueError as exc:
        if "Out of range float" in str(exc):  # the json module's words for NaN / Infinity
            raise StrictJsonError(
                "NaN or Infinity is not JSON (pi-sdk writes only finite numbers)"
            ) from None
        if "integer string conversion" in str(exc):
            raise _too_long(_longest_int_digits(value)) from None
        raise
    _check_nesting(text, value)
    return text


def _longest_int_digits(value: Any) -> int:
    """The digit count of the longest integer in ``value`` (for an error message)."""
    longest = 0
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, int) and not isinstance(node, bool):
            # bit_length * log10(2), rounded up: no conversion to text (it is what failed).
            longest = max(longest, math.ceil(abs(node).bit_length() * math.log10(2)))
        elif isinstance(node, dict):
            stack.extend(cast(dict[Any, Any], node).values())
        elif isinstance(node, (list, tuple)):
            stack.extend(cast(Iterable[Any], node))
    return longest


def _refuse_constant(token: str) -> Any:
    raise StrictJsonError(
        f"{token} is not JSON (pi-sdk writes only finite numbers and refuses others on reading)"
    )


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise StrictJsonError(
            f"number {token} is out of float range (it would read as {value}, which cannot be"
            " written back)"
        )
    return value


def _int(token: str) -> int:
    try:
        return int(token)
    except ValueError:  # longer than sys.get_int_max_str_digits()
        raise _too_long(len(token.lstrip("-"))) from None


_decoder = json.JSONDecoder(
    parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_int
)


def loads_strict(text: str) -> Any:
    """Parse ``text`` as strict JSON: exactly what :func:`dumps_strict` writes, and no more.

    Raises:
        json.JSONDecodeError: invalid JSON (a ``ValueError``).
        StrictJsonError: ``NaN`` / ``Infinity``, a number beyond the float range, an integer
            longer than Python converts, or nesting deeper than :data:`MAX_NESTING` (a
            :class:`NestingError`).
    """
    try:
        value = _decoder.decode(text)
    except RecursionError:
        raise NestingError from None
    _check_nesting(text, value)
    return value
