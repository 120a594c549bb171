"""What every ``pi-sdk`` command shares (``pi_sdk/_cli/common.py``): counted nouns, when colour
is on, ANSI styles, warnings as one line each, the ``cli`` extra's check."""

from __future__ import annotations

import importlib.util
import io
import warnings

import pytest

from pi_sdk._cli.common import (
    BOLD,
    RED,
    Style,
    UsageError,
    plural,
    require_cli_extra,
    use_colour,
    warnings_on,
)


@pytest.mark.parametrize(
    ("count", "nouns", "text"),
    [
        (0, None, "0 models"),
        (1, None, "1 model"),
        (2, None, "2 models"),
        (1234, None, "1,234 models"),
        (1, "entries", "1 model"),
        (3, "entries", "3 entries"),
    ],
)
def test_a_count_takes_its_noun_in_the_right_number(count: int, nouns: str | None, text: str):
    assert plural(count, "model", nouns) == text


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("no_colour", "force", "tty", "on"),
    [
        ("", "", True, True),
        ("", "", False, False),
        ("1", "", True, False),  # NO_COLOR wins over a terminal
        ("1", "1", True, False),  # and over FORCE_COLOR
        ("", "1", False, True),  # FORCE_COLOR colours a pipe
    ],
)
def test_colour_is_on_for_a_terminal_unless_no_color_and_forced_by_force_color(
    monkeypatch: pytest.MonkeyPatch, no_colour: str, force: str, tty: bool, on: bool
):
    monkeypatch.setenv("NO_COLOR", no_colour)
    monkeypatch.setenv("FORCE_COLOR", force)
    assert use_colour(_Stream(tty)) is on


def test_a_style_wraps_text_in_its_codes_only_when_enabled():
    on, off = Style(True), Style(False)
    assert on("x", BOLD, RED) == "\033[1;31mx\033[0m"
    assert on("x") == "x"  # no code: the text as it is
    assert off("x", BOLD) == "x"
    assert (on.start(RED), on.reset()) == ("\033[31m", "\033[0m")
    assert (off.start(RED), off.reset()) == ("", "")


def test_each_warning_of_the_block_is_one_line():
    err = io.StringIO()
    with warnings_on(err):
        warnings.warn("first", UserWarning, stacklevel=1)
        warnings.warn("first", UserWarning, stacklevel=1)  # repeated: still said
        warnings.warn("second", DeprecationWarning, stacklevel=1)
    assert err.getvalue() == (
        "pi-sdk: warning: first\npi-sdk: warning: first\npi-sdk: warning: second\n"
    )


def test_the_cli_extra_check_names_what_is_missing(monkeypatch: pytest.MonkeyPatch):
    require_cli_extra("chat")  # both installed here: no error
    found = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "rich" else found(name)
    )
    with pytest.raises(UsageError) as caught:
        require_cli_extra("chat")
    assert str(caught.value) == (
        "`pi-sdk chat` needs the cli extra (rich missing): install it with "
        "`pip install 'pi-sdk-core[cli]'`"
    )
