"""FileModelsStore: one owner-only JSON file, written atomically, never trusted blindly.

The file and its folder are owner-only; a save replaces the file whole; two processes saving
at once lose nothing; a corrupt file is warned about, not used, and kept aside when replaced; a
file another user owns, that others may read or write, or that is a link is warned about and
not used.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import pi_sdk

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX owners and modes")


def entry(*ids: str, etag: str | None = '"e"') -> pi_sdk.StoredModels:
    models = [
        pi_sdk.Model(id=i, api="openai-completions", provider="srv", context_window=4096)
        for i in ids
    ]
    return pi_sdk.StoredModels(models=models, etag=etag, last_modified="then", fetched_at=1)


def quietly_load(store: pi_sdk.FileModelsStore, key: str) -> pi_sdk.StoredModels | None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return store.load(key)


@POSIX
def test_a_saved_entry_is_owner_only_and_loads_with_only_what_was_said(tmp_path: Path) -> None:
    path = tmp_path / "config" / "pi-sdk" / "models-store.json"
    store = pi_sdk.FileModelsStore(path)
    assert store.load("srv") is None and not path.exists()
    store.save("srv http://srv/v1", entry("a", "b"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format"] == "pi-sdk-models-store" and document["version"] == 1
    saved = document["entries"]["srv http://srv/v1"]
    assert saved["models"][0] == {
        "id": "a", "api": "openai-completions", "provider": "srv", "contextWindow": 4096
    }  # fmt: skip
    assert (saved["etag"], saved["lastModified"], saved["fetchedAt"]) == ('"e"', "then", 1)
    loaded = quietly_load(pi_sdk.FileModelsStore(path), "srv http://srv/v1")
    assert loaded == entry("a", "b")
    assert loaded is not None
    assert loaded.models[0].model_fields_set == {"id", "api", "provider", "context_window"}
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(".")] == []  # no temp left


def test_a_corrupt_file_is_warned_about_and_kept_aside_when_replaced(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.json"
    fresh.write_text("{oops", "utf-8")
    fresh.chmod(0o600)
    with pytest.warns(RuntimeWarning, match="not valid JSON"):  # saving first: warned there
        pi_sdk.FileModelsStore(fresh).save("k", entry("a"))
    assert (tmp_path / "fresh.json.bad").read_text("utf-8") == "{oops"
    path = tmp_path / "models-store.json"
    path.write_text('{"format": "pi-sdk-models-store", "version": 1, "entries": {', "utf-8")
    path.chmod(0o600)
    store = pi_sdk.FileModelsStore(path)
    with pytest.warns(RuntimeWarning, match="is not valid JSON: not used") as caught:
        assert store.load("k") is None
        assert store.load("other") is None  # one warning, not one per provider
    assert len(caught) == 1 and str(path) in str(caught[0].message)
    assert "the next refresh moves it to models-store.json.bad" in str(caught[0].message)
    store.save("k", entry("a"))  # said once already
    assert (tmp_path / "models-store.json.bad").read_text("utf-8").endswith('"entries": {')
    assert quietly_load(pi_sdk.FileModelsStore(path), "k") == entry("a")


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("[]", "not a pi-sdk models store"),
        ('{"format": "pi-sdk-models-store", "version": 9, "entries": {}}', "version 9"),
        ('{"format": "pi-sdk-models-store", "version": 1}', "no 'entries' object"),
    ],
)
def test_a_foreign_document_is_not_used(tmp_path: Path, content: str, why: str) -> None:
    path = tmp_path / "models-store.json"
    path.write_text(content, "utf-8")
    path.chmod(0o600)
    with pytest.warns(RuntimeWarning, match=why):
        assert pi_sdk.FileModelsStore(path).entries() == {}


def test_an_unreadable_entry_is_skipped_and_the_others_kept(tmp_path: Path) -> None:
    path = tmp_path / "models-store.json"
    store = pi_sdk.FileModelsStore(path)
    store.save("good", entry("a"))
    document = json.loads(path.read_text("utf-8"))
    document["entries"]["bad"] = {"models": [{"id": 3}]}
    path.write_text(json.dumps(document), "utf-8")
    with pytest.warns(RuntimeWarning, match="unreadable entry 'bad': skipped"):
        assert set(pi_sdk.FileModelsStore(path).entries()) == {"good"}


@POSIX
@pytest.mark.parametrize("mode", [0o644, 0o620, 0o606])
def test_a_file_others_may_read_or_write_is_not_used_and_replaced(tmp_path: Path, mode: int):
    path = tmp_path / "models-store.json"
    pi_sdk.FileModelsStore(path).save("k", entry("a"))
    path.chmod(mode)
    store = pi_sdk.FileModelsStore(path)
    with pytest.warns(RuntimeWarning, match=f"readable or writable by others \\(mode 0{mode:o}"):
        assert store.load("k") is None
    store.save("k2", entry("b"))  # replaced by an owner-only file (the warning was given once)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert set(quietly_load_all(path)) == {"k2"}
    assert not path.with_name("models-store.json.bad").exists()  # replaced, not kept aside


def quietly_load_all(path: Path) -> dict[str, pi_sdk.StoredModels]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return pi_sdk.FileModelsStore(path).entries()


@POSIX
def test_a_link_is_not_followed(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    pi_sdk.FileModelsStore(real).save("k", entry("a"))
    link = tmp_path / "models-store.json"
    link.symlink_to(real)
    with pytest.warns(RuntimeWarning, match="is a symbolic link: not used"):
        assert pi_sdk.FileModelsStore(link).load("k") is None


@POSIX
@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="chown needs root")
def test_a_file_of_another_user_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "models-store.json"
    pi_sdk.FileModelsStore(path).save("k", entry("a"))
    os.chown(path, 65534, 65534)
    with pytest.warns(RuntimeWarning, match=r"owned by another user \(uid 65534\): not used"):
        assert pi_sdk.FileModelsStore(path).load("k") is None


_WRITER = """
import sys
import pi_sdk
store = pi_sdk.FileModelsStore(sys.argv[1])
for n in range(int(sys.argv[3])):
    model = pi_sdk.Model(id=f"m{n}", api="openai-completions", provider=sys.argv[2])
    store.save(f"{sys.argv[2]} {n}", pi_sdk.StoredModels(models=[model], etag=str(n)))
"""


def test_two_processes_saving_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "models-store.json"
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), name, "40"])
        for name in ("left", "right")
    ]
    assert [w.wait(timeout=60) for w in writers] == [0, 0]
    entries = quietly_load_all(path)
    assert len(entries) == 80
    assert entries["right 39"].models[0].id == "m39" and entries["left 0"].etag == "0"


def test_no_credential_header_is_written(tmp_path: Path) -> None:
    path = tmp_path / "models-store.json"
    model = pi_sdk.Model(
        id="m",
        api="openai-completions",
        provider="srv",
        headers={"Authorization": "Bearer sk-SECRET-9", "X-Title": "pi"},
    )
    pi_sdk.FileModelsStore(path).save("k", pi_sdk.StoredModels(models=[model]))
    assert "sk-SECRET-9" not in path.read_text("utf-8")
    loaded = quietly_load_all(path)["k"].models[0]
    assert loaded.headers == {"X-Title": "pi"}


@pytest.mark.parametrize(
    ("headers", "kept"),
    [
        ({"x-api-key": "k-SECRET-1", "Cookie": "c-SECRET-2"}, None),  # nothing left: no headers
        ({"X-Title": "pi", "x-session": "s-SECRET-3"}, {"X-Title": "pi"}),
        ({"X-Title": "pi"}, {"X-Title": "pi"}),
        (None, None),
    ],
)
def test_credential_headers_are_dropped_by_name_and_an_emptied_map_is_no_headers(
    tmp_path: Path, headers: dict[str, str] | None, kept: dict[str, str] | None
) -> None:
    path = tmp_path / "models-store.json"
    model = pi_sdk.Model(id="m", api="openai-completions", provider="srv", headers=headers)
    pi_sdk.FileModelsStore(path).save("k", pi_sdk.StoredModels(models=[model]))
    assert "SECRET" not in path.read_text("utf-8")
    assert quietly_load_all(path)["k"].models[0].headers == kept
