"""The CLI's stored model lists (pi_sdk/_cli/model_lists.py): what is missing, what is warned."""

from __future__ import annotations

import io
from types import SimpleNamespace
from typing import Any

import pytest

from pi_sdk._cli import model_lists
from pi_sdk._cli.common import UsageError


def test_without_platformdirs_there_is_no_store(monkeypatch: pytest.MonkeyPatch) -> None:
    real = model_lists.importlib.util.find_spec
    monkeypatch.setattr(
        model_lists.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "platformdirs" else real(name, *a),
    )
    assert model_lists.open_store() is None


def test_the_store_is_the_config_folders_file(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    store = model_lists.open_store()
    assert store is not None
    assert store.path == tmp_path / "pi-sdk" / "models-store.json"


def test_a_server_without_pi_sdk_openai_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_openai(name: str) -> object:
        raise ImportError(name)

    monkeypatch.setattr(model_lists.importlib, "import_module", no_openai)
    with pytest.raises(UsageError) as raised:
        model_lists._compatible_provider("vllm", "http://gpu:8000/v1")  # pyright: ignore[reportPrivateUsage]
    assert str(raised.value) == (
        "--server needs pi-sdk-openai (it speaks OpenAI-compatible servers): pip install"
        " pi-sdk-openai"
    )


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("vllm=http://gpu:8000/v1", ("vllm", "http://gpu:8000/v1")),
        (" vllm = https://gpu/v1/ ", ("vllm", "https://gpu/v1")),
    ],
)
def test_a_server_is_id_equals_url(spec: str, parsed: tuple[str, str]) -> None:
    assert model_lists.parse_server(spec) == parsed


@pytest.mark.parametrize("spec", ["vllm", "=http://x", "vllm=ftp://x", "my vllm=http://x", "v="])
def test_anything_else_is_a_usage_error_quoting_it(spec: str) -> None:
    with pytest.raises(UsageError) as raised:
        model_lists.parse_server(spec)
    assert str(raised.value) == (
        f"--server takes ID=URL, e.g. vllm=http://gpu-box:8000/v1; got {spec!r}"
    )


def test_a_stored_list_that_cannot_be_used_is_one_warning_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    errors = {"a": "a (http://a/v1): bad entry", "b": "b (http://b/v1): bad entry"}
    monkeypatch.setattr(model_lists, "use_model_lists", lambda: SimpleNamespace(errors=errors))
    err = io.StringIO()
    model_lists.stored_lists(err)
    assert err.getvalue() == (
        "pi-sdk: warning: cannot use the stored list of a (http://a/v1): bad entry\n"
        "pi-sdk: warning: cannot use the stored list of b (http://b/v1): bad entry\n"
    )


def test_the_remembered_server_of_an_id_is_the_one_whose_list_was_stored_last() -> None:
    from pi_sdk._cli.model_lists import (
        _remembered,  # pyright: ignore[reportPrivateUsage]
    )

    def at(fetched_at: int) -> SimpleNamespace:
        return SimpleNamespace(fetched_at=fetched_at)

    entries = {
        "vllm http://gpu-a:8000/v1": at(10),
        "vllm https://gpu-b/v1": at(20),
        "vllm http://gpu-c/v1": at(15),
        "tie http://first": at(5),
        "tie http://second": at(5),  # the same time: the first listed stays
        "ollama": at(99),  # a catalog provider's own list: no server
        "odd ftp://files": at(99),  # not a server URL
        "alpha http://a": at(1),
    }
    store: Any = SimpleNamespace(entries=lambda: entries)
    remembered = _remembered(store)
    assert remembered == {
        "alpha": "http://a",
        "tie": "http://first",
        "vllm": "https://gpu-b/v1",
    }
    assert list(remembered) == ["alpha", "tie", "vllm"]  # by id


class _Provider(SimpleNamespace):
    def configure(self, **changes: Any) -> tuple[str, str]:
        return ("configured", f"{self.id} {changes}")


@pytest.mark.parametrize(
    ("stored", "servers", "openai", "registered"),
    [
        # A stored list under an id that is now a catalog provider's (no model listing) is
        # skipped; the remembered servers after it are still added.
        (
            ["anthropic http://old/v1", "vllm http://gpu/v1"],
            [],
            True,
            [("new", "vllm http://gpu/v1")],
        ),
        # A provider that lists its models moves to the remembered URL, or stays where it is.
        (
            ["ollama http://box:11434/v1"],
            [],
            True,
            [(("configured", "ollama {'base_url': 'http://box:11434/v1'}"), True)],
        ),
        (["ollama http://localhost:11434/v1"], [], True, []),
        # A new id needs pi-sdk-openai to be remembered; named with --server, it is always added.
        (["vllm http://gpu/v1"], [], False, []),
        ([], ["vllm=http://gpu/v1"], False, [("new", "vllm http://gpu/v1")]),
        # --server wins over the remembered URL of its id.
        (["vllm http://old/v1"], ["vllm=http://gpu/v1/"], True, [("new", "vllm http://gpu/v1")]),
    ],
)
def test_remembered_and_named_servers_join_the_default_collection(
    monkeypatch: pytest.MonkeyPatch,
    stored: list[str],
    servers: list[str],
    openai: bool,
    registered: list[Any],
) -> None:
    providers = [
        _Provider(id="anthropic", fetch_models=None, base_url="https://api.anthropic.com"),
        _Provider(id="ollama", fetch_models=object(), base_url="http://localhost:11434/v1"),
    ]
    collection = SimpleNamespace(
        store=None, providers=lambda: providers, refresh_sync=lambda allow_network: "offline"
    )
    entries = {key: SimpleNamespace(fetched_at=1) for key in stored}
    store = SimpleNamespace(entries=lambda: entries)
    calls: list[Any] = []

    def register(provider: Any, replace: bool = False) -> None:
        calls.append((provider, replace) if replace else provider)

    monkeypatch.setattr(model_lists, "default_models", lambda: collection)
    monkeypatch.setattr(model_lists, "open_store", lambda: store)
    monkeypatch.setattr(model_lists, "register_provider", register)
    monkeypatch.setattr(model_lists, "_openai_installed", lambda: openai)
    monkeypatch.setattr(model_lists, "_compatible_provider", lambda p, url: ("new", f"{p} {url}"))
    assert model_lists.use_model_lists(servers) == "offline"
    assert collection.store is store
    assert calls == registered


def test_a_named_server_of_a_catalog_provider_that_cannot_list_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    anthropic = _Provider(id="anthropic", fetch_models=None, base_url="https://api.anthropic.com")
    collection = SimpleNamespace(store=None, providers=lambda: [anthropic])
    monkeypatch.setattr(model_lists, "default_models", lambda: collection)
    monkeypatch.setattr(model_lists, "open_store", lambda: None)
    with pytest.raises(UsageError) as raised:
        model_lists.use_model_lists(["anthropic=http://x/v1"])
    assert str(raised.value) == (
        "provider 'anthropic' cannot list its models; --server names a server"
        " (a new id, or ollama / lm-studio)"
    )
