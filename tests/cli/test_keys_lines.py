"""``pi-sdk keys`` in-process: every line it prints, its exit statuses and the file it writes.

A fresh plugin manager holds one plugin's models of three providers (``lab``, ``long-lab``,
``envlab``) and a plugin that answers ``get_api_key`` for ``envlab`` only; the config folder is
the test's own. The slow end-to-end runs (a real terminal, concurrent writers) are test_keys.py.
"""

from __future__ import annotations

import io
import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import pi_sdk
from pi_sdk._cli import keys as keys_cli
from pi_sdk._cli import main
from pi_sdk._cli.file_lock import LockTimeout
from pi_sdk._models.default import get_api_key
from pi_sdk._plugins.manager import PluginManager, get_plugin_manager
from pi_sdk.plugins.hookspecs import hookimpl

KEY = "pi-test-SECRET-keys-lines-0123456789"


class _Models:
    @hookimpl
    def register_models(self, register: Any) -> None:
        for provider in ("lab", "long-lab", "envlab"):
            register(pi_sdk.Model(id="m", api="x", provider=provider))


class _EnvKey(_Models):
    @hookimpl
    def get_api_key(self, provider: str) -> str | None:
        return "from-the-environment" if provider == "envlab" else None


@pytest.fixture
def keys_file(
    plugin_manager: PluginManager,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Path]:
    """``keys.json`` of the test's config folder (not created)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    plugin_manager.register(_EnvKey(), name="env-key")
    yield tmp_path / "config" / "pi-sdk" / "keys.json"


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


def test_set_reads_the_first_stdin_line_and_says_where_it_went(
    keys_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, f"  {KEY}  \nsecond line\n")
    assert main(["keys", "set", "lab"]) == 0
    assert capsys.readouterr() == (f"stored the key for lab in {keys_file} (mode 0600)\n", "")
    assert keys_file.read_text("utf-8") == f'{{\n  "lab": "{KEY}"\n}}\n'
    assert stat.S_IMODE(keys_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(keys_file.parent.stat().st_mode) == 0o700
    names = {p.name for p in keys_file.parent.iterdir()}
    assert names == {"keys.json", "keys.json.lock"}  # no temporary file left

    _stdin(monkeypatch, "k2\n")
    assert main(["keys", "set", "envlab"]) == 0
    capsys.readouterr()
    assert keys_file.read_text("utf-8") == f'{{\n  "envlab": "k2",\n  "lab": "{KEY}"\n}}\n'


def test_set_on_a_terminal_asks_a_hidden_prompt(
    keys_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class _Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    prompts: list[str] = []

    def getpass(prompt: str) -> str:
        prompts.append(prompt)
        return f" {KEY}\n"

    monkeypatch.setattr("sys.stdin", _Terminal("not this\n"))
    monkeypatch.setattr("getpass.getpass", getpass)
    assert main(["keys", "set", "lab"]) == 0
    assert prompts == ["API key for lab (not shown): "]
    assert KEY not in capsys.readouterr().out
    assert json.loads(keys_file.read_text("utf-8")) == {"lab": KEY}


@pytest.mark.parametrize("typed", ["", "\n", "   \n"])
def test_set_without_a_key_is_status_2_and_writes_nothing(
    keys_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    typed: str,
) -> None:
    _stdin(monkeypatch, typed)
    assert main(["keys", "set", "lab"]) == 2
    assert capsys.readouterr() == (
        "",
        "pi-sdk: error: no key given (type it at the prompt, or pipe it on stdin)\n",
    )
    assert not keys_file.exists()


def test_set_of_an_unknown_provider_is_status_2_before_reading_a_key(
    keys_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, f"{KEY}\n")
    assert main(["keys", "set", "labb"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("pi-sdk: error: no models registered for provider 'labb'")
    assert err.count("\n") == 1
    assert sys.stdin.read() == f"{KEY}\n"  # the key was not read
    assert not keys_file.exists()


def test_list_without_keys_says_how_to_add_one(
    keys_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    get_plugin_manager().unregister(name="env-key")
    get_plugin_manager().register(_Models(), name="models")
    assert main(["keys", "list"]) == 0
    assert capsys.readouterr() == (
        "no API keys: `pi-sdk keys set PROVIDER` stores one, or set the vendor's variable\n",
        "",
    )


def test_list_aligns_stored_keys_then_the_environment_and_never_prints_a_key(
    keys_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["keys", "list"]) == 0
    assert capsys.readouterr().out == "envlab  environment or plugin\n"
    for provider in ("long-lab", "lab"):
        _stdin(monkeypatch, f"{KEY}\n")
        assert main(["keys", "set", provider]) == 0
    capsys.readouterr()
    assert main(["keys", "list"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.splitlines() == [
        f"lab       keys file ({keys_file})",
        f"long-lab  keys file ({keys_file})",
        "envlab    environment or plugin",
    ]


def test_remove_says_what_it_removed_then_that_there_is_nothing(
    keys_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for provider in ("lab", "long-lab"):
        _stdin(monkeypatch, f"{KEY}\n")
        assert main(["keys", "set", provider]) == 0
    capsys.readouterr()
    assert main(["keys", "remove", "lab"]) == 0
    assert capsys.readouterr() == (f"removed the key for lab from {keys_file}\n", "")
    assert json.loads(keys_file.read_text("utf-8")) == {"long-lab": KEY}
    assert main(["keys", "remove", "lab"]) == 1
    assert capsys.readouterr() == ("", "pi-sdk: no stored key for provider 'lab'\n")
    assert json.loads(keys_file.read_text("utf-8")) == {"long-lab": KEY}


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("[1, 2]", "is not a JSON object of strings"),
        ('{"lab": 1}', "is not a JSON object of strings"),
        ('{"lab": "k", "x": null}', "is not a JSON object of strings"),
        ("{nope", "not valid JSON"),
    ],
)
@pytest.mark.parametrize("command", [["list"], ["remove", "lab"], ["set", "lab"]])
def test_a_malformed_keys_file_is_status_2_naming_the_file_not_its_content(
    keys_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    content: str,
    problem: str,
    command: list[str],
) -> None:
    keys_file.parent.mkdir(parents=True, mode=0o700)
    keys_file.write_text(content, "utf-8")
    keys_file.chmod(0o600)
    _stdin(monkeypatch, f"{KEY}\n")
    assert main(["keys", *command]) == 2
    message = (
        f"cannot read the keys file {keys_file}: not valid JSON"
        if problem == "not valid JSON"
        else f"the keys file {keys_file} {problem}"
    )
    assert capsys.readouterr() == ("", f"pi-sdk: error: {message}\n")
    assert keys_file.read_text("utf-8") == content  # nothing lost


def test_an_unreadable_keys_file_names_the_reason(
    keys_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys_file.mkdir(parents=True, mode=0o700)  # a folder where the file should be
    assert main(["keys", "list"]) == 2
    assert capsys.readouterr().err == (
        f"pi-sdk: error: cannot read the keys file {keys_file}: Is a directory\n"
    )


def test_a_keys_file_others_can_read_is_made_owner_only_with_one_warning(
    keys_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys_file.parent.mkdir(parents=True, mode=0o700)
    keys_file.write_text(f'{{"lab": "{KEY}"}}', "utf-8")
    keys_file.chmod(0o640)
    assert main(["keys", "list"]) == 0
    out, err = capsys.readouterr()
    assert err == (
        f"pi-sdk: warning: the keys file {keys_file} was readable by others (mode 0640); it is"
        " now owner-only (0600): rotate its keys if others could read them\n"
    )
    assert stat.S_IMODE(keys_file.stat().st_mode) == 0o600
    assert main(["keys", "list"]) == 0
    assert capsys.readouterr().err == ""  # once
    keys_file.chmod(0o604)  # a world bit alone counts too
    assert main(["keys", "list"]) == 0
    assert "(mode 0604)" in capsys.readouterr().err


def test_windows_has_no_modes_to_fix(keys_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    keys_file.parent.mkdir(parents=True)
    keys_file.write_text("{}", "utf-8")
    keys_file.chmod(0o644)
    store = keys_cli.KeyStore(keys_file)
    monkeypatch.setattr(os, "name", "nt")
    store._owner_only()  # pyright: ignore[reportPrivateUsage]
    monkeypatch.undo()
    assert stat.S_IMODE(keys_file.stat().st_mode) == 0o644


def test_a_lock_held_too_long_is_status_2_with_its_message(
    keys_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def held(path: Path) -> None:
        raise LockTimeout(f"another pi-sdk holds {path}")

    monkeypatch.setattr(keys_cli, "file_lock", held)
    _stdin(monkeypatch, f"{KEY}\n")
    assert main(["keys", "set", "lab"]) == 2
    lock = keys_file.parent / "keys.json.lock"
    assert capsys.readouterr() == ("", f"pi-sdk: error: another pi-sdk holds {lock}\n")
    assert not keys_file.exists()


def test_the_stored_key_answers_before_other_plugins_only_inside_the_block(keys_file: Path):
    keys_cli.KeyStore().update(lambda keys: keys.update(envlab=KEY))
    assert get_api_key("envlab") == "from-the-environment"
    with keys_cli.stored_keys():
        assert get_api_key("envlab") == KEY
        assert get_api_key("lab") is None
        # a plugin registered later (pluggy would ask it first) still comes after the file
        get_plugin_manager().register(_EnvKey(), name="env-key-later")
        assert get_api_key("envlab") == KEY
        get_plugin_manager().unregister(name="env-key-later")
    assert get_api_key("envlab") == "from-the-environment"


def test_keys_without_an_action_is_a_usage_error_naming_the_action(
    keys_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["keys"])
    assert raised.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines()[-1] == (
        "pi-sdk keys: error: the following arguments are required: ACTION"
    )
    assert not keys_file.exists()
