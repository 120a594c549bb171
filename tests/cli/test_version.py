"""``pi-sdk --version``: the installed pi-sdk-core's version, or ``unknown`` from a source tree."""

from __future__ import annotations

from importlib import metadata

import pytest

import pi_sdk._cli as cli


def _version(capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as raised:
        cli.main(["--version"])
    assert raised.value.code == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def test_the_version_is_the_installed_distributions(capsys: pytest.CaptureFixture[str]) -> None:
    assert _version(capsys) == f"pi-sdk {metadata.version('pi-sdk-core')}\n"


def test_a_source_tree_not_installed_is_unknown(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(cli.metadata, "version", not_installed)
    assert _version(capsys) == "pi-sdk unknown\n"
