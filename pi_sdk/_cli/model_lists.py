"""The model lists servers gave, for every command: the CLI's store, its remembered servers.

The CLI keeps what ``pi-sdk models --refresh`` fetched in ``models-store.json`` of its config
folder (:class:`pi_sdk.FileModelsStore`; :mod:`pi_sdk._cli.paths`) and serves it offline to
``models``, ``prompt`` and ``chat`` (:func:`use_model_lists`): the default collection gets the
store, and its providers that can list models get their stored lists without a request. A
server named with ``--server ID=URL`` is the provider ``ollama`` or ``lm-studio`` at another
URL, or an OpenAI-compatible server (pi-sdk-openai's
:func:`~pi_sdk_openai.openai_compatible_provider`, imported on use); once its list is stored,
later commands remember it (the id and URL of the list stored last per id, from the store's
keys), so ``pi-sdk prompt -m ID/MODEL`` finds its models. Without platformdirs (the ``cli``
extra) there is no store: the catalog only.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from typing import Any, TextIO

from pi_sdk._cli.common import UsageError, warnings_on
from pi_sdk._models.default import default_models, register_provider
from pi_sdk._models.file_store import FileModelsStore
from pi_sdk._models.refresh import RefreshResult

__all__ = ["STORE_FILE", "open_store", "parse_server", "stored_lists", "use_model_lists"]

STORE_FILE = "models-store.json"
"""The store's file name in the config folder."""


def open_store() -> FileModelsStore | None:
    """The CLI's store; ``None`` without platformdirs (nothing can have been stored)."""
    if importlib.util.find_spec("platformdirs") is None:
        return None
    from pi_sdk._cli.paths import config_dir

    return FileModelsStore(config_dir() / STORE_FILE)


def parse_server(spec: str) -> tuple[str, str]:
    """``ID=URL`` as ``(id, url)``.

    Raises:
        UsageError: not ``ID=URL`` with an ``http://`` or ``https://`` URL.
    """
    provider, _, url = spec.partition("=")
    provider, url = provider.strip(), url.strip().rstrip("/")
    if not provider or not url.startswith(("http://", "https://")) or " " in provider:
        raise UsageError(f"--server takes ID=URL, e.g. vllm=http://gpu-box:8000/v1; got {spec!r}")
    return provider, url


def _compatible_provider(provider: str, url: str) -> Any:
    """pi-sdk-openai's provider for the OpenAI-compatible server at ``url``.

    Raises:
        UsageError: pi-sdk-openai is not installed.
    """
    try:
        module: Any = importlib.import_module("pi_sdk_openai")
    except ImportError:
        raise UsageError(
            "--server needs pi-sdk-openai (it speaks OpenAI-compatible servers):"
            " pip install pi-sdk-openai"
        ) from None
    return module.openai_compatible_provider(provider, url)


def use_model_lists(servers: Sequence[str] = ()) -> RefreshResult:
    """Give the default collection the CLI's store, remembered servers and ``servers``; load.

    A server of ``servers`` whose id names a provider of the collection that lists its models
    (``ollama``, ``lm-studio``) moves that provider to the URL; another id adds an
    OpenAI-compatible server. The remembered servers are the same, from the store: per
    provider id, the server whose list was stored last (``servers`` win; a new id is added
    only when pi-sdk-openai is installed, nothing else could call its models).

    Returns:
        The offline refresh: which providers got a stored list (``sources``), and store
        failures (``errors``).

    Raises:
        UsageError: a bad ``--server``, or one naming a provider that cannot list its models.
    """
    collection = default_models()
    store = open_store()
    collection.store = store
    present = {p.id: p for p in collection.providers()}
    servers_now = dict(parse_server(spec) for spec in servers)
    remembered = {} if store is None else _remembered(store)
    for provider, url in {**remembered, **servers_now}.items():
        existing = present.get(provider)
        if existing is not None and existing.fetch_models is None:
            if provider not in servers_now:
                continue  # a stored list under an id that is now a catalog provider's
            raise UsageError(
                f"provider {provider!r} cannot list its models; --server names a server"
                " (a new id, or ollama / lm-studio)"
            )
        if existing is not None and existing.base_url != url:
            register_provider(existing.configure(base_url=url), replace=True)
        elif existing is None and (provider in servers_now or _openai_installed()):
            register_provider(_compatible_provider(provider, url))
    return collection.refresh_sync(allow_network=False)


def _openai_installed() -> bool:
    return importlib.util.find_spec("pi_sdk_openai") is not None


def _remembered(store: FileModelsStore) -> dict[str, str]:
    """Per provider id, the URL of the server whose list was stored last."""
    latest: dict[str, tuple[int, str]] = {}
    for key, stored in store.entries().items():
        provider, _, url = key.partition(" ")
        if url.startswith(("http://", "https://")) and (
            provider not in latest or stored.fetched_at > latest[provider][0]
        ):
            latest[provider] = (stored.fetched_at, url)
    return {provider: url for provider, (_, url) in sorted(latest.items())}


def stored_lists(err: TextIO) -> None:
    """:func:`use_model_lists` for ``prompt`` and ``chat``: a store problem is a warning."""
    with warnings_on(err):
        result = use_model_lists()
    for message in result.errors.values():
        err.write(f"pi-sdk: warning: cannot use the stored list of {message}\n")
