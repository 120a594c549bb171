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
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, TypeAdapter, ValidationError

from .errors import ConfigurationError, SessionFileError
from .types import Message, WireModel

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
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


def _encode(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: kept exactly as JSON \\u escapes
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text


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
    except (TypeError, ValueError) as exc:
        raise SessionFileError(f"cannot save message {index}: not JSON data ({exc})") from exc


def dumps_session(messages: Iterable[Any], *, metadata: Mapping[str, Any] | None = None) -> str:
    """Return the session file text for ``messages`` (see the module docstring).

    Args:
        messages: Transcript entries (LLM messages, custom message models, or dicts with a
            ``role``).
        metadata: Free-form JSON data stored in the header.

    Raises:
        SessionFileError: an entry is not a message, has no ``role``, or holds data that is not
            JSON (e.g. a non-finite float or an object in ``details``).
    """
    header = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "metadata": dict(metadata or {})}
    try:
        lines = [_encode(header)]
    except (TypeError, ValueError) as exc:
        raise SessionFileError(f"cannot save session metadata: not JSON data ({exc})") from exc
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
        OSError: the file cannot be written (the previous file, if any, is untouched).
    """
    target = Path(path)
    text = dumps_session(messages, metadata=metadata)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def _llm_message(data: dict[str, Any]) -> Message:
    if not _message_adapter:
        _message_adapter.append(TypeAdapter(Message))
    return _message_adapter[0].validate_python(data)


def _entry_from_json(data: dict[str, Any]) -> Any:
    try:
        from .messages import agent_message_from_dict
    except ImportError:  # pragma: no cover - the registry ships with pi_sdk
        if data["role"] in ("user", "assistant", "toolResult"):
            return _llm_message(data)
        return data
    try:
        return agent_message_from_dict(data)
    except ConfigurationError:  # a role nobody registered: keep the raw entry
        return data


def _describe_validation(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "message"
    more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}: {first['msg']}{more}"


def _parse_header(line: str) -> dict[str, Any]:
    try:
        header = json.loads(line)
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

    Raises:
        SessionFileError: empty text, a bad header, a newer format version, a line that is not a
            JSON object with a string ``role``, or an LLM message that does not validate. The
            message names the line (1-based).
    """
    lines = [line.removesuffix("\r") for line in text.split("\n")]  # not splitlines(): U+2028
    if not lines or not lines[0].strip():
        raise SessionFileError("empty session file (no header line)")
    header = _parse_header(lines[0])
    messages: list[Any] = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SessionFileError(f"line {number}: invalid JSON ({exc.msg})") from exc
        if not isinstance(data, dict) or not isinstance(data.get("role"), str):  # pyright: ignore[reportUnknownMemberType]
            raise SessionFileError(f"line {number}: not a message (no string 'role')")
        try:
            messages.append(_entry_from_json(cast(dict[str, Any], data)))
        except ValidationError as exc:
            raise SessionFileError(
                f"line {number}: invalid {data['role']} message: {_describe_validation(exc)}"
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
            :func:`loads_session`); nothing is loaded.
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
