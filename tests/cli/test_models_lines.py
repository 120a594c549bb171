"""``pi-sdk models`` in-process: every line of the table, the summary, stderr and exit statuses.

The collection is a stand-in (``default_models`` patched in the command's module) holding models
of every origin, so that the table's columns, the source of each model, the singular and plural
counts and the refresh's arguments are pinned exactly, with no config folder or server involved.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from pi_sdk import Model
from pi_sdk._cli import main
from pi_sdk._cli import models as models_cli
from pi_sdk.types import ModelCost

_BIG = Model(
    id="big-1", api="x", provider="lab", name="Grand modèle", context_window=1_000_000,
    max_tokens=8192, reasoning=True, input=["text", "image"],
    cost=ModelCost(input=3, output=15, cache_read=0.3, cache_write=3.75),
)  # fmt: skip
_HAND = Model(id="s", api="x", provider="lab", context_window=512, max_tokens=64)
_SERVED = Model(id="served-model", api="x", provider="srv")
_KEPT = Model(id="k", api="x", provider="kept")
_NEW = Model(id="n", api="x", provider="new")


class _Collection:
    """What ``models`` asks of the default collection: providers, models, each model's origin."""

    def __init__(self, models: list[Model], origins: dict[str, str], listing: set[str]) -> None:
        self._models, self._origins, self._listing = models, origins, listing

    def providers(self) -> list[Any]:
        ids = sorted({m.provider for m in self._models} | self._listing)
        return [SimpleNamespace(id=p, fetch_models=object() if p in self._listing else None)
                for p in ids]  # fmt: skip

    def models(self, provider: str | None = None) -> list[Model]:
        return [m for m in self._models if provider is None or m.provider == provider]

    def origin(self, provider: str, model_id: str) -> str:
        return self._origins[f"{provider}/{model_id}"]


@pytest.fixture
def collection(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The stand-in collection and the offline / refresh results the command will get."""
    state: dict[str, Any] = {
        "models": [_BIG, _HAND],
        "origins": {"lab/big-1": "catalog", "lab/s": "hand"},
        "listing": set(),
        "offline": SimpleNamespace(sources={}, errors={}),
        "refresh": SimpleNamespace(sources={}, errors={}),
        "refreshed": [],
    }

    def default_models() -> _Collection:
        return _Collection(state["models"], state["origins"], state["listing"])

    def refresh(names: list[str] | None, timeout_s: float) -> Any:
        state["refreshed"].append((names, timeout_s))
        return state["refresh"]

    monkeypatch.setattr(models_cli, "default_models", default_models)
    monkeypatch.setattr(models_cli, "use_model_lists", lambda servers: state["offline"])
    monkeypatch.setattr(models_cli, "_refresh", refresh)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    return state


_HEADER = (
    "provider  id       context  max out  reasoning  input       $/M in  $/M out  $/M cache r"
    "  $/M cache w  source"
)


def test_the_table_aligns_every_column_and_names_each_source(
    collection: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.splitlines() == [
        _HEADER,
        "lab       big-1  1,000,000    8,192  yes        text+image       3       15          0.3"
        "         3.75  catalog",
        "lab       s            512       64  no         text             0        0            0"
        "            0  by hand",
        "2 models · prices in USD per million tokens",
    ]


@pytest.mark.parametrize(
    ("source", "shown"),
    [("server", "server"), ("not-modified", "server"), ("store", "store"), (None, "store")],
)
def test_a_listed_model_shows_where_its_list_came_from(
    collection: dict[str, Any], capsys: pytest.CaptureFixture[str], source: str | None, shown: str
) -> None:
    collection["models"] = [_SERVED]
    collection["origins"] = {"srv/served-model": "fetched"}
    collection["offline"] = SimpleNamespace(sources={"srv": source} if source else {}, errors={})
    assert main(["models"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "provider  id            context  max out  reasoning  input  $/M in  $/M out  $/M cache r"
        "  $/M cache w  source",
        f"srv       served-model  128,000   16,384  no         text        0        0            0"
        f"            0  {shown}",
        "1 model · prices in USD per million tokens",
    ]


def test_no_models_is_one_line(collection: dict[str, Any], capsys: pytest.CaptureFixture[str]):
    collection["models"] = []
    assert main(["models"]) == 0
    assert capsys.readouterr() == ("no models registered\n", "")


def test_json_is_one_model_per_line_in_the_collection_order(
    collection: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [  # as written: UTF-8, not \u escapes
        json.dumps(_BIG.model_dump(mode="json"), ensure_ascii=False),
        json.dumps(_HAND.model_dump(mode="json"), ensure_ascii=False),
    ]
    assert "modèle" in lines[0]
    assert main(["models", "--json", "--provider", "lab"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_providers_not_listed_are_one_stderr_line_each_counted_and_exit_1(
    collection: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    collection["offline"] = SimpleNamespace(sources={}, errors={"zed": "zed (store): unreadable"})
    collection["refresh"] = SimpleNamespace(
        sources={"new": "server"}, errors={"alpha": "alpha (http://a/v1): refused"}
    )
    collection["models"] = [_BIG, _HAND, _NEW]
    collection["origins"] = {"lab/big-1": "catalog", "lab/s": "hand", "new/n": "fetched"}
    assert main(["models", "--refresh", "--timeout", "2.5"]) == 1
    out, err = capsys.readouterr()
    assert collection["refreshed"] == [(None, 2.5)]
    assert err.splitlines() == [
        "pi-sdk: could not list alpha (http://a/v1): refused",
        "pi-sdk: could not list zed (store): unreadable",
    ]
    lines = out.splitlines()
    assert lines[-2].endswith("  server")  # the refresh's own source wins over the store
    assert lines[-1] == "3 models · prices in USD per million tokens · 2 not listed: alpha, zed"

    collection["refresh"] = SimpleNamespace(sources={}, errors={"alpha": "alpha: refused"})
    collection["offline"] = SimpleNamespace(sources={}, errors={})
    assert main(["models", "--refresh", "--json"]) == 1
    out, err = capsys.readouterr()
    assert err == "pi-sdk: could not list alpha: refused\n"
    assert len(out.splitlines()) == 3


def test_no_failure_has_no_not_listed_part_and_exit_0(
    collection: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    collection["models"] = [_HAND]
    assert main(["models", "--refresh"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 model · prices in USD per million tokens"
    assert collection["refreshed"] == [(None, 10.0)]


def test_the_refresh_asks_the_named_servers_and_provider_once_each_sorted(
    collection: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    collection["listing"] = {"ollama"}
    servers = ["--server", " zz =http://z/v1", "--server", "ollama=http://o/v1"]
    assert main(["models", *servers, "--provider", "ollama"]) == 0
    assert main(["models", "--server", "b=http://b/v1", "--server", "a=http://a/v1"]) == 0
    assert main(["models", "--refresh", "--provider", "ollama"]) == 0
    assert [names for names, _ in collection["refreshed"]] == [
        ["ollama", "zz"],
        ["a", "b"],
        ["ollama"],
    ]
    capsys.readouterr()


_UNKNOWN = "no models registered for provider 'lap' (`pi-sdk models` lists them)"


@pytest.mark.parametrize(
    ("argv", "listing", "message"),
    [
        (
            ["--refresh", "--provider", "lab"],
            set(),
            "provider 'lab' has no model list to refresh (its models are a catalog's);"
            " providers that do: none",
        ),
        (
            ["--refresh", "--provider", "lab"],
            {"ollama", "vllm"},
            "provider 'lab' has no model list to refresh (its models are a catalog's);"
            " providers that do: ollama, vllm",
        ),
        (
            ["--provider", "ollama"],
            {"ollama"},
            "no models listed for provider 'ollama' yet: `pi-sdk models --refresh"
            " --provider ollama` asks its server",
        ),
        (["--provider", "lap"], set(), _UNKNOWN),
        (["--refresh", "--provider", "lap"], set(), _UNKNOWN),
    ],
)
def test_a_provider_with_nothing_to_show_or_refresh_is_status_2(
    collection: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    listing: set[str],
    message: str,
) -> None:
    collection["listing"] = listing
    assert main(["models", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"pi-sdk: error: {message}\n"
    assert collection["refreshed"] == []


@pytest.mark.parametrize(
    "argv",
    [
        ["--provider", "lab"],  # a catalog provider, shown
        ["--refresh", "--provider", "ollama"],  # a listing provider with nothing yet, refreshed
    ],
)
def test_a_provider_with_something_to_show_or_refresh_is_no_error(
    collection: dict[str, Any], capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    collection["listing"] = {"ollama"}
    assert main(["models", *argv]) == 0
    assert capsys.readouterr().err == ""


def test_colour_marks_the_header_the_summary_and_what_was_not_listed(
    collection: dict[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    collection["models"] = [_HAND]
    collection["refresh"] = SimpleNamespace(sources={}, errors={"alpha": "alpha: refused"})
    assert main(["models", "--refresh"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("\033[1mprovider  id") and lines[0].endswith("source\033[0m")
    assert "\033[" not in lines[1]
    assert lines[2] == (
        "\033[2m1 model · prices in USD per million tokens"
        "\033[31m · 1 not listed: alpha\033[0m\033[0m"
    )
