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
