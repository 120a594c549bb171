r"""Incremental parsing of streamed tool-call arguments into a live ``dict`` (pi-spec §6.1, §2.2.6).

This module has one job: turn the raw JSON fragments of a streamed tool call (the ``delta`` of
each ``toolcall_delta`` event) into a ``dict[str, Any]`` that a consumer can show at any moment,
in total time linear in the size of the stream. pi-mono re-parses the whole accumulated buffer
with the ``partial-json`` package on every delta, which is quadratic over a stream;
`IncrementalJsonParser` looks only at the new characters of each fragment, each a bounded
number of times, and keeps its state between fragments.

The live value follows ``partial-json``'s "allow all" mode, as used by pi-mono:

- an unterminated string shows its text so far: ``{"a": "hel`` gives ``{"a": "hel"}``;
- a key that is not complete, or whose value has not started, is absent: ``{"a": 1, "b`` and
  ``{"a": 1, "b":`` both give ``{"a": 1}``;
- objects and arrays appear as soon as they are opened: ``{"a": [{`` gives ``{"a": [{}]}``;
- numbers and ``true``/``false``/``null`` (and ``NaN``/``Infinity``/``-Infinity``, which
  `json.loads` accepts) appear once complete, i.e. once a delimiter follows them. At the end of
  the stream a trailing number counts, with a dangling ``.``, ``e`` or ``e+`` dropped.

Deliberate differences from ``partial-json``:

- partial numbers and literals are not shown (``{"n": 12`` does not show ``1`` then ``12``);
- an escape sequence still arriving (``\u00``) is held back, and so is a high-surrogate escape
  (``\ud83d``) until the next character shows whether a low surrogate completes the pair, so the
  live value never shows half an escape or half of a surrogate pair;
- raw control characters inside strings are kept in the live value; strict JSON rejects them,
  so `IncrementalJsonParser.finish` then returns ``None`` and leaves the decision to the caller.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, Final, cast

__all__ = ["IncrementalJsonParser", "parse_partial_json"]

_WHITESPACE: Final = " \t\n\r"
_WHITESPACE_RUN: Final = re.compile(r"[ \t\n\r]*")
# String content made of ordinary characters and complete, valid escapes; stops at the closing
# quote, at an invalid escape, or at an escape cut by the end of the fragment. (Possessive: the
# split of a string into characters and escapes is unique, so there is nothing to backtrack.)
_STRING_BODY: Final = re.compile(r'[^"\\]*+(?:(?:\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})[^"\\]*+)*+')
# A whole fragment of string content: the body, then (group 1, maybe empty) an escape cut short.
_STRING_RUN: Final = re.compile(_STRING_BODY.pattern + r"(\\(?:u[0-9a-fA-F]{0,3})?|)")
_ESCAPE_PREFIX: Final = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?")
_SCALAR_BODY: Final = re.compile(r"[0-9A-Za-z.+\-]*")
_SCALAR_START: Final = frozenset("-0123456789tfnNI")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_NUMBER_DANGLING: Final = re.compile(r"\.|[eE][+-]?")
_LITERALS: Final[dict[str, Any]] = {
    "true": True,
    "false": False,
    "null": None,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
}

#: An in-progress string value is refreshed once its unshown part reaches
#: ``max(_REFRESH_MIN, shown // _REFRESH_DIVISOR)`` raw characters (always while it is shorter
#: than ``_REFRESH_MIN``).
_REFRESH_MIN: Final = 256
_REFRESH_DIVISOR: Final = 8
_NEVER: Final = sys.maxsize
_LENIENT_DECODER: Final = json.JSONDecoder(strict=False)

# Scanner states.
_VALUE: Final = 0  # a value must come (document start, after ":" or after "," in an array)
_VALUE_OR_CLOSE: Final = 1  # just after "["
_KEY_OR_CLOSE: Final = 2  # just after "{"
_KEY: Final = 3  # after "," in an object
_COLON: Final = 4
_AFTER_VALUE: Final = 5  # "," or the closing bracket of the innermost container
_STRING: Final = 6
_SCALAR: Final = 7  # inside a number or literal
_DONE: Final = 8  # the root object is closed; only whitespace may follow
_IGNORED: Final = 9  # the root is not an object: nothing more to build
_FAILED: Final = 10  # syntax error: nothing more to build


class IncrementalJsonParser:
    r"""Parse a JSON object fed in arbitrary fragments, exposing the partial result as it grows.

    ```python
    parser = IncrementalJsonParser()
    for delta in ('{"path": "a.py", "cont', 'ent": "print(1)', '"}'):
        parser.feed(delta)
        show(parser.value)  # {"path": "a.py"}, then {"path": "a.py", "content": "print(1)"}
    arguments = parser.finish()  # the json.loads result, or None if the text is not a JSON object
    ```

    Cost: `feed` never looks back at earlier fragments. A fragment that falls wholly inside a
    string (the usual case when a long argument streams) costs one compiled regular expression
    over the fragment and a few attribute updates; runs of whitespace are skipped at C speed too;
    structural characters are handled one by one.

    Keeping a huge string value current would mean building a new, longer ``str`` on every
    fragment, which is quadratic. So at the end of each `feed` an in-progress string value is
    refreshed in `value` only if the text shown so far is shorter than 256 characters, or if
    the raw text received but not yet shown is at least ``max(256, m // 8)`` characters, ``m``
    being the length shown. A refresh copies the ``m`` characters already shown: under the
    second rule that is at most about 8 copies per newly shown character, under the first at
    most 256 per call, so a stream costs O(total length + 256 x number of feed calls), which is
    linear.

    How far behind a streamed string value can be: after any `feed`, the raw (still escaped)
    text of the string that has been received but is not yet in `value` is

    - while fewer than 256 characters are shown: only an escape sequence still in progress,
      at most 11 raw characters (a high-surrogate escape ``\ud83d`` waiting for its low half,
      plus up to 5 characters of an incomplete escape such as ``\ude0``);
    - from 256 shown characters ``m`` on: fewer than ``max(256, m // 8) + 5`` raw characters,
      i.e. the value shows at least about 8/9 of what has arrived.

    A string is exact as soon as its closing quote has been fed, and an unterminated one is
    brought up to date by `finish`. What `value` shows after each `feed`, and `error`, depend
    only on the text fed so far and on where the fragments were cut, never on anything else;
    `error` does not even depend on the cuts.
    """

    __slots__ = (
        "_copied",
        "_error",
        "_escape",
        "_fed",
        "_finished",
        "_in_string",
        "_joined",
        "_joined_parts",
        "_key",
        "_parts",
        "_refresh_at",
        "_result",
        "_root",
        "_scalar",
        "_stack",
        "_state",
        "_string_is_key",
        "_string_part",
        "_string_shown",
        "_string_skip",
    )

    def __init__(self) -> None:
        """Start with an empty buffer and an empty `value`."""
        self._root: dict[str, Any] = {}
        self._error: str | None = None
        self._parts: list[str] = []
        self._joined = ""
        self._joined_parts = 0  # how many of _parts _joined joins
        self._fed = 0  # characters fed so far: the offset where the next fragment starts
        self._finished = False
        self._result: dict[str, Any] | None = None
        # Parser state.
        self._state = _VALUE
        self._stack: list[dict[str, Any] | list[Any]] = []
        self._key = ""
        # Inside a string (key or value) and still parsing: `feed`'s fast path applies.
        self._in_string = False
        self._string_is_key = False
        self._string_shown = ""
        # The string's raw text received but not shown starts at _parts[_string_part]
        # [_string_skip:] and runs to the end of _parts, less _escape: an escape cut by the end
        # of the last fragment, rescanned with the next one.
        self._string_part = 0
        self._string_skip = 0
        self._escape = ""
        # The value string is refreshed at the end of a feed once _fed - len(_escape) reaches
        # this offset (class notes); _NEVER for a key.
        self._refresh_at = _NEVER
        self._scalar: list[str] = []
        # Characters copied into shown strings: instrumentation for the linear-cost tests.
        self._copied = 0

    @property
    def value(self) -> dict[str, Any]:
        """The partial object built so far, always a ``dict``.

        It is the same ``dict`` object for the parser's whole life, mutated in place (nested
        containers too) as fragments arrive; it stays ``{}`` when the text is not a JSON object.
        Deep-copy it to keep a snapshot.
        """
        return self._root

    @property
    def raw(self) -> str:
        """The exact concatenation of every fragment fed so far.

        Joined on first access after new fragments and cached; reading it after every fragment
        would make the stream quadratic.
        """
        parts = self._parts
        if len(parts) != self._joined_parts:
            # One part from now on (later joins copy one string, not many small ones); the
            # unshown text of a string in progress is then found in it at the same offset.
            first = self._string_part
            self._string_skip += sum(map(len, parts[:first]))
            self._string_part = 0
            self._joined = "".join(parts)
            parts[:] = [self._joined]
            self._joined_parts = 1
        return self._joined

    @property
    def error(self) -> str | None:
        """A short description of the syntax error that stopped the parser, else ``None``.

        The message names the offset of the offending character in `raw` (for an invalid
        escape, of its backslash; for an invalid number or literal, of the character after
        it), so it is the same however the text was cut into fragments. Once set, `feed` only
        records fragments in `raw`; `value` keeps what it had.
        """
        return self._error

    @property
    def _scanned(self) -> int:
        """Characters examined or copied (instrumentation for the linear-cost tests)."""
        return self._fed + self._copied

    def feed(self, fragment: str) -> None:
        """Consume the next fragment of the JSON text.

        Never raises on bad input: a syntax error sets `error` and freezes `value`.

        Args:
            fragment: The next piece of the raw JSON text, cut anywhere (inside a string, an
                escape sequence or a number included). An empty fragment is ignored.

        Raises:
            RuntimeError: If called after `finish`.
        """
        if self._in_string and fragment:
            # Fast path: the fragment continues a string and does not end it.
            match = _STRING_RUN.fullmatch(self._escape + fragment)
            if match is not None:
                self._parts.append(fragment)
                self._fed = fed = self._fed + len(fragment)
                self._escape = match[1]
                if fed >= self._refresh_at:  # _refresh_due tells exactly
                    self._refresh_due()
                return
        if self._finished:
            raise RuntimeError("IncrementalJsonParser.feed() called after finish()")
        if not fragment:
            return
        self._parts.append(fragment)
        offset = self._fed
        self._fed += len(fragment)
        if self._state >= _IGNORED:
            return
        self._scan(fragment, offset)
        if self._state == _STRING:
            self._refresh_due()

    def finish(self) -> dict[str, Any] | None:
        """End the stream and return the complete arguments, or ``None`` if they are not valid.

        The whole raw text is parsed once with `json.loads`. A JSON object is returned and
        becomes `value` (the same ``dict``, updated in place); an empty or whitespace-only text
        and JSON ``null`` give ``{}``. Anything else (invalid or incomplete JSON, or a JSON value
        that is not an object) gives ``None``, and `value` keeps the best partial object,
        brought up to date: an unterminated string shows all its text and a trailing number
        counts. Calling it again returns the same result.

        Returns:
            The parsed object, or ``None`` when the text is not a JSON object.
        """
        if self._finished:
            return self._result
        self._finished = True
        self._in_string = False
        self._settle()
        text = self.raw
        if not text.strip():
            self._result = self._root
            return self._result
        try:
            parsed: Any = json.loads(text)
        except RecursionError:
            # Deeper nesting than the C decoder allows; our parser has no recursion limit.
            if self._state == _DONE:
                self._result = self._root
            return self._result
        except ValueError:
            return None
        if parsed is None:
            self._result = self._root
        elif isinstance(parsed, dict):
            self._root.clear()
            self._root.update(cast("dict[str, Any]", parsed))
            self._result = self._root
        return self._result

    def _settle(self) -> None:
        """Bring `value` up to date at the end of the stream, whatever the text was."""
        state = self._state
        if state == _STRING:
            if not self._string_is_key:
                self._refresh_string()  # an escape cut short is left out
        elif state == _SCALAR and self._stack:
            token = "".join(self._scalar)
            ok, number = _scalar_value(token)
            if not ok:
                match = _NUMBER.match(token)
                if match is None or not _is_dangling(token[match.end() :]):
                    return
                ok, number = _scalar_value(match.group())
            if ok:
                self._add_value(number)

    def _fail(self, state: int, message: str) -> None:
        """Stop on a syntax error, showing what was valid of a string in progress."""
        self._error, self._in_string = message, False
        if state == _STRING and not self._string_is_key:
            self._refresh_string()
        self._state = _FAILED

    def _add_value(self, item: Any) -> None:
        """Put a value into the innermost container, under the current key for an object."""
        top = self._stack[-1]
        if isinstance(top, dict):
            top[self._key] = item
        else:
            top.append(item)

    def _scan(self, text: str, offset: int) -> None:
        """Advance the state machine over one fragment; ``offset`` is where it starts."""
        pending = self._escape
        if pending:  # an escape cut by the previous fragment: rescan it with this one
            text = pending + text
            offset -= len(pending)
            self._escape = ""
        end = len(text)
        pos = 0
        state = self._state
        stack = self._stack
        while pos < end:
            if state == _STRING:
                stop = _STRING_BODY.match(text, pos).end()  # pyright: ignore[reportOptionalMemberAccess]
                if stop < end and text[stop] == '"':
                    state = self._close_string(end - stop)
                    pos = stop + 1
                    continue
                if stop == end or (end - stop < 6 and _ESCAPE_PREFIX.fullmatch(text, stop)):
                    self._escape = text[stop:]
                    pos = end
                    break
                self._escape = text[stop:]  # the refresh shows the text before the bad escape
                self._fail(state, f"invalid escape sequence at offset {offset + stop}")
                return
            if state == _SCALAR:
                match = _SCALAR_BODY.match(text, pos)
                stop = match.end() if match else pos
                if stop == end:
                    self._scalar.append(text[pos:])
                    pos = end
                    break
                if self._scalar:  # begun in an earlier fragment
                    self._scalar.append(text[pos:stop])
                    token = "".join(self._scalar)
                    self._scalar = []
                else:
                    token = text[pos:stop]
                pos = stop
                ok, item = _scalar_value(token)
                if not ok:
                    self._fail(state, f"invalid literal {token[:20]!r} at offset {offset + pos}")
                    return
                self._add_value(item)
                state = _AFTER_VALUE
                continue
            char = text[pos]
            if char in _WHITESPACE:
                pos += 1
                if pos < end and text[pos] in _WHITESPACE:
                    match = _WHITESPACE_RUN.match(text, pos)
                    pos = match.end() if match else pos
                continue
            if state == _AFTER_VALUE:
                top = stack[-1]
                is_object = isinstance(top, dict)
                if char == ",":
                    state = _KEY if is_object else _VALUE
                elif char == ("}" if is_object else "]"):
                    stack.pop()
                    state = _AFTER_VALUE if stack else _DONE
                else:
                    break
            elif state == _VALUE or state == _VALUE_OR_CLOSE:
                if not stack:  # the document's root value
                    if char == "{":
                        stack.append(self._root)
                        state = _KEY_OR_CLOSE
                    elif char in _SCALAR_START or char == "[" or char == '"':
                        self._state = _IGNORED
                        return
                    else:
                        break
                elif char == '"':
                    quote = text.find('"', pos + 1)
                    if quote > 0 and text.find("\\", pos + 1, quote) < 0:
                        # Fast path: the whole string is in this fragment, without escapes.
                        self._add_value(text[pos + 1 : quote])
                        pos = quote + 1
                        state = _AFTER_VALUE
                        continue
                    self._add_value("")
                    self._open_string(is_key=False, at=offset + pos + 1)
                    state = _STRING
                elif char == "{":
                    child: dict[str, Any] = {}
                    self._add_value(child)
                    stack.append(child)
                    state = _KEY_OR_CLOSE
                elif char == "[":
                    items: list[Any] = []
                    self._add_value(items)
                    stack.append(items)
                    state = _VALUE_OR_CLOSE
                elif char in _SCALAR_START:
                    state = _SCALAR
                    continue  # the scalar scan reads this character
                elif char == "]" and state == _VALUE_OR_CLOSE:
                    stack.pop()
                    state = _AFTER_VALUE
                else:
                    break
            elif state == _KEY or state == _KEY_OR_CLOSE:
                if char == '"':
                    quote = text.find('"', pos + 1)
                    if quote > 0 and text.find("\\", pos + 1, quote) < 0:
                        self._key = text[pos + 1 : quote]  # fast path, as for values
                        pos = quote + 1
                        state = _COLON
                        continue
                    self._open_string(is_key=True, at=offset + pos + 1)
                    state = _STRING
                elif char == "}" and state == _KEY_OR_CLOSE:
                    stack.pop()
                    state = _AFTER_VALUE if stack else _DONE
                else:
                    break
            elif state == _COLON:
                if char != ":":
                    break
                state = _VALUE
            else:  # _DONE
                break
            pos += 1
        if pos < end:
            self._fail(state, f"unexpected {text[pos]!r} at offset {offset + pos}")
        else:
            self._state = state
            self._in_string = state == _STRING

    def _open_string(self, *, is_key: bool, at: int) -> None:
        """Start a string whose content begins at offset ``at`` of `raw`, in the last part."""
        self._string_is_key = is_key
        self._string_shown = ""
        self._string_part = len(self._parts) - 1
        self._string_skip = at - (self._fed - len(self._parts[-1]))
        self._refresh_at = _NEVER if is_key else at + 1

    def _unshown(self, cut: int) -> str:
        """The current string's unshown raw text, less its last ``cut`` characters."""
        parts = self._parts
        first = self._string_part
        if first == len(parts) - 1:
            return parts[first][self._string_skip : len(parts[first]) - cut]
        joined = "".join(parts[first:])
        return joined[self._string_skip : len(joined) - cut]

    def _close_string(self, cut: int) -> int:
        """Finish the current string, whose closing quote is ``cut`` characters from the end.

        Returns the state that follows it.
        """
        decoded = _decode(self._unshown(cut))
        text = self._string_shown + decoded if self._string_shown else decoded
        self._copied += len(text)
        self._string_shown = ""
        self._refresh_at = _NEVER
        if self._string_is_key:
            self._key = text
            return _COLON
        top = self._stack[-1]
        if isinstance(top, dict):
            top[self._key] = text
        else:
            top[-1] = text
        return _AFTER_VALUE

    def _refresh_due(self) -> None:
        """Refresh the string value in progress if the class notes' rule says so."""
        if self._fed - len(self._escape) >= self._refresh_at:
            self._refresh_string()

    def _refresh_string(self) -> None:
        """Show the in-progress string value's text received so far (see the class notes).

        A final high-surrogate escape stays raw (its low half may come next) and unshown.
        """
        cut = len(self._escape)
        raw = self._unshown(cut)
        decoded = _decode(raw)
        last = decoded[-1:]
        if "\ud800" <= last <= "\udbff" and raw[-1] != last:
            cut += 6  # the held escape stays unshown
            decoded = decoded[:-1]
        text = self._string_shown + decoded
        self._copied += len(raw) + len(text)
        self._string_shown = text
        self._start_unshown(cut)
        shown_end = self._fed - cut  # where the unshown raw text now starts in `raw`
        shown = len(text)
        self._refresh_at = shown_end + (
            1 if shown < _REFRESH_MIN else max(_REFRESH_MIN, shown // _REFRESH_DIVISOR)
        )
        top = self._stack[-1]
        if isinstance(top, dict):
            top[self._key] = text
        else:
            top[-1] = text

    def _start_unshown(self, cut: int) -> None:
        """Make the unshown text start ``cut`` characters before the end of `raw`."""
        parts = self._parts
        index = len(parts) - 1
        while cut > len(parts[index]):
            cut -= len(parts[index])
            index -= 1
        self._string_part = index
        self._string_skip = len(parts[index]) - cut


def _decode(raw: str) -> str:
    """The text of a string's raw content (no quotes), whose escapes the scan has checked."""
    return _LENIENT_DECODER.raw_decode(f'"{raw}"')[0] if "\\" in raw else raw


def _scalar_value(token: str) -> tuple[bool, Any]:
    """Convert a whole number or literal token as `json.loads` would; ``(False, None)`` if bad."""
    if token in _LITERALS:
        return True, _LITERALS[token]
    if _NUMBER.fullmatch(token) is None:
        return False, None
    try:
        if "." in token or "e" in token or "E" in token:
            return True, float(token)
        return True, int(token)
    except ValueError:  # an integer longer than sys.get_int_max_str_digits()
        return False, None


def _is_dangling(rest: str) -> bool:
    """Tell whether ``rest`` is an unfinished fraction or exponent (``.``, ``e``, ``e-``)."""
    return not rest or _NUMBER_DANGLING.fullmatch(rest) is not None


def parse_partial_json(text: str | None) -> dict[str, Any]:
    """Parse possibly incomplete JSON arguments into a ``dict``; never raises.

    pi-mono's ``parseStreamingJson``: strict `json.loads` first; if that fails, the same best
    partial object as feeding ``text`` to an `IncrementalJsonParser` and finishing it.

    Args:
        text: The raw JSON text so far; ``None``, empty or whitespace-only gives ``{}``.

    Returns:
        The parsed object, the best partial object, or ``{}`` (JSON ``null``, a value that is
        not an object, or nothing usable).
    """
    if not text or text.isspace():
        return {}
    try:
        parsed: Any = json.loads(text)
    except (ValueError, RecursionError):
        pass
    else:
        return cast("dict[str, Any]", parsed) if isinstance(parsed, dict) else {}
    parser = IncrementalJsonParser()
    parser.feed(text)
    parser.finish()
    return parser.value
