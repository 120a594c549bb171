"""FileModelsStore's other ways to be unusable, each warned with its whole text
(``pi_sdk/_models/file_store.py``): a path that cannot even be looked at, a file too large to
read, and every shape of entry that is not one (skipped, the others kept).
"""

from __future__ import annotations

import json
import os
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
