"""pi-coding-agent session files, read and written beside pi-sdk's own format.

pi-coding-agent (pi-mono ``packages/coding-agent``, ``core/session-manager.ts``, format version
3) keeps a session as JSON lines: a header ``{"type": "session", "version": 3, "id", "timestamp",
"cwd"}``, then entries ``{"type", "id", "parentId", "timestamp", ...}`` forming a tree
(``parentId`` points at the entry before; a branch is a second child). Entry types: ``message``
(an LLM or custom message), ``custom_message`` (an extension's message for the model),
``custom`` (an extension's state, never sent to the model), ``compaction``, ``branch_summary``,
``model_change``, ``thinking_level_change``, ``label``, ``session_info``; pi keeps the ones it
does not know. The leaf is the last entry of the file; the conversation is the path from the
root to the leaf (pi's ``buildSessionContext``).

:func:`import_pi_session` reads one into a :class:`PiSession`: its ``messages`` are the
conversation at the leaf, as pi would send it (a compaction's summary first, then the kept
messages; branch summaries and extensions' messages as :mod:`pi_sdk._wire.pi_messages` types),
ready for ``Agent(messages=...)``; every entry of every branch is kept in ``entries``.
:func:`export_pi_session` hands a transcript back: given the imported session as ``base``, it
writes the base file's lines unchanged (all branches, custom entries, labels) and appends the
transcript's new messages as entries under the leaf, so pi opens the continued conversation;
a transcript that rewrote history branches from the last message it shares. Without ``base`` it
writes a new pi session.
"""

from __future__ import annotations

import os
import secrets
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError

from pi_sdk._agent.entry_errors import describe_validation
from pi_sdk._agent.jsonl import JsonLines, read_version
from pi_sdk._agent.messages import agent_message_from_dict
from pi_sdk._agent.session import encode_checked, message_data
from pi_sdk._wire.pi_messages import PiBranchSummary, PiCompactionSummary, PiCustomMessage
from pi_sdk._wire.private_file import write_atomically
from pi_sdk.errors import ConfigurationError, SessionFileError

__all__ = ["PI_SESSION_VERSION", "PiSession", "export_pi_session", "import_pi_session"]

PI_SESSION_VERSION = 3
"""The pi-coding-agent session version read and written (``CURRENT_SESSION_VERSION``, 0.73)."""


@dataclass
class PiSession:
    """A pi-coding-agent session: the conversation at its leaf, and the whole tree."""

    header: dict[str, Any]
    """The ``session`` header line (``id``, ``cwd``, ``timestamp``, ...)."""
    entries: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    """Every entry of the file in file order, every branch included, as JSON objects
    (e.g. the extension state: ``[e for e in s.entries if e["type"] == "custom"]``)."""
    leaf_id: str | None = None
    """The entry the conversation ends at (pi's leaf: the last entry; ``None`` if empty)."""
    messages: list[Any] = field(default_factory=list[Any])
    """The conversation from the root to the leaf, as pi's ``buildSessionContext`` gives it."""
    model: dict[str, Any] | None = None
    """``{"provider", "modelId"}`` of the last model change or assistant message on the path."""
    thinking_level: str = "off"
    """The last thinking level set on the path."""
    truncated: bool = False
    """The file lost its tail (a cut last line) and was read with ``allow_truncated=True``."""
    _lines: list[str] = field(default_factory=list[str], repr=False)
    """The file's lines (header first) as they were, to be written back unchanged."""
    _sources: list[str] = field(default_factory=list[str], repr=False)
    """The id of the entry each message of ``messages`` comes from."""
    _fixed: int = field(default=0, repr=False)
    """How many leading ``messages`` a branch cannot start inside (a compaction's part)."""


def _iso(ms: int) -> str:
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _ms(value: Any, number: int) -> int:
    try:
        moment = datetime.fromisoformat(cast(str, value))
    except (TypeError, ValueError):
        raise SessionFileError(f"line {number}: invalid timestamp {value!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - datetime(1970, 1, 1, tzinfo=UTC)) // _MILLISECOND


_MILLISECOND = datetime.fromtimestamp(0.001, tz=UTC) - datetime.fromtimestamp(0, tz=UTC)


def _entry_message(entry: dict[str, Any], number: int) -> Any:
    """The conversation message an entry gives, or ``None`` (pi's ``appendMessage`` rule)."""
    kind = entry["type"]
    try:
        if kind == "message":
            data = entry.get("message")
            if not isinstance(data, dict) or not isinstance(data.get("role"), str):  # pyright: ignore[reportUnknownMemberType]
                raise SessionFileError(f"line {number}: a message entry without a message")
            data = cast(dict[str, Any], data)
            try:
                return agent_message_from_dict(data)
            except ConfigurationError:  # a role nobody registered: kept as it was
                return data
            except ValidationError as exc:
                raise SessionFileError(
                    f"line {number}: invalid {data['role']} message:"
                    f" {describe_validation(exc, data)}"
                ) from exc
        if kind == "custom_message":
            return PiCustomMessage.model_validate(
                {k: v for k, v in entry.items() if k not in ("type", "id", "parentId")}
                | {"timestamp": _ms(entry.get("timestamp"), number)}
            )
        if kind == "branch_summary" and entry.get("summary"):
            return PiBranchSummary(
                summary=entry["summary"],
                from_id=entry.get("fromId", "root"),
                timestamp=_ms(entry.get("timestamp"), number),
            )
    except ValidationError as exc:
        raise SessionFileError(
            f"line {number}: invalid {kind} entry: {describe_validation(exc, entry)}"
        ) from exc
    return None


def _migrate(entries: list[dict[str, Any]], version: int) -> None:
    """Migrate like pi, in place: v1 had no tree (ids in file order), v2 said ``hookMessage``."""
    if version < 2:
        previous: str | None = None
        for index, entry in enumerate(entries):
            entry["id"], entry["parentId"] = f"{index:08x}", previous
            previous = entry["id"]
        for entry in entries:
            first_kept = entry.pop("firstKeptEntryIndex", None)
            if entry["type"] == "compaction" and isinstance(first_kept, int) and first_kept >= 1:
                if first_kept - 1 < len(entries):  # the index counted the header
                    entry["firstKeptEntryId"] = entries[first_kept - 1]["id"]
    for entry in entries:
        message = entry.get("message")
        if entry["type"] == "message" and isinstance(message, dict):
            message = cast(dict[str, Any], message)
            if message.get("role") == "hookMessage":
                message["role"] = "custom"


def _header(number: int, value: Any) -> dict[str, Any]:
    if number != 1 or not isinstance(value, dict):
        raise SessionFileError("line 1: not a pi-coding-agent session header")
    header = cast(dict[str, Any], value)
    if header.get("type") != "session" or not isinstance(header.get("id"), str):
        if header.get("format") == "pi-sdk-session":
            raise SessionFileError(
                "line 1: this is a pi-sdk session file; read it with pi_sdk.load_session"
            )
        raise SessionFileError(
            "line 1: not a pi-coding-agent session header (expected type 'session' and an id)"
        )
    read_version(
        header.get("version", 1), newest=PI_SESSION_VERSION, name="pi session", verb="import"
    )
    return header


def _parse(data: bytes | str, *, leaf_id: str | None, allow_truncated: bool) -> PiSession:
    lines = JsonLines(data)
    first, values = lines.header("empty pi session file")
    header = _header(*first)
    version = cast(int, header.get("version", 1))
    entries: list[dict[str, Any]] = []
    numbers: list[int] = []
    for number, value in values:
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):  # pyright: ignore[reportUnknownMemberType]
            raise SessionFileError(f"line {number}: not a session entry (no string 'type')")
        entry = cast(dict[str, Any], value)
        if version >= 2 and not isinstance(entry.get("id"), str):
            raise SessionFileError(f"line {number}: a {entry['type']} entry without a string id")
        entries.append(entry)
        numbers.append(number)
    if lines.cut is not None and not allow_truncated:
        raise SessionFileError(
            f"{lines.cut}: the file was cut short; pass allow_truncated=True to load the entries"
            " before it"
        )
    raw = lines.texts
    if version < PI_SESSION_VERSION:  # written back migrated, as pi rewrites such a file
        _migrate(entries, version)
        header = {**header, "version": PI_SESSION_VERSION}
        raw = [encode_checked(v, "cannot migrate the session") for v in [header, *entries]]
    session = PiSession(header=header, entries=entries, truncated=lines.cut is not None)
    session._lines = raw  # pyright: ignore[reportPrivateUsage]
    _follow_leaf(session, numbers, leaf_id)
    return session


def _follow_leaf(session: PiSession, numbers: Sequence[int], leaf_id: str | None) -> None:
    """Fill the conversation fields from the path root → leaf (pi ``buildSessionContext``)."""
    entries = session.entries
    by_id = {entry["id"]: (entry, number) for entry, number in zip(entries, numbers, strict=True)}
    if leaf_id is not None and leaf_id not in by_id:
        raise SessionFileError(f"no entry with id {leaf_id!r} to continue from")
    if leaf_id is None and entries:
        leaf_id = entries[-1]["id"]
    session.leaf_id = leaf_id
    path: list[tuple[dict[str, Any], int]] = []
    seen: set[str] = set()
    current = by_id.get(leaf_id) if leaf_id is not None else None
    while current is not None and current[0]["id"] not in seen:
        path.append(current)
        seen.add(current[0]["id"])
        parent = current[0].get("parentId")
        current = by_id.get(parent) if isinstance(parent, str) else None
    path.reverse()
    compaction: int | None = None
    for index, (entry, _) in enumerate(path):
        kind = entry["type"]
        if kind == "thinking_level_change":
            session.thinking_level = str(entry.get("thinkingLevel"))
        elif kind == "model_change":
            session.model = {"provider": entry.get("provider"), "modelId": entry.get("modelId")}
        elif kind == "message" and isinstance(entry.get("message"), dict):
            message = cast(dict[str, Any], entry["message"])
            if message.get("role") == "assistant":
                session.model = {
                    "provider": message.get("provider"),
                    "modelId": message.get("model"),
                }
        elif kind == "compaction":
            compaction = index
    emitted = range(len(path))
    if compaction is not None:
        entry, number = path[compaction]
        try:
            summary = PiCompactionSummary.model_validate(
                {
                    "summary": entry.get("summary"),
                    "tokensBefore": entry.get("tokensBefore"),
                    "timestamp": _ms(entry.get("timestamp"), number),
                }
            )
        except ValidationError as exc:
            raise SessionFileError(
                f"line {number}: invalid compaction entry: {describe_validation(exc, entry)}"
            ) from exc
        session.messages.append(summary)
        session._sources.append(entry["id"])  # pyright: ignore[reportPrivateUsage]
        kept_ids = [e["id"] for e, _ in path[:compaction]]
        first_kept = entry.get("firstKeptEntryId")
        start = kept_ids.index(first_kept) if first_kept in kept_ids else compaction
        emitted = [*range(start, compaction), *range(compaction + 1, len(path))]
    for index in emitted:
        entry, number = path[index]
        message = _entry_message(entry, number)
        if message is not None:
            session.messages.append(message)
            session._sources.append(entry["id"])  # pyright: ignore[reportPrivateUsage]
    if compaction is not None:  # the summary and the kept messages: no branch starts there
        session._fixed = 1 + sum(  # pyright: ignore[reportPrivateUsage]
            1 for i in emitted if i < compaction and _entry_message(*path[i]) is not None
        )


def import_pi_session(
    path: str | os.PathLike[str], *, leaf_id: str | None = None, allow_truncated: bool = False
) -> PiSession:
    """Read a pi-coding-agent session file (versions 1-3; older ones migrated as pi does).

    Args:
        path: The ``.jsonl`` file (pi keeps them in ``~/.pi/agent/sessions/<cwd>/``).
        leaf_id: The entry to continue from, for another branch than pi's (the last entry).
        allow_truncated: For a file whose last line was cut (pi appends one line per entry;
            a crash can leave half of one), load the complete entries instead of raising.

    Returns:
        A :class:`PiSession`; ``messages`` is the conversation at the leaf.

    Raises:
        SessionFileError: the file is not a pi session, is from a newer version, holds a line
            that is not JSON (pi itself skips such lines silently; pi-sdk refuses, so nothing is
            lost unnoticed) or an invalid message, or lost its tail (without
            ``allow_truncated``); ``leaf_id`` is unknown. The message starts with the path and
            names the line.
        OSError: the file cannot be read.
    """
    try:
        return _parse(Path(path).read_bytes(), leaf_id=leaf_id, allow_truncated=allow_truncated)
    except SessionFileError as exc:
        raise SessionFileError(f"{os.fspath(path)}: {exc}") from exc


def _uuid7() -> str:
    """A version-7 UUID (time-ordered), as pi names sessions."""
    value = (time.time_ns() // 1_000_000) << 80 | secrets.randbits(80)
    value = value & ~(0xF << 76) | 7 << 76  # version
    value = value & ~(0x3 << 62) | 0x2 << 62  # variant
    return str(uuid.UUID(int=value))


def _new_id(taken: set[str]) -> str:
    """A new entry id as pi makes them: 8 hex digits, unique in the file."""
    while True:
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            taken.add(candidate)
            return candidate


def _new_entry(message: Any, index: int, entry_id: str, parent: str | None) -> dict[str, Any]:
    if isinstance(message, PiCompactionSummary | PiBranchSummary):
        raise SessionFileError(
            f"cannot export message {index}: a {message.role} made outside pi cannot be handed"
            " to pi-coding-agent (pi records summaries as entries of the tree, not as messages)"
        )
    data = message_data(message, index, verb="export")
    timestamp = data.get("timestamp")
    when = _iso(timestamp) if isinstance(timestamp, int) else _iso(time.time_ns() // 1_000_000)
    if isinstance(message, PiCustomMessage):
        fields = {k: v for k, v in data.items() if k not in ("role", "timestamp")}
        return {
            "type": "custom_message",
            **fields,
            "id": entry_id,
            "parentId": parent,
            "timestamp": when,
        }
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": when,
        "message": data,
    }


def export_pi_session(
    path: str | os.PathLike[str],
    messages: Iterable[Any],
    *,
    base: PiSession | None = None,
    cwd: str | None = None,
) -> PiSession:
    """Write a transcript as a pi-coding-agent session file (version 3), atomically.

    Args:
        path: The target file; its folder must exist (``pi --session <path>`` opens it; pi
            lists the files in ``~/.pi/agent/sessions/<cwd>/``).
        messages: The transcript (e.g. ``agent.messages``).
        base: The session the transcript continues (from :func:`import_pi_session`): its
            lines are written back unchanged, every branch and entry kept, and the messages
            after ``base.messages`` are appended under its leaf. If the transcript differs from
            ``base.messages`` (history rewritten), the new messages start a branch after the
            last message both share. Without ``base``, a new session.
        cwd: The header's working directory for a new session (default: the current one).

    Returns:
        The written session, as :func:`import_pi_session` reads it (a base for the next
        export).

    Raises:
        SessionFileError: a message is not JSON data; a compaction or branch summary made in
            pi-sdk (pi keeps them as tree entries); a rewrite that reaches into the part of the
            conversation a compaction replaced. Nothing is written.
        OSError: as :func:`pi_sdk.save_session`.
    """
    transcript = list(messages)
    if base is None:
        header = {
            "type": "session",
            "version": PI_SESSION_VERSION,
            "id": _uuid7(),
            "timestamp": _iso(time.time_ns() // 1_000_000),
            "cwd": os.getcwd() if cwd is None else cwd,
        }
        lines = [encode_checked(header, "cannot export the session header")]
        parent: str | None = None
        shared = 0
        taken: set[str] = set()
    else:
        lines = list(base._lines)  # pyright: ignore[reportPrivateUsage]
        taken = {entry["id"] for entry in base.entries}
        shared = 0
        for mine, theirs in zip(transcript, base.messages, strict=False):
            if mine != theirs:
                break
            shared += 1
        if shared == len(base.messages):
            parent = base.leaf_id
        elif shared < base._fixed:  # pyright: ignore[reportPrivateUsage]
            raise SessionFileError(
                f"cannot export: the transcript differs from the pi session at message {shared},"
                " inside the part a compaction summarized; pi cannot branch there (export"
                " without base= for a new session)"
            )
        else:
            source = base._sources[shared]  # pyright: ignore[reportPrivateUsage]
            parent = next(e for e in base.entries if e["id"] == source).get("parentId")
    for index in range(shared, len(transcript)):
        entry = _new_entry(transcript[index], index, _new_id(taken), parent)
        lines.append(encode_checked(entry, f"cannot export message {index}"))
        parent = entry["id"]
    text = "\n".join(lines) + "\n"
    session = _parse(text, leaf_id=None, allow_truncated=False)
    write_atomically(Path(path), text, what="pi session")
    return session
