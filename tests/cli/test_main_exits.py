"""``pi-sdk``'s own exit statuses for what escapes a command (``pi_sdk._cli.main``'s docstring).

A command returns its status; what it raises is turned into one: a pi-sdk or usage error is
one ``pi-sdk: error:`` line and 2, Ctrl-C outside a turn (while plugins load, or in a command
that does not catch it) is ``pi-sdk: interrupted`` and 130, stdout's reader leaving early is
141 with nothing said. Anything else is a bug and is not swallowed.
"""

from __future__ import annotations

import pytest

import pi_sdk._cli as cli
from pi_sdk import ConfigurationError
from pi_sdk._cli.common import UsageError


def _raising(exc: BaseException):
    def load_registry(err: object) -> None:
        raise exc

    return load_registry


@pytest.mark.parametrize(
    ("raised", "status", "said"),
    [
        (KeyboardInterrupt(), 130, "pi-sdk: interrupted\n"),
        (ConfigurationError("bad model.compat"), 2, "pi-sdk: error: bad model.compat\n"),
        (UsageError("no such file: x.yaml"), 2, "pi-sdk: error: no such file: x.yaml\n"),
    ],
    ids=["ctrl-c", "pi-sdk-error", "usage-error"],
)
def test_what_escapes_a_command_is_one_line_and_its_status(
    raised: BaseException,
    status: int,
    said: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
):
    monkeypatch.setattr(cli, "load_registry", _raising(raised))
    assert cli.main(["plugins"]) == status
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", said)


def test_a_reader_that_left_is_141_and_nothing_said(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    silenced: list[bool] = []
    monkeypatch.setattr(cli, "load_registry", _raising(BrokenPipeError()))
    monkeypatch.setattr(cli, "silence_stdout", lambda: silenced.append(True))
    assert cli.main(["plugins"]) == 141
    assert silenced == [True]
    assert capsys.readouterr().err == ""


def test_any_other_exception_is_a_bug_and_is_not_swallowed(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(cli, "load_registry", _raising(ZeroDivisionError("bug")))
    with pytest.raises(ZeroDivisionError):
        cli.main(["plugins"])


@pytest.mark.parametrize(
    ("extras", "said"),
    [
        (["--jsn"], "--jsn (did you mean --json?)"),
        (["--jsn=yes"], "--jsn=yes (did you mean --json?)"),  # the value is not compared
        (["--qqqqqq"], "--qqqqqq"),
        (["--jsn", "--qqqqqq", "--provder"], "--jsn (did you mean --json?) --qqqqqq"
         " --provder (did you mean --provider?)"),
    ],
)  # fmt: skip
def test_each_unknown_option_is_named_with_the_closest_one(
    extras: list[str], said: str, capsys: pytest.CaptureFixture[str]
):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["models", *extras])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"pi-sdk models: error: unrecognized arguments: {said}"
    )


def test_the_commands_are_listed_in_help_order(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    order = ["prompt", "chat", "keys", "replay", "models", "plugins", "mcp", "serve"]
    places = [out.index(f"\n    {name} ") for name in order]
    assert places == sorted(places)
