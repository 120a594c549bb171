r"""Independent oracles for the live value of `IncrementalJsonParser` (tests/core).

Both are deliberately naive (quadratic, character by character) and share no code with the
parser: they complete a prefix of a valid JSON object the way pi-mono's ``parseStreamingJson``
shows it (``partial-json`` "allow all"), with the parser's documented differences (a number or
literal shows once a delimiter follows it; an escape cut short and a trailing high-surrogate
escape are held back), then hand the completed text to `json.loads`.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["reference_partial", "shown_prefix"]

_CLOSERS = {"{": "}", "[": "]"}
_DELIMITERS = ",]} \t\n\r"


def shown_prefix(raw: str) -> str:
    """The text an unterminated string shows for its raw (escaped) content ``raw``."""
    tokens = re.findall(r'\\u[0-9a-fA-F]{4}|\\["\\/bfnrt]|\\u?[0-9a-fA-F]{0,3}$|[^\\]', raw)
    assert "".join(tokens) == raw
    if tokens and tokens[-1].startswith("\\") and len(tokens[-1]) < 6 and tokens[-1][1:2] in "u":
        tokens.pop()  # an incomplete escape (a lone backslash included)
    if tokens and re.fullmatch(r"\\u[dD][89abAB][0-9a-fA-F]{2}", tokens[-1]):
        tokens.pop()  # a high surrogate that may still get its low half
    return json.loads('"' + "".join(tokens) + '"')


def _closers(stack: list[str]) -> str:
    return "".join(_CLOSERS[opener] for opener in reversed(stack))


def reference_partial(prefix: str) -> dict[str, Any]:
    """The value a prefix of a valid JSON object text shows (pi-mono semantics, see above).

    Args:
        prefix: A prefix of a JSON object text (strings shorter than 256 characters, so that
            the parser's throttled refresh of long strings does not apply).

    Returns:
        The completed prefix, parsed: ``{}`` before the root ``{``.
    """
    stack: list[str] = []
    complete_to = -1  # the text up to here, plus closers, is the value shown so far
    closers = ""
    wants_key = False
    at, end = 0, len(prefix)
    while at < end:
        char = prefix[at]
        if char == '"':
            close = at + 1
            while close < end and prefix[close] != '"':
                close += 2 if prefix[close] == "\\" else 1
            is_key = wants_key
            if close >= end:  # the prefix ends inside this string
                if is_key:
                    break  # a key still arriving is not shown
                shown = json.dumps(shown_prefix(prefix[at + 1 :]))
                return json.loads(prefix[:at] + shown + _closers(stack))
            at = close + 1
            if not is_key:
                complete_to, closers = at, _closers(stack)
            continue
        if char in "{[":
            stack.append(char)
            wants_key = char == "{"
            complete_to, closers = at + 1, _closers(stack)
        elif char in "}]":
            stack.pop()
            wants_key = False
            complete_to, closers = at + 1, _closers(stack)
        elif char == ",":
            wants_key = stack[-1] == "{"
        elif char == ":":
            wants_key = False
        elif char not in " \t\n\r":  # a number or literal: shown once a delimiter follows it
            stop = at
            while stop < end and prefix[stop] not in _DELIMITERS:
                stop += 1
            if stop == end:
                break
            at = stop
            complete_to, closers = at, _closers(stack)
            continue
        at += 1
    if complete_to < 0:
        return {}
    return json.loads(prefix[:complete_to] + closers)
