"""``pi-sdk mcp list`` and ``chat --mcp``: pi-sdk-mcp's CLI, or the line that says to install it."""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

import pytest

from pi_sdk._cli import main
from pi_sdk._cli import mcp as mcp_cli
from pi_sdk._cli.common import UsageError


def test_without_pi_sdk_mcp_the_option_names_the_package(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(sys.modules, "pi_sdk_mcp.cli", None)  # import fails
    with pytest.raises(UsageError) as raised:
        mcp_cli.mcp_cli("--mcp")
    assert str(raised.value) == "--mcp needs pi-sdk-mcp: install it with `pip install pi-sdk-mcp`"


def test_mcp_list_without_pi_sdk_mcp_is_status_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setitem(sys.modules, "pi_sdk_mcp.cli", None)
    assert main(["mcp", "list", "servers.json"]) == 2
    assert capsys.readouterr() == (
        "",
        "pi-sdk: error: `pi-sdk mcp list` needs pi-sdk-mcp: install it with"
        " `pip install pi-sdk-mcp`\n",
    )


@pytest.mark.parametrize(("argv", "as_json"), [([], False), (["--json"], True)])
def test_mcp_list_hands_the_file_and_json_to_pi_sdk_mcp_and_returns_its_status(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], as_json: bool
):
    calls: list[Any] = []

    def list_servers(config: str, *, as_json: bool, out: Any) -> int:
        calls.append((config, as_json, out is sys.stdout))
        return 1

    monkeypatch.setattr(
        mcp_cli, "mcp_cli", lambda option: SimpleNamespace(list_servers=list_servers)
    )
    assert main(["mcp", "list", "servers.json", *argv]) == 1
    assert calls == [("servers.json", as_json, True)]


def test_mcp_without_an_action_is_a_usage_error_naming_it(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as ended:
        main(["mcp"])
    assert ended.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines()[-1] == "pi-sdk mcp: error: the following arguments are required: ACTION"
