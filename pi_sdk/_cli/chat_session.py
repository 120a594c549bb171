"""The session file of ``pi-sdk chat``: which one it opens, how it loads, and what ``-c`` finds.

* **Which file**: ``--session FILE``; else, with ``--continue``, the session the chat saved
  last (:func:`latest_session`); else a new file in ``sessions/`` of the data folder.
* **``--continue`` follows the session**: every successful save records the file's absolute
  path in ``last-session`` of the data folder (mode 0600), so a session that ``/save FILE`` (or
  ``--session FILE``) moved out of ``sessions/`` is the one continued. ``--continue`` takes the
  most recently written of that file and the files of ``sessions/``; when the recorded file is
  gone it says so and continues the newest of ``sessions/``.
* **A cut file** (one that lost its tail: :func:`pi_sdk.load_session`) stops the chat with the
  library's description and the CLI's fix, ``--allow-truncated``. With it, the complete entries
  are loaded and the cut file is left as it is: the chat saves to a new file of ``sessions/``.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_sdk._agent.session import load_session
from pi_sdk._cli.common import UsageError, plural
from pi_sdk._cli.hints import truncated_hint
from pi_sdk._cli.paths import data_dir, private_dir, sessions_dir
from pi_sdk._wire.agent_types import AgentMessage
from pi_sdk.errors import SessionFileError

__all__ = ["ChatSession", "latest_session", "new_session_path", "open_session", "record_saved"]

_POINTER = "last-session"


@dataclass
class ChatSession:
    """The session a chat starts from."""

    path: Path
    """Where the chat saves."""
    messages: list[AgentMessage] = field(default_factory=list[AgentMessage])
    metadata: dict[str, Any] = field(default_factory=dict[str, Any])
    notes: list[str] = field(default_factory=list[str])
    """What to tell the user before the first prompt (a moved or cut session)."""


def new_session_path() -> Path:
    """A new, unused file name in ``sessions/`` (``20261202-101500-123456.jsonl``).

    The local time to the second, then the clock's nanoseconds modulo 10**6 (six digits);
    when that file exists already (another chat started at the same moment), the next number
    that is free: a new chat never opens, and so continues, another chat's session.
    """
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = sessions_dir()
    number = time.time_ns() % 1_000_000
    while (path := folder / f"{stamp}-{number:06d}.jsonl").exists():
        number = (number + 1) % 1_000_000
    return path


def record_saved(path: Path) -> None:
    """Remember ``path`` as the session saved last (for ``--continue``).

    Best effort: a pointer that cannot be written leaves ``--continue`` with the newest file of
    ``sessions/``, which is what it did before pointers existed.
    """
    folder = data_dir()
    try:
        private_dir(folder)
        descriptor, name = tempfile.mkstemp(prefix=f".{_POINTER}.", dir=folder)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(os.fspath(path.resolve()) + "\n")
        os.replace(name, folder / _POINTER)
    except OSError:
        return


def _recorded() -> Path | None:
    try:
        text = (data_dir() / _POINTER).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return Path(text) if text else None


def latest_session() -> tuple[Path, str | None]:
    """The session ``--continue`` continues, and a note when the recorded one is gone.

    Returns:
        The most recently written of the session the chat saved last and the files of
        ``sessions/``; and ``None``, or a line saying the recorded file no longer exists.

    Raises:
        UsageError: there is no session at all.
    """
    folder = sessions_dir()
    candidates = list(folder.glob("*.jsonl")) if folder.is_dir() else []
    recorded = _recorded()
    gone: str | None = None
    if recorded is not None:
        if recorded.is_file():
            candidates.append(recorded)
        else:
            gone = f"the session saved last, {recorded}, no longer exists"
    if not candidates:
        where = f"{gone}, and there is none in {folder}" if gone else f"no session in {folder}"
        raise UsageError(f"nothing to continue: {where} (`pi-sdk chat` writes them there)")
    latest = max(candidates, key=lambda path: path.stat().st_mtime)
    return latest, (f"{gone}; continuing {latest}" if gone else None)


def _empty_file(path: Path) -> bool:
    return path.is_file() and path.stat().st_size == 0


def open_session(
    session: Path | None, *, resume: bool, allow_truncated: bool = False
) -> ChatSession:
    """The chat's session file and what it holds (see the module docstring).

    Args:
        session: ``--session FILE``, loaded when it exists and is not empty.
        resume: ``--continue``.
        allow_truncated: ``--allow-truncated``: load the complete entries of a cut file.

    Raises:
        UsageError: the folder of ``session`` does not exist, the file cannot be read, it lost
            its tail (without ``allow_truncated``; the message names ``--allow-truncated``),
            or there is nothing to continue.
        SessionFileError: the file is not a valid session (the message names the line).
    """
    notes: list[str] = []
    if session is not None:
        path = session
    elif resume:
        path, note = latest_session()
        notes += [note] if note else []
    else:
        path = new_session_path()
    if not path.exists() or _empty_file(path):  # `touch`, mktemp: a new one
        if session is not None and not path.parent.is_dir():
            raise UsageError(f"--session {path}: the folder {path.parent} does not exist")
        return ChatSession(path, notes=notes)
    try:
        loaded = load_session(path, allow_truncated=allow_truncated)
    except OSError as exc:
        raise UsageError(f"cannot read the session {path}: {exc.strerror}") from None
    except SessionFileError as exc:
        hint = truncated_hint(str(exc))
        if hint is None:
            raise
        raise UsageError(hint) from None
    result = ChatSession(path, list(loaded.messages), dict(loaded.metadata), notes)
    if loaded.truncated:
        result.path = new_session_path()
        notes.append(
            f"{path} was cut short: loaded its complete entries"
            f" ({plural(len(loaded.messages), 'entry', 'entries')}) and left it as it is; this"
            f" chat saves to {result.path}"
        )
    return result
