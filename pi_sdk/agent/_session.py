"""Session files: save and load a transcript as JSON lines, exactly.

Format (``pi-sdk-session``, version 1), UTF-8, one JSON object per line::

    {"format": "pi-sdk-session", "version": 1, "metadata": {...}}
    {"role": "user", "content": "weather in Paris?", "timestamp": 1733000000000}
    {"role": "assistant", "content": [...], "api": "anthropic-messages", ...}
    {"role": "toolResult", "toolCallId": "toolu_01", ...}
    {"role": "note", ...}                      <- a custom (plugin) message

The first line is the header; every other line is one transcript entry in pi-mono's message JSON
(camelCase names, epoch-ms timestamps; pi-spec §1.4), so a pi-mono reader can use the lines as
they are. ``metadata`` is free-form JSON for the application (e.g. the current model).

Guarantees:

* **Exact round trip**: ``load_session(save_session(...)).messages == messages``. Every opaque
  field survives untouched: thinking/text/thought signatures, OpenAI encrypted reasoning items,
  Responses item ids, ``signatureOrigin``, ``details``, fields pi-sdk does not know (kept as
  pydantic extras) and lone surrogates (written as JSON escapes). As in pi-mono, a field
  whose value is ``null`` is the same as an absent one.
* **Custom messages**: entries of types registered with :func:`pi_sdk.register_message_type`
  (or the ``register_message_types`` plugin hook) load back as those types; an entry whose role
  is not registered loads as the plain ``dict`` it was, so it is written back unchanged.
* **All or nothing**: :func:`load_session` reads and validates the whole file before returning
  anything; a malformed file or one from a newer format version raises
  :class:`pi_sdk.SessionFileError` (with the line number) and loads nothing.
  :func:`save_session` serializes everything first, then writes a temporary file in the same
  folder, flushes it to disk and renames it over the target, so a crash never leaves a
  half-written session.
* **Load and save accept the same data**: strict JSON (RFC 8259). ``NaN`` / ``Infinity`` (and
  numbers too large for a float, which would read as infinity) are refused by both: JSON has no
  such values, pi-mono's ``JSON.parse`` rejects them, and ``NaN != NaN`` would break the exact
  round trip. Values nested deeper than :data:`MAX_NESTING` levels are refused by both too, with
  a :class:`pi_sdk.SessionFileError` rather than a ``RecursionError``.
* **Tolerant of editors**: a UTF-8 byte-order mark at the start, CRLF line ends and blank
  lines are accepted; pi-sdk itself writes none of them.
"""

from __future__ import annotations

import errno
import json
import math
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, TypeAdapter, ValidationError

from pi_sdk.errors import ConfigurationError, SessionFileError
from pi_sdk.types import Message, WireModel

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MAX_NESTING",
    "Session",
    "dumps_session",
    "load_session",
    "loads_session",
    "save_session",
]

FORMAT_NAME = "pi-sdk-session"
"""Value of the header's ``format`` field."""

FORMAT_VERSION = 1
"""The newest format version this pi-sdk reads and the one it writes."""

MAX_NESTING = 500
"""Deepest JSON nesting (arrays and objects) a session line may have, on load and on save.

Python's JSON codec and ``==`` recurse on the C stack; 500 levels leave room for the caller's own
stack under the default recursion limit (1000) while being far beyond any real transcript.
"""

_message_adapter: list[TypeAdapter[Message]] = []


@dataclass
class Session:
    """A loaded session file."""

    messages: list[Any] = field(default_factory=list[Any])
    """Transcript entries: :class:`pi_sdk.UserMessage`, :class:`pi_sdk.AssistantMessage`,
    :class:`pi_sdk.ToolResultMessage`, registered custom message models, or plain ``dict`` for
    entries whose role is not registered."""
    metadata: dict[str, Any] = field(default_factory=dict[str, Any])
    """The header's free-form ``metadata``."""
    version: int = FORMAT_VERSION
    """Format version the file was written with."""


class _NestingError(ValueError):
    """A value nested deeper than :data:`MAX_NESTING`."""

    def __init__(self) -> None:
        super().__init__(f"nested deeper than {MAX_NESTING} levels")


def _nesting_exceeds_limit(value: Any) -> bool:
    """True if ``value`` (parsed JSON) nests deeper than :data:`MAX_NESTING` (iterative walk)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Iterable[Any] = cast(dict[str, Any], node).values()
        elif isinstance(node, list):
            children = cast(list[Any], node)
        else:
            continue
        if depth > MAX_NESTING:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _check_nesting(text: str, value: Any) -> None:
    # Cheap bound first: the nesting depth is at most the number of opening brackets.
    if text.count("[") + text.count("{") > MAX_NESTING and _nesting_exceeds_limit(value):
        raise _NestingError


def _encode(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: kept exactly as JSON \\u escapes
            text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    except RecursionError:
        raise _NestingError from None
    _check_nesting(text, value)
    return text


def _not_json(exc: TypeError | ValueError) -> str:
    if "Out of range float" in str(exc):  # the json module's words for NaN / Infinity
        return "NaN or Infinity is not JSON (pi-sdk saves only finite numbers)"
    return f"not JSON data ({exc})"


def _entry_to_json(entry: Any, index: int) -> str:
    if isinstance(entry, WireModel):
        # Python mode, so that JSON encoding rejects what would not round trip (NaN, objects)
        # instead of pydantic's JSON mode turning it into null or a string.
        data: Any = entry.model_dump(by_alias=True)
    elif isinstance(entry, BaseModel):  # a custom message: its own JSON serialization rules
        data = entry.model_dump(mode="json", by_alias=True)
    elif isinstance(entry, Mapping):
        data = dict(cast(Mapping[str, Any], entry))
    else:
        raise SessionFileError(
            f"cannot save message {index}: expected a message model or a dict,"
            f" got {type(entry).__name__}"
        )
    if not isinstance(data, dict) or not isinstance(data.get("role"), str):  # pyright: ignore[reportUnknownMemberType]
        raise SessionFileError(f"cannot save message {index}: it has no string 'role'")
    try:
        return _encode(data)
    except _NestingError as exc:
        raise SessionFileError(f"cannot save message {index}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise SessionFileError(f"cannot save message {index}: {_not_json(exc)}") from exc


def dumps_session(messages: Iterable[Any], *, metadata: Mapping[str, Any] | None = None) -> str:
    """Return the session file text for ``messages`` (see the module docstring).

    Args:
        messages: Transcript entries (LLM messages, custom message models, or dicts with a
            ``role``).
        metadata: Free-form JSON data stored in the header.

    Raises:
        SessionFileError: an entry is not a message, has no ``role``, or holds data that is not
            JSON (e.g. a non-finite float or an object in ``details``) or that nests deeper
            than :data:`MAX_NESTING` levels; the message names the entry (0-based index).
    """
    header = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "metadata": dict(metadata or {})}
    try:
        lines = [_encode(header)]
    except _NestingError as exc:
        raise SessionFileError(f"cannot save session metadata: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise SessionFileError(f"cannot save session metadata: {_not_json(exc)}") from exc
    lines.extend(_entry_to_json(entry, i) for i, entry in enumerate(messages))
    return "\n".join(lines) + "\n"


def save_session(
    path: str | os.PathLike[str],
    messages: Iterable[Any],
    *,
    metadata: Mapping[str, Any] | None = None,
) -> None:
    """Write ``messages`` to ``path`` atomically (temporary file + rename).

    Args:
        path: Target file; its folder must exist. An existing file is replaced only once the new
            one is completely on disk.
        messages: Transcript entries, as for :func:`dumps_session`.
        metadata: Free-form JSON data stored in the header.

    Raises:
        SessionFileError: the transcript cannot be serialized (nothing is written).
        FileNotFoundError: the folder does not exist (nothing is written).
        IsADirectoryError: ``path`` is a folder.
        OSError: the file cannot be written (the previous file, if any, is untouched). Every
            ``OSError`` names ``path``, never the temporary file.
    """
    target = Path(path)
    text = dumps_session(messages, metadata=metadata)
    if not target.parent.is_dir():
        raise FileNotFoundError(
            errno.ENOENT,
            f"cannot save session: folder {os.fspath(target.parent)!r} does not exist",
            os.fspath(target),
        )
    if target.is_dir():
        raise IsADirectoryError(
            errno.EISDIR, "cannot save session: the target is a folder", os.fspath(target)
        )
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _naming_target(exc, target) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException as exc:
        Path(tmp_name).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _naming_target(exc, target) from exc
        raise


def _naming_target(exc: OSError, target: Path) -> OSError:
    """The same kind of error, naming the target instead of the temporary file."""
    if exc.errno is None:  # not a system error: nothing names the temporary file
        return exc
    return type(exc)(exc.errno, f"cannot save session: {exc.strerror}", os.fspath(target))


def _llm_message(data: dict[str, Any]) -> Message:
    if not _message_adapter:
        _message_adapter.append(TypeAdapter(Message))
    return _message_adapter[0].validate_python(data)


def _entry_from_json(data: dict[str, Any]) -> Any:
    try:
        from pi_sdk.agent._messages import agent_message_from_dict
    except ImportError:  # pragma: no cover - the registry ships with pi_sdk
        if data["role"] in ("user", "assistant", "toolResult"):
            return _llm_message(data)
        return data
    try:
        return agent_message_from_dict(data)
    except ConfigurationError:  # a role nobody registered: keep the raw entry
        return data


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


def _describe_validation(exc: ValidationError, data: Any) -> str:
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


class _NonFiniteNumber(ValueError):
    """A JSON number that does not round trip: ``NaN`` / ``Infinity`` or out of float range."""


def _refuse_constant(token: str) -> Any:
    raise _NonFiniteNumber(
        f"{token} is not JSON (pi-sdk saves only finite numbers and refuses others on load)"
    )


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _NonFiniteNumber(
            f"number {token} is out of float range (it would load as {value}, which cannot be"
            " saved)"
        )
    return value


_decoder = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


def _decode_line(line: str, number: int) -> Any:
    """Parse one line as strict JSON, as :func:`dumps_session` would write it.

    Raises:
        json.JSONDecodeError: invalid JSON.
        SessionFileError: ``NaN`` / ``Infinity`` / an out-of-range number, or nesting deeper
            than :data:`MAX_NESTING`.
    """
    try:
        value = _decoder.decode(line)
        _check_nesting(line, value)
    except (_NonFiniteNumber, _NestingError) as exc:
        raise SessionFileError(f"line {number}: {exc}") from None
    except RecursionError:
        raise SessionFileError(f"line {number}: {_NestingError()}") from None
    return value


def _parse_header(line: str) -> dict[str, Any]:
    try:
        header = _decode_line(line, 1)
    except json.JSONDecodeError as exc:
        raise SessionFileError(f"line 1: not a session header (invalid JSON: {exc.msg})") from exc
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:  # pyright: ignore[reportUnknownMemberType]
        raise SessionFileError(f"line 1: not a {FORMAT_NAME} header")
    header = cast(dict[str, Any], header)
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SessionFileError(f"line 1: invalid format version {version!r}")
    if version > FORMAT_VERSION:
        raise SessionFileError(
            f"session file format version {version} is newer than this pi-sdk reads"
            f" ({FORMAT_VERSION}); upgrade pi-sdk to load it"
        )
    if not isinstance(header.get("metadata", {}), dict):
        raise SessionFileError("line 1: 'metadata' must be a JSON object")
    return header


def loads_session(text: str) -> Session:
    """Parse session file text; all or nothing.

    A leading byte-order mark (U+FEFF) is ignored.

    Raises:
        SessionFileError: empty text, a bad header, a newer format version, a line that is not
            strict JSON (``NaN``, nesting deeper than :data:`MAX_NESTING`) or not an object with
            a string ``role``, or a message that does not validate (an LLM message or a
            registered custom type). The message names the line (1-based), the role and the
            field, e.g. ``line 2: invalid user message: content[0]: unknown block type
            'audio' (expected 'text', 'image')``.
    """
    text = text.removeprefix("\ufeff")
    lines = [line.removesuffix("\r") for line in text.split("\n")]  # not splitlines(): U+2028
    if not lines or not lines[0].strip():
        raise SessionFileError("empty session file (no header line)")
    header = _parse_header(lines[0])
    messages: list[Any] = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            data = _decode_line(line, number)
        except json.JSONDecodeError as exc:
            raise SessionFileError(f"line {number}: invalid JSON ({exc.msg})") from exc
        if not isinstance(data, dict) or not isinstance(data.get("role"), str):  # pyright: ignore[reportUnknownMemberType]
            raise SessionFileError(f"line {number}: not a message (no string 'role')")
        data = cast(dict[str, Any], data)
        try:
            messages.append(_entry_from_json(data))
        except ValidationError as exc:
            raise SessionFileError(
                f"line {number}: invalid {data['role']} message: {_describe_validation(exc, data)}"
            ) from exc
    return Session(
        messages=messages,
        metadata=cast(dict[str, Any], header.get("metadata", {})),
        version=cast(int, header["version"]),
    )


def load_session(path: str | os.PathLike[str]) -> Session:
    """Read a session file written by :func:`save_session` (or by hand in the same format).

    Raises:
        SessionFileError: the file is not valid UTF-8 or not a valid session (see
            :func:`loads_session`); nothing is loaded. The message starts with the path.
        OSError: the file cannot be read.
    """
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SessionFileError(f"{os.fspath(path)}: not UTF-8 text ({exc.reason})") from exc
    try:
        return loads_session(text)
    except SessionFileError as exc:
        raise SessionFileError(f"{os.fspath(path)}: {exc}") from exc
