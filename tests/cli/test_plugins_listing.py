"""``pi-sdk plugins``: one row per plugin and a summary that counts them and their failures."""

from __future__ import annotations

import json

import pytest

import pi_sdk._plugins.listing as listing
from pi_sdk._cli import main
from pi_sdk._plugins.listing import PluginInfo


def _good(name: str) -> PluginInfo:
    return PluginInfo(name=name, hooks=("pi_sdk_register",), distribution=f"pi-sdk-{name}",
                      version="1.0")  # fmt: skip


BROKEN = PluginInfo(name="broken", hooks=(), error="ImportError: no module named 'x'")


@pytest.mark.parametrize(
    ("infos", "summary", "status"),
    [
        ([], "0 plugins", 0),
        ([_good("a")], "1 plugin", 0),
        ([_good("a"), _good("b")], "2 plugins", 0),
        ([_good("a"), _good("b"), _good("c")], "3 plugins", 0),
        ([BROKEN], "1 plugin · 1 failed to load", 1),
        ([_good("a"), BROKEN], "2 plugins · 1 failed to load", 1),
    ],
    ids=["none", "one", "two", "three", "one-broken", "two-one-broken"],
)
def test_the_summary_line_counts_plugins_and_failures(
    infos: list[PluginInfo],
    summary: str,
    status: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
):
    monkeypatch.setattr(listing, "describe_plugins", lambda: infos)
    assert main(["plugins"]) == status
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == summary
    assert len(lines) == 1 + len(infos) + 1  # header, rows, summary
    for info, row in zip(infos, lines[1:-1], strict=True):
        assert row.startswith(info.name)
        assert row.endswith(f"failed to load: {info.error}" if info.error else "pi_sdk_register")


def test_json_lines_one_per_plugin_and_the_status_of_a_failure(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setattr(listing, "describe_plugins", lambda: [_good("a"), BROKEN])
    assert main(["plugins", "--json"]) == 1
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["name"] for r in rows] == ["a", "broken"]
    assert rows[1]["error"] == BROKEN.error


def test_every_row_is_aligned_under_the_header_with_dashes_for_what_is_unknown(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    infos = [
        PluginInfo(
            name="a-long-plugin-name",
            hooks=("register_models", "get_api_key"),
            distribution="pi-sdk-x",
            version="10.2.3",
        ),  # fmt: skip
        PluginInfo(name="local", hooks=("pi_sdk_register",)),
        BROKEN,
    ]
    monkeypatch.setattr(listing, "describe_plugins", lambda: infos)
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["plugins"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "plugin              distribution  version  hooks",
        "a-long-plugin-name  pi-sdk-x      10.2.3   register_models, get_api_key",
        "local               -             -        pi_sdk_register",
        "broken              -             -        failed to load: " + BROKEN.error,
        "3 plugins · 1 failed to load",
    ]


def test_colour_marks_the_header_the_failures_and_the_summary(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setattr(listing, "describe_plugins", lambda: [_good("a"), BROKEN])
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert main(["plugins"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "\033[1mplugin  distribution  version  hooks\033[0m",
        "a       pi-sdk-a      1.0      pi_sdk_register",
        f"broken  -             -        \033[31mfailed to load: {BROKEN.error}\033[0m",
        "\033[2m2 plugins · 1 failed to load\033[0m",
    ]


@pytest.mark.parametrize("infos", [[], [_good("a")], [_good("a"), _good("café")]])
def test_json_lines_exit_0_when_every_plugin_loaded(
    infos: list[PluginInfo], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setattr(listing, "describe_plugins", lambda: infos)
    assert main(["plugins", "--json"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [json.dumps(i.to_dict(), ensure_ascii=False) for i in infos]


def test_json_lines_keep_non_ascii_text_as_it_is(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    odd = PluginInfo(name="café", hooks=(), error="ImportError: no module named 'café'")
    monkeypatch.setattr(listing, "describe_plugins", lambda: [odd])
    assert main(["plugins", "--json"]) == 1
    out = capsys.readouterr().out
    assert "café" in out and "\\u00e9" not in out
    assert json.loads(out)["name"] == "café"
