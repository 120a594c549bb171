"""FileModelsStore: the fetched model lists of every collection, in one owner-only JSON file.

The file is one JSON object, ``{"format": "pi-sdk-models-store", "version": 1, "entries":
{key: entry}}``, an entry being ``{"models": [...], "etag": ..., "lastModified": ...,
"fetchedAt": ...}`` with each model in pi-mono's JSON and only the fields its server gave (never a
header whose name says it holds a credential). It is written atomically (a 0600 temporary file
renamed over it, in a folder created 0700) under an exclusive lock on ``<file>.lock``, so two
processes refreshing at once neither corrupt it nor lose each other's lists. A file that cannot
be trusted (a link, another user's, readable or writable by others), or that is not such a JSON
object, is not used: one :class:`RuntimeWarning` says why and what happens next (an unreadable
one is moved aside to ``<file>.bad`` when the next list is saved; an untrusted one is
replaced). Reads are synchronous and served from memory while the file is unchanged.
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError

from pi_sdk._models.refresh import StoredModels
from pi_sdk._wire.private_file import locked, read_private, write_atomically
from pi_sdk._wire.redact import secret_header_values
from pi_sdk.types import Model

__all__ = ["FileModelsStore"]

_FORMAT = "pi-sdk-models-store"
_VERSION = 1
_MAX_BYTES = 64 * 1024 * 1024
"""Larger files are not read (OpenRouter's whole list is about 0.5 MB)."""


class _Unusable(Exception):
    """The file exists but is not used; the message says why."""

    def __init__(self, message: str, *, set_aside: bool = False) -> None:
        super().__init__(message)
        self.set_aside = set_aside
        """Move it to ``<file>.bad`` before replacing it (it may hold something to recover)."""


class FileModelsStore:
    """A :class:`~pi_sdk.ModelsStore` in one JSON file (module doc: format, safety, locking).

    Example:
        ```python
        import platformdirs
        import pi_sdk

        store = pi_sdk.FileModelsStore(
            platformdirs.user_config_path("pi-sdk") / "models-store.json"  # the CLI's file
        )
        models = pi_sdk.Models([...], store=store)
        await models.refresh(allow_network=False)  # the stored lists, offline
        ```

    pi-sdk does not pick a default path (the library does not depend on platformdirs); the
    ``pi-sdk`` command uses ``models-store.json`` in its config folder. Thread-safe.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        """Keep the lists in ``path`` (created on the first save, with its folder)."""
        self.path = Path(path)
        """The JSON file."""
        self._lock = threading.Lock()
        self._seen: tuple[int, int, int] | None = None
        self._entries: dict[str, StoredModels] = {}
        self._warned: set[str] = set()

    def __repr__(self) -> str:
        return f"FileModelsStore({os.fspath(self.path)!r})"

    def load(self, key: str) -> StoredModels | None:
        """The entry under ``key``; ``None`` without one, or when the file is not usable."""
        return self.entries().get(key)

    def entries(self) -> dict[str, StoredModels]:
        """Every stored entry by key (a copy); ``{}`` without a usable file."""
        with self._lock:
            try:
                return dict(self._read())
            except _Unusable as exc:
                self._warn(str(exc))
                return {}

    def save(self, key: str, stored: StoredModels) -> None:
        """Keep ``stored`` under ``key``: the file is read, changed and replaced under the lock.

        Raises:
            OSError: the folder, lock or file cannot be written (the message names the file).
        """
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        with self._lock, locked(folder / f"{self.path.name}.lock"):
            try:
                entries = dict(self._read())
            except _Unusable as exc:
                entries = {}
                self._set_aside(exc)
            entries[key] = stored
            write_atomically(self.path, _encode(entries), what="the model lists")
            self._seen = None  # read again next time: another process may write in between

    def _read(self) -> dict[str, StoredModels]:
        """The file's entries, parsed again only when it changed (caller holds the lock)."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            self._seen, self._entries = None, {}
            return self._entries
        except OSError as exc:
            raise _Unusable(f"cannot read {self.path}: {exc.strerror}") from None
        seen = (info.st_mtime_ns, info.st_size, info.st_ino)
        if seen == self._seen:
            return self._entries
        try:
            data = read_private(self.path, max_bytes=_MAX_BYTES)
        except PermissionError as exc:
            raise _Unusable(
                f"the models store {self.path} is {exc.strerror}: not used; the next refresh"
                " replaces it with an owner-only file"
            ) from None
        except OSError as exc:
            raise _Unusable(f"cannot read the models store {self.path}: {exc.strerror}") from None
        entries = {} if data is None else self._decode(data)
        self._seen, self._entries = seen, entries
        return entries

    def _decode(self, data: bytes) -> dict[str, StoredModels]:
        try:
            parsed: Any = json.loads(data)
        except ValueError:
            raise self._unreadable("not valid JSON") from None
        document = cast(dict[str, Any], parsed) if isinstance(parsed, dict) else {}
        if document.get("format") != _FORMAT:
            raise self._unreadable("not a pi-sdk models store")
        version: Any = document.get("version")
        if version != _VERSION:
            raise self._unreadable(f"version {version!r}, this pi-sdk reads {_VERSION}")
        raw: Any = document.get("entries")
        if not isinstance(raw, dict):
            raise self._unreadable("no 'entries' object")
        entries: dict[str, StoredModels] = {}
        for key, entry in cast(dict[str, Any], raw).items():
            decoded = _entry(entry)
            if decoded is None:
                self._warn(f"the models store {self.path} has an unreadable entry {key!r}: skipped")
            else:
                entries[key] = decoded
        return entries

    def _unreadable(self, why: str) -> _Unusable:
        return _Unusable(
            f"the models store {self.path} is {why}: not used; the next refresh moves it to"
            f" {self.path.name}.bad and starts a new one",
            set_aside=True,
        )

    def _set_aside(self, problem: _Unusable) -> None:
        """Before replacing an unusable file: keep an unreadable one as ``<file>.bad``."""
        self._warn(str(problem))
        if problem.set_aside:
            try:
                os.replace(self.path, self.path.with_name(f"{self.path.name}.bad"))
            except OSError:
                pass  # replaced below all the same

    def _warn(self, message: str) -> None:
        """Warn once per message and store (a refresh loads once per provider)."""
        if message not in self._warned:
            self._warned.add(message)
            warnings.warn(message, RuntimeWarning, stacklevel=4)


def _entry(value: Any) -> StoredModels | None:
    """One stored entry, or ``None`` when it is not one."""
    if not isinstance(value, dict):
        return None
    entry: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
    models: Any = entry.get("models")
    etag, modified, fetched = entry.get("etag"), entry.get("lastModified"), entry.get("fetchedAt")
    if not isinstance(models, list) or not all(
        v is None or isinstance(v, str) for v in (etag, modified)
    ):
        return None
    try:
        parsed = [Model.model_validate(item) for item in models]  # pyright: ignore[reportUnknownVariableType]
    except ValidationError:
        return None
    return StoredModels(
        models=parsed,
        etag=etag,
        last_modified=modified,
        fetched_at=fetched if isinstance(fetched, int) else 0,
    )


def _without_credentials(model: Model) -> dict[str, Any]:
    """A model's JSON (only its set fields), minus headers whose names say they hold a secret.

    Only the key store holds secrets: a ``fetch_models`` that put a credential in a model's
    headers does not get it written here (the provider's headers are laid on again at use).
    """
    data = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    secrets = set(secret_header_values(model.headers))
    if secrets and model.headers is not None:
        kept = {name: value for name, value in model.headers.items() if value not in secrets}
        data["headers"] = kept or None
    return data


def _encode(entries: dict[str, StoredModels]) -> str:
    """The file's text: each model with only its set fields, in pi-mono's JSON names."""
    document = {
        "format": _FORMAT,
        "version": _VERSION,
        "entries": {
            key: {
                "models": [_without_credentials(m) for m in stored.models],
                "etag": stored.etag,
                "lastModified": stored.last_modified,
                "fetchedAt": stored.fetched_at,
            }
            for key, stored in sorted(entries.items())
        },
    }
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"
