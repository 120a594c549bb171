"""JSON lines on disk, shared by the session formats: strict codec and tail check.

* **Strict JSON** (RFC 8259) both ways, by :mod:`pi_sdk._wire.strict_json`: ``NaN`` /
  ``Infinity``, numbers beyond the float range, integers longer than Python converts (4,300
  digits) and values nested deeper than :data:`MAX_NESTING` levels are refused, on reading as a
  :class:`pi_sdk.SessionFileError` naming the line. Lone surrogates are written as JSON escapes,
  as JavaScript's ``JSON.stringify`` does, and everything else as UTF-8.
* **Lines, named**: :func:`read_lines` splits a file into numbered lines; bytes that are not
  UTF-8 are reported with their line, and a last line that lacks the newline every writer puts
  after each line is handed back separately, so that a format can tell a cut tail (a JSON object
  that never closes, a multi-byte character split at the end) from a complete line.
* **Atomic writes**: :func:`pi_sdk._wire.private_file.write_atomically` (the formats' writers
  call it) writes a temporary file in the target's folder, flushes it to disk and renames it
  over the target.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pi_sdk._wire.strict_json import (
    MAX_NESTING,
    NestingError,
    StrictJsonError,
    dumps_strict,
    loads_strict,
)
from pi_sdk.errors import SessionFileError

__all__ = [
    "MAX_NESTING",
    "JsonLines",
    "Lines",
    "NestingError",
    "StrictJsonError",
    "decode_line",
    "encode_json",
    "not_json_reason",
    "read_lines",
    "read_version",
]


def encode_json(value: Any) -> str:
    """One line of compact JSON for ``value`` (no newline): :func:`dumps_strict`.

    Raises:
        StrictJsonError: ``NaN``, an integer longer than Python converts, nesting deeper than
            :data:`MAX_NESTING` (a :class:`NestingError`).
        TypeError: not JSON data (an object); see :func:`not_json_reason`.
    """
    return dumps_strict(value)


def not_json_reason(exc: TypeError | ValueError) -> str:
    """Why :func:`encode_json` refused a value, in a user's words."""
    if isinstance(exc, StrictJsonError):
        return str(exc)
    return f"not JSON data ({exc})"


def decode_line(line: str, number: int) -> Any:
    """Parse one line as strict JSON, as :func:`encode_json` would write it.

    Raises:
        json.JSONDecodeError: invalid JSON.
        SessionFileError: ``NaN`` / ``Infinity`` / an out-of-range number, an integer longer
            than Python converts, or nesting deeper than :data:`MAX_NESTING` (the message
            starts with ``line <number>:``).
    """
    try:
        return loads_strict(line)
    except StrictJsonError as exc:
        raise SessionFileError(f"line {number}: {exc}") from None


@dataclass
class Lines:
    """A file split into lines (see :func:`read_lines`)."""

    complete: list[tuple[int, str]] = field(default_factory=list[tuple[int, str]])
    """``(line number, text)`` of every non-blank line that ends with a newline (1-based; a
    trailing CR and a leading byte-order mark removed)."""
    last: tuple[int, str] | None = None
    """The final line when no newline follows it (non-blank): either a complete line whose
    writer left out the last newline (a hand edit) or the start of a line that was cut off;
    the format decides (a JSON object that does not close was cut)."""
    split_character: int | None = None
    """The number of the final line when the file ends inside a multi-byte UTF-8 character:
    that line was cut (it is neither in ``complete`` nor ``last``)."""


def _utf8_error(raw: bytes, exc: UnicodeDecodeError) -> SessionFileError:
    line_start = raw.rfind(b"\n", 0, exc.start) + 1
    number = raw.count(b"\n", 0, exc.start) + 1
    return SessionFileError(
        f"line {number}: not UTF-8 text ({exc.reason} at byte {exc.start - line_start + 1}"
        " of the line)"
    )


def read_lines(data: bytes | str) -> Lines:
    """Split file contents into numbered lines (at LF, not ``str.splitlines``: U+2028 is text).

    Raises:
        SessionFileError: bytes that are not UTF-8 before the last line end, or anywhere but a
            character cut at the very end (``line <n>: not UTF-8 text (<reason> at byte <k> of
            the line)``).
    """
    split_character: int | None = None
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            cut_at_end = exc.reason == "unexpected end of data" and b"\n" not in data[exc.start :]
            if not cut_at_end:
                raise _utf8_error(data, exc) from exc
            split_character = data.count(b"\n") + 1
            # The error is the first one: every line before the cut one is UTF-8 already.
            text = data[: data.rfind(b"\n") + 1].decode("utf-8")
    else:
        text = data
    text = text.removeprefix("\ufeff")
    pieces = text.split("\n")
    tail = pieces.pop()  # after the last newline: "" when the file ends with one
    result = Lines(split_character=split_character)
    for number, piece in enumerate(pieces, start=1):
        line = piece.removesuffix("\r")
        if line.strip():
            result.complete.append((number, line))
    if split_character is None and tail.strip():
        result.last = (len(pieces) + 1, tail.removesuffix("\r"))
    return result


class JsonLines:
    """The JSON value of each line of a file, in order, noticing a line cut off at the end.

    Iterating yields ``(line number, value)``; a line that is not JSON raises
    :class:`pi_sdk.SessionFileError` (``line <n>: invalid JSON (<reason>)``), except the final
    line when no newline follows it: one that is not JSON was cut short, so it is left out and
    :attr:`cut` says so once iteration ends (a final line that parses is yielded: a writer, or an
    editor, left out the last newline).
    """

    def __init__(self, data: bytes | str) -> None:
        """Split ``data`` (see :func:`read_lines`; raises what it raises)."""
        self._lines = read_lines(data)
        self.cut: str | None = None
        """``None``, or why the final line counts as cut: ``line <n>: the file ends inside
        this line (<what>)``."""
        self.cut_line: int | None = None
        """The number of the line that was cut."""
        self.texts: list[str] = []
        """The text of every line yielded so far, in order (to write them back unchanged)."""
        if self._lines.split_character is not None:
            self._cut(self._lines.split_character, "inside a multi-byte UTF-8 character")

    def header(self, empty: str) -> tuple[tuple[int, Any], Iterator[tuple[int, Any]]]:
        """The first line's ``(number, value)`` and an iterator over the rest.

        Raises:
            SessionFileError: no line (``<empty> (no header line)``) or the only line was cut.
        """
        values = iter(self)
        first = next(values, None)
        if first is None:
            if self.cut is not None:
                raise SessionFileError(f"{self.cut}: the header was cut short, nothing to load")
            raise SessionFileError(f"{empty} (no header line)")
        return first, values

    def _cut(self, number: int, what: str) -> None:
        self.cut_line = number
        self.cut = f"line {number}: the file ends inside this line ({what})"

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        """Yield ``(line number, value)`` for every complete line."""
        for number, line in self._lines.complete:
            try:
                value = decode_line(line, number)
            except json.JSONDecodeError as exc:
                raise SessionFileError(f"line {number}: invalid JSON ({exc.msg})") from exc
            self.texts.append(line)
            yield number, value
        if self._lines.last is not None:
            number, line = self._lines.last
            try:
                value = decode_line(line, number)
            except json.JSONDecodeError as exc:
                if exc.msg == "Extra data":  # the value ended: something else follows it
                    raise SessionFileError(f"line {number}: invalid JSON ({exc.msg})") from exc
                self._cut(number, f"a JSON value that does not end: {exc.msg}")
                return
            self.texts.append(line)
            yield number, value


def read_version(value: Any, *, newest: int, name: str, verb: str) -> int:
    """Check a header's format version: an integer from 1 to ``newest``.

    Raises:
        SessionFileError: ``line 1: invalid <name> version ...``, or a version newer than
            ``newest`` (``... upgrade pi-sdk to <verb> it``).
    """
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise SessionFileError(f"line 1: invalid {name} version {value!r}")
    if value > newest:
        raise SessionFileError(
            f"{name} version {value} is newer than this pi-sdk reads ({newest}); upgrade pi-sdk"
            f" to {verb} it"
        )
    return value
