"""``pi-sdk keys set|list|remove PROVIDER``: API keys kept in the user's config folder.

The keys are one JSON object, provider -> key, in ``keys.json`` of the config folder
(:mod:`pi_sdk._cli.paths`), written atomically with mode 0600 in a 0700 folder. ``set`` and
``remove`` read, change and write the file under an exclusive lock (``keys.json.lock``,
:mod:`pi_sdk._cli.file_lock`), so that concurrent commands keep every key. A ``keys.json``
that others can read (a group or world permission bit set) is made owner-only when it is read,
with a warning on stderr. While they
run, ``prompt`` and ``chat`` register :class:`StoredKeys`, a ``get_api_key`` hook that answers
before the vendors' environment variables (pi-coding-agent's order: its ``auth.json`` before the
environment); a provider without a stored key still gets its environment variable. ``keys set``
reads the key from a hidden prompt on a terminal, else from the first line of stdin, never from
the command line; no command prints a key.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Generator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from pi_sdk._cli.common import UsageError, require_cli_extra
from pi_sdk._cli.file_lock import LockTimeout, file_lock
from pi_sdk._cli.hints import unknown_provider
from pi_sdk._cli.model_lists import stored_lists
from pi_sdk._cli.paths import config_dir, private_dir
from pi_sdk._models.default import default_models, get_api_key, get_providers
from pi_sdk._plugins.manager import get_plugin_manager
from pi_sdk.plugins.hookspecs import hookimpl

__all__ = ["KeyStore", "StoredKeys", "register", "stored_keys"]

T = TypeVar("T")


class KeyStore:
    """The ``keys.json`` file: provider -> API key."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or config_dir() / "keys.json"

    def load(self) -> dict[str, str]:
        """The stored keys; ``{}`` without a file.

        A file that others can read (mode with a group or world bit, POSIX) is made owner-only
        (0600) first, with one warning line on stderr naming it and its old mode.

        Raises:
            UsageError: the file is not a JSON object of strings (the message names the file,
                never its content).
        """
        try:
            self._owner_only()
            data: Any = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            problem = exc.strerror if isinstance(exc, OSError) else "not valid JSON"
            raise UsageError(f"cannot read the keys file {self.path}: {problem}") from None
        if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, str)
            for k, v in data.items()  # pyright: ignore[reportUnknownVariableType]
        ):
            raise UsageError(f"the keys file {self.path} is not a JSON object of strings")
        return dict(data)  # pyright: ignore[reportUnknownArgumentType]

    def _owner_only(self) -> None:
        if os.name == "nt":  # pragma: no cover - no POSIX modes
            return
        mode = stat.S_IMODE(self.path.stat().st_mode)
        if mode & 0o077:
            self.path.chmod(0o600)
            sys.stderr.write(
                f"pi-sdk: warning: the keys file {self.path} was readable by others"
                f" (mode {mode:04o}); it is now owner-only (0600): rotate its keys if others"
                " could read them\n"
            )

    def update(self, change: Callable[[dict[str, str]], T]) -> T:
        """Read the keys, ``change`` them in place and write them, under the file's lock.

        Another process's update waits until this one has written (:func:`file_lock`); the
        file is written only when ``change`` returns.

        Returns:
            What ``change`` returned.

        Raises:
            UsageError: the file is malformed (see :meth:`load`), or another process held the
                lock for 10 s.
        """
        folder = private_dir(self.path.parent)
        try:
            with file_lock(folder / f"{self.path.name}.lock"):
                keys = self.load()
                result = change(keys)
                self.save(keys)
        except LockTimeout as exc:
            raise UsageError(str(exc)) from None
        return result

    def save(self, keys: dict[str, str]) -> None:
        """Write ``keys`` atomically: a 0600 temporary file in the 0700 folder, renamed over.

        Use :meth:`update` to change the stored keys: it holds the lock around read and write.
        """
        folder = private_dir(self.path.parent)
        descriptor, name = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=folder)
        temporary = Path(name)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                json.dump(keys, file, indent=2, sort_keys=True)
                file.write("\n")
                file.flush()
                os.fsync(file.fileno())
            os.chmod(temporary, 0o600)
            os.replace(temporary, self.path)
        finally:
            temporary.unlink(missing_ok=True)


class StoredKeys:
    """pi-sdk plugin: the ``get_api_key`` answer from the keys file, before the environment."""

    def __init__(self, store: KeyStore) -> None:
        self.store = store

    @hookimpl(tryfirst=True)
    def get_api_key(self, provider: str) -> str | None:
        """Return the stored key of ``provider``, or ``None`` (the next plugin answers)."""
        return self.store.load().get(provider)


@contextmanager
def stored_keys(store: KeyStore | None = None) -> Generator[None]:
    """Register :class:`StoredKeys` in the active plugin manager for the block.

    Raises:
        UsageError: the keys file is unreadable or malformed, before the block starts (so a
            command fails up front, exit status 2, instead of at its first call).
    """
    manager = get_plugin_manager()
    plugin = StoredKeys(store or KeyStore())
    plugin.store.load()
    manager.register(plugin, name=f"pi-sdk-cli-keys-{id(plugin)}")
    try:
        yield
    finally:
        manager.unregister(plugin)


def _read_key(provider: str) -> str:
    if sys.stdin.isatty():
        key = getpass.getpass(f"API key for {provider} (not shown): ")
    else:
        key = sys.stdin.readline()
    key = key.strip()
    if not key:
        raise UsageError("no key given (type it at the prompt, or pipe it on stdin)")
    return key


def _set(args: argparse.Namespace) -> int:
    provider: str = args.provider
    if provider not in {p.id for p in default_models().providers()}:
        raise UsageError(unknown_provider(provider))
    key = _read_key(provider)  # before the lock: the user may take a while to type it
    store = KeyStore()
    store.update(lambda keys: keys.__setitem__(provider, key))
    print(f"stored the key for {provider} in {store.path} (mode 0600)")
    return 0


def _list(args: argparse.Namespace) -> int:
    store = KeyStore()
    stored = store.load()
    rows = [(provider, f"keys file ({store.path})") for provider in sorted(stored)]
    rows += [
        (provider, "environment or plugin")
        for provider in get_providers()
        if provider not in stored and get_api_key(provider)
    ]
    if not rows:
        print("no API keys: `pi-sdk keys set PROVIDER` stores one, or set the vendor's variable")
        return 0
    width = max(len(provider) for provider, _ in rows)
    for provider, source in rows:
        print(f"{provider.ljust(width)}  {source}")
    return 0


def _remove(args: argparse.Namespace) -> int:
    store = KeyStore()
    if store.update(lambda keys: keys.pop(args.provider, None)) is None:
        print(f"pi-sdk: no stored key for provider {args.provider!r}", file=sys.stderr)
        return 1
    print(f"removed the key for {args.provider} from {store.path}")
    return 0


def _run(args: argparse.Namespace) -> int:
    require_cli_extra("keys")
    stored_lists(sys.stderr)  # servers remembered by `pi-sdk models --server` have keys too
    return {"set": _set, "list": _list, "remove": _remove}[args.action](args)


def register(commands: Any) -> None:
    """Add ``keys`` to the ``pi-sdk`` subcommands."""
    keys = commands.add_parser("keys", help="store, list or remove API keys (config folder)")
    actions = keys.add_subparsers(dest="action", required=True, metavar="ACTION")
    for action, text in (
        ("set", "store the key of PROVIDER (read from a hidden prompt or stdin)"),
        ("remove", "forget the stored key of PROVIDER"),
    ):
        parser = actions.add_parser(action, help=text)
        parser.add_argument("provider", metavar="PROVIDER", help="e.g. anthropic, openai")
    actions.add_parser("list", help="the providers with a key, and where it comes from")
    keys.set_defaults(run=_run)
