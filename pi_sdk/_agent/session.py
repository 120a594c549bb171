"""Session files: save and load a transcript as JSON lines, exactly.

Format (``pi-sdk-session``, version 1), UTF-8, one JSON object per line::

    {"format": "pi-sdk-session", "version": 1, "count": 4, "metadata": {...}}
    {"role": "user", "content": "weather in Paris?", "timestamp": 1733000000000}
    {"role": "assistant", "content": [...], "api": "anthropic-messages", ...}
    {"role": "toolResult", "toolCallId": "toolu_01", ...}
    {"role": "note", ...}                      <- a custom (plugin) message

The first line is the header; every other line is one transcript entry in pi-mono's message JSON
(camelCase names, epoch-ms timestamps; pi-spec §1.4), so a pi-mono reader can use the lines as
they are. ``metadata`` is free-form JSON for the application (e.g. the current model);
``count`` is the number of entry lines that follow, so that a file which lost its tail is noticed.

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
* **A lost tail is noticed**: a file cut inside a line (a JSON object that does not close, a
  multi-byte character split) ends without the newline every line gets, and a file cut at a line
  end holds fewer entries than the header's ``count``. Both raise :class:`pi_sdk.SessionFileError`
  saying so, unless the caller passes ``allow_truncated=True``, which loads the complete lines
  and sets :attr:`Session.truncated`. Files written before ``count`` existed (pi-sdk 0.x, same
  format version: older readers ignore the field) still load; for them only a cut inside a
  line can be noticed (:attr:`Session.count` is ``None``).
  :func:`save_session` serializes everything first, then writes a temporary file in the same
  folder, flushes it to disk and renames it over the target, so a crash never leaves a
  half-written session.
* **Load and save accept the same data**: strict JSON (RFC 8259). ``NaN`` / ``Infinity`` (and
  numbers too large for a float, which would read as infinity) are refused by both: JSON has no
  such values, pi-mono's ``JSON.parse`` rejects them, and ``NaN != NaN`` would break the exact
  round trip. Values nested deeper than :data:`MAX_NESTING` levels and integers longer than
  Python converts (``sys.get_int_max_str_digits()``, 4,300 digits) are refused by both too, with
  a :class:`pi_sdk.SessionFileError` naming the line rather than a ``RecursionError`` or a bare
  ``ValueError`` (:mod:`pi_sdk._wire.strict_json`).
* **Tolerant of editors**: a UTF-8 byte-order mark at the start, CRLF line ends and blank
  lines are accepted; pi-sdk itself writes none of them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, ValidationError

from pi_sdk._agent.entry_errors import describe_validation
from pi_sdk._agent.jsonl import (
    MAX_NESTING,
    JsonLines,
    StrictJsonError,
    encode_json,
    not_json_reason,
    read_version,
)
from pi_sdk._wire.private_file import write_atomically
from pi_sdk.errors import ConfigurationError, SessionFileError
from pi_sdk.types import WireModel

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
    count: int | None = None
    """The number of entries the header records (``None``: a file from before pi-sdk recorded
    it, whose tail cannot be checked at a line end)."""
    truncated: bool = False
    """The file lost its tail and was loaded with ``allow_truncated=True``: ``messages`` holds
    the complete entries before the cut (a trailing tool call may lack its result)."""


def message_data(entry: Any, index: int, *, verb: str = "save") -> dict[str, Any]:
    """The JSON object (pi-mono's message JSON) for one transcript entry, checked to encode.

    Raises:
        SessionFileError: ``cannot <verb> message <index>: ...`` for an entry that is not a
            message model or a dict with a string ``role``, or holds what is not JSON.
    """
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
            f"cannot {verb} message {index}: expected a message model or a dict,"
            f" got {type(entry).__name__}"
        )
    if not isinstance(data, dict) or not isinstance(data.get("role"), str):  # pyright: ignore[reportUnknownMemberType]
        raise SessionFileError(f"cannot {verb} message {index}: it has no string 'role'")
    return cast(dict[str, Any], data)


def encode_checked(value: Any, what: str) -> str:
    """:func:`encode_json`, its refusals as ``SessionFileError("<what>: <why>")``."""
    try:
        return encode_json(value)
    except StrictJsonError as exc:
        raise SessionFileError(f"{what}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise SessionFileError(f"{what}: {not_json_reason(exc)}") from exc


def _entry_to_json(entry: Any, index: int) -> str:
    return encode_checked(message_data(entry, index), f"cannot save message {index}")


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
    body = [_entry_to_json(entry, i) for i, entry in enumerate(messages)]
    header = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "count": len(body),
        "metadata": dict(metadata or {}),
    }
    head = encode_checked(header, "cannot save session metadata")
    return "\n".join([head, *body]) + "\n"


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
    text = dumps_session(messages, metadata=metadata)
    write_atomically(Path(path), text)


def _entry_from_json(data: dict[str, Any]) -> Any:
    from pi_sdk._agent.messages import agent_message_from_dict

    try:
        return agent_message_from_dict(data)
    except ConfigurationError:  # a role nobody registered: keep the raw entry
        return data


def _parse_header(number: int, header: Any) -> dict[str, Any]:
    if number != 1 or not isinstance(header, dict):
        raise SessionFileError(f"line 1: not a {FORMAT_NAME} header")
    header = cast(dict[str, Any], header)
    if header.get("format") != FORMAT_NAME:
        if header.get("type") == "session":
            raise SessionFileError(
                "line 1: this is a pi-coding-agent session (a 'session' header), not a"
                f" {FORMAT_NAME} file; read it with pi_sdk.agent.import_pi_session"
            )
        raise SessionFileError(f"line 1: not a {FORMAT_NAME} header")
    read_version(
        header.get("version"), newest=FORMAT_VERSION, name="session file format", verb="load"
    )
    count = header.get("count")
    if count is not None and (not isinstance(count, int) or isinstance(count, bool) or count < 0):
        raise SessionFileError(f"line 1: invalid count {count!r} (a number of entries)")
    if not isinstance(header.get("metadata", {}), dict):
        raise SessionFileError("line 1: 'metadata' must be a JSON object")
    return header


TRUNCATED_HINT = "; pass allow_truncated=True to load the entries before it"
"""How a lost-tail error ends (the command line puts its own option in its place)."""


def _message(number: int, data: Any) -> Any:
    if not isinstance(data, dict) or not isinstance(data.get("role"), str):  # pyright: ignore[reportUnknownMemberType]
        raise SessionFileError(f"line {number}: not a message (no string 'role')")
    data = cast(dict[str, Any], data)
    try:
        return _entry_from_json(data)
    except ValidationError as exc:
        raise SessionFileError(
            f"line {number}: invalid {data['role']} message: {describe_validation(exc, data)}"
        ) from exc


def _loads(data: bytes | str, *, allow_truncated: bool) -> Session:
    lines = JsonLines(data)
    first, values = lines.header("empty session file")
    header = _parse_header(*first)
    messages = [_message(number, value) for number, value in values]
    count = cast(int | None, header.get("count"))
    lost = ""
    if lines.cut is not None:
        lost = f"{lines.cut}: the file was cut short"
    if count is not None and len(messages) > count:
        raise SessionFileError(
            f"the file holds {len(messages)} entries but its header records {count}: lines were"
            " added after it was saved"
        )
    if count is not None and len(messages) < count:
        missing = count - len(messages)
        lost = (
            f"the header records {count} entries but the file holds {len(messages)}: the last"
            f" {missing} {'is' if missing == 1 else 'are'} missing (the file was cut short"
            + (f"; {lines.cut}" if lines.cut else "")
            + ")"
        )
    if lost and not allow_truncated:
        raise SessionFileError(lost + TRUNCATED_HINT)
    return Session(
        messages=messages,
        metadata=cast(dict[str, Any], header.get("metadata", {})),
        version=cast(int, header["version"]),
        count=count,
        truncated=bool(lost),
    )


def loads_session(text: str, *, allow_truncated: bool = False) -> Session:
    """Parse session file text; all or nothing.

    A leading byte-order mark (U+FEFF) is ignored.

    Args:
        text: The file's text.
        allow_truncated: Load the complete entries of a file that lost its tail (see
            :func:`load_session`) instead of raising; the result has ``truncated=True``.

    Raises:
        SessionFileError: empty text, a bad header, a newer format version, a line that is not
            strict JSON (``NaN``, nesting deeper than :data:`MAX_NESTING`) or not an object with
            a string ``role``, or a message that does not validate (an LLM message or a
            registered custom type); a lost tail (without ``allow_truncated``); more entries
            than the header's ``count``. The message names the line (1-based), the role and the
            field, e.g. ``line 2: invalid user message: content[0]: unknown block type
            'audio' (expected 'text', 'image')``.
    """
    return _loads(text, allow_truncated=allow_truncated)


def load_session(path: str | os.PathLike[str], *, allow_truncated: bool = False) -> Session:
    """Read a session file written by :func:`save_session` (or by hand in the same format).

    A file that lost its tail is noticed: one cut inside a line (the last line does not end with
    the newline pi-sdk writes after every line and is not complete JSON, or the file ends inside
    a multi-byte character) or at a line end (fewer entries than the header's ``count``).

    Args:
        path: The session file.
        allow_truncated: For a file that lost its tail, return the complete entries before the
            cut (``Session.truncated`` is then true) instead of raising. Every other problem
            still raises.

    Raises:
        SessionFileError: the file is not valid UTF-8 (the message names the line and byte), is
            not a valid session (see :func:`loads_session`), or lost its tail and
            ``allow_truncated`` is false; nothing is loaded. The message starts with the path.
        OSError: the file cannot be read.
    """
    raw = Path(path).read_bytes()
    try:
        return _loads(raw, allow_truncated=allow_truncated)
    except SessionFileError as exc:
        raise SessionFileError(f"{os.fspath(path)}: {exc}") from exc
