"""FileModelsStore's other ways to be unusable, each warned with its whole text
(``pi_sdk/_models/file_store.py``): a path that cannot even be looked at, a file too large to
read, and every shape of entry that is not one (skipped, the others kept).
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import pi_sdk
from pi_sdk._models import file_store


def _entries_with_warnings(store: pi_sdk.FileModelsStore) -> tuple[dict[str, Any], list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        entries = store.entries()
    return entries, [str(w.message) for w in caught if w.category is RuntimeWarning]


def test_the_repr_names_the_file(tmp_path: Path):
    path = tmp_path / "models-store.json"
    assert repr(pi_sdk.FileModelsStore(path)) == f"FileModelsStore({os.fspath(path)!r})"


def test_a_path_that_cannot_be_looked_at_is_warned_about_once(tmp_path: Path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    path = blocker / "models-store.json"
    store = pi_sdk.FileModelsStore(path)
    assert _entries_with_warnings(store) == ({}, [f"cannot read {path}: Not a directory"])
    assert _entries_with_warnings(store) == ({}, [])  # once per message and store
    assert store.load("any") is None


def test_a_file_too_large_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "models-store.json"
    pi_sdk.FileModelsStore(path).save("srv", pi_sdk.StoredModels(models=[], fetched_at=1))
    size = path.stat().st_size
    monkeypatch.setattr(file_store, "_MAX_BYTES", size - 1)
    entries, warned = _entries_with_warnings(pi_sdk.FileModelsStore(path))
    assert entries == {}
    assert warned == [
        f"cannot read the models store {path}: larger than {size - 1:,} bytes ({size:,})"
    ]


@pytest.mark.parametrize(
    ("size", "reason"),
    [
        (  # read (all NUL bytes), then refused as text
            64 * 1024 * 1024,
            "the models store <file> is not valid JSON: not used; the next refresh moves it"
            " to models-store.json.bad and starts a new one",
        ),
        (
            64 * 1024 * 1024 + 1,
            "cannot read the models store <file>: larger than 67,108,864 bytes (67,108,865)",
        ),
    ],
)
def test_a_file_of_64_mib_is_read_and_one_byte_more_is_not(tmp_path: Path, size: int, reason: str):
    path = tmp_path / "models-store.json"
    with path.open("wb") as handle:
        handle.truncate(size)  # sparse: no 64 MiB written
    path.chmod(0o600)
    _, warned = _entries_with_warnings(pi_sdk.FileModelsStore(path))
    assert [w.replace(str(path), "<file>") for w in warned] == [reason]


@pytest.mark.parametrize(
    "entry",
    [
        ["not", "an", "object"],
        "text",
        {"models": "not a list"},
        {"etag": '"e"'},
        {"models": [], "etag": 5},
        {"models": [], "lastModified": ["then"]},
        {"models": [{"id": "m"}]},  # not a whole model
    ],
)
def test_an_entry_of_the_wrong_shape_is_skipped(tmp_path: Path, entry: Any):
    path = tmp_path / "models-store.json"
    model = pi_sdk.Model(id="a", api="openai-completions", provider="srv")
    pi_sdk.FileModelsStore(path).save("good", pi_sdk.StoredModels(models=[model], fetched_at=7))
    document = json.loads(path.read_text("utf-8"))
    document["entries"]["bad"] = entry
    path.write_text(json.dumps(document), "utf-8")
    entries, warned = _entries_with_warnings(pi_sdk.FileModelsStore(path))
    assert list(entries) == ["good"] and entries["good"].fetched_at == 7
    assert warned == [f"the models store {path} has an unreadable entry 'bad': skipped"]


def test_a_fetched_at_that_is_not_a_number_reads_as_zero(tmp_path: Path):
    path = tmp_path / "models-store.json"
    pi_sdk.FileModelsStore(path).save("srv", pi_sdk.StoredModels(models=[], etag='"x"'))
    document = json.loads(path.read_text("utf-8"))
    document["entries"]["srv"]["fetchedAt"] = "yesterday"
    path.write_text(json.dumps(document), "utf-8")
    stored = pi_sdk.FileModelsStore(path).load("srv")
    assert stored is not None and (stored.fetched_at, stored.etag) == (0, '"x"')


def test_the_file_is_utf_8_text_one_key_a_line_with_its_entries_sorted(tmp_path: Path):
    """The same lists give the same bytes (diffable, reviewable): keys sorted, names unescaped."""
    path = tmp_path / "models-store.json"
    store = pi_sdk.FileModelsStore(path)
    named = pi_sdk.Model(id="z", api="a", provider="p", name="Modèle ✓")
    store.save("zeta", pi_sdk.StoredModels(models=[named], etag='"e"', fetched_at=5))
    store.save("alpha", pi_sdk.StoredModels(models=[], last_modified="then"))
    assert path.read_text("utf-8") == (
        '{\n "format": "pi-sdk-models-store",\n "version": 1,\n "entries": {\n'
        '  "alpha": {\n   "models": [],\n   "etag": null,\n   "lastModified": "then",\n'
        '   "fetchedAt": 0\n  },\n'
        '  "zeta": {\n   "models": [\n    {\n     "id": "z",\n     "name": "Modèle ✓",\n'
        '     "api": "a",\n     "provider": "p"\n    }\n   ],\n'
        '   "etag": "\\"e\\"",\n   "lastModified": null,\n   "fetchedAt": 5\n  }\n }\n}\n'
    )


def test_a_warning_points_at_the_code_that_loaded_or_saved(tmp_path: Path):
    """``load``/``save`` warn at their caller's line (a refresh: the refresh's own code)."""
    path = tmp_path / "models-store.json"
    path.write_text("{oops", "utf-8")
    path.chmod(0o600)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1  # noqa: SLF001
        pi_sdk.FileModelsStore(path).load("k")
        pi_sdk.FileModelsStore(path).save("k", pi_sdk.StoredModels(models=[]))
    assert [(w.category, w.filename, w.lineno) for w in caught] == [
        (RuntimeWarning, __file__, line),
        (RuntimeWarning, __file__, line + 1),
    ]


def test_a_file_that_cannot_be_moved_aside_is_replaced_all_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = tmp_path / "models-store.json"
    path.write_text("{oops", "utf-8")
    path.chmod(0o600)

    replace = os.replace

    def refuse_the_bad_name(source: Any, target: Any) -> None:
        if str(target).endswith(".bad"):
            raise PermissionError(13, "Permission denied")
        replace(source, target)

    monkeypatch.setattr(os, "replace", refuse_the_bad_name)
    store = pi_sdk.FileModelsStore(path)
    with pytest.warns(RuntimeWarning, match="not valid JSON"):
        store.save("k", pi_sdk.StoredModels(models=[], etag='"e"'))
    monkeypatch.undo()
    assert not (tmp_path / "models-store.json.bad").exists()
    stored = pi_sdk.FileModelsStore(path).load("k")
    assert stored is not None and stored.etag == '"e"'
