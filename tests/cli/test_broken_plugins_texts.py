"""Every warning and refusal ``refuse_broken_plugins`` can give, in process, each text whole.

:mod:`pi_sdk._cli.broken_plugins` (the commands that run it are tested end to end in
``test_broken_plugins.py``): with the user's opt-out (``--allow-broken-plugins``, or
``PI_SDK_ALLOW_BROKEN_PLUGINS`` set to each value that means yes) one warning per plugin that
failed to load, then one per name ``PI_SDK_LOAD_PLUGINS`` asks for that is not installed;
without it, the refusal for one or several failed plugins (with and without a known
distribution) and for one or several missing names; nothing at all when every plugin loaded.
"""

from __future__ import annotations

import argparse
import io
from collections.abc import Iterator

import pytest

from pi_sdk._cli.broken_plugins import (
    ALLOW_BROKEN_PLUGINS_ENV,
    add_broken_plugins_option,
    refuse_broken_plugins,
)
from pi_sdk._cli.common import UsageError
from pi_sdk.errors import PluginLoadError
from pi_sdk.plugins import PluginManager, use_plugin_manager

OPT_OUT = "run without it: --allow-broken-plugins (or PI_SDK_ALLOW_BROKEN_PLUGINS=1)"
OPT_OUT_SEVERAL = "run without them: --allow-broken-plugins (or PI_SDK_ALLOW_BROKEN_PLUGINS=1)"


@pytest.fixture
def manager(monkeypatch: pytest.MonkeyPatch) -> Iterator[PluginManager]:
    """A plugin manager with nothing loaded, in use; the opt-out variable unset."""
    monkeypatch.delenv(ALLOW_BROKEN_PLUGINS_ENV, raising=False)
    with use_plugin_manager(PluginManager()) as pm:
        yield pm


def _broken(pm: PluginManager, *names: str, distributions: dict[str, str] | None = None) -> None:
    for name in names:
        pm.load_errors.append(PluginLoadError(name, ImportError(f"no module {name}")))
    for name, distribution in (distributions or {}).items():
        pm.distributions[name] = (distribution, "1.0")


def _args(allow: bool = False) -> argparse.Namespace:
    return argparse.Namespace(allow_broken_plugins=allow)


def _refusal(args: argparse.Namespace | None = None) -> str:
    err = io.StringIO()
    with pytest.raises(UsageError) as raised:
        refuse_broken_plugins(args or _args(), err)
    assert err.getvalue() == ""
    return str(raised.value)


@pytest.mark.parametrize("allow", [False, True])
def test_nothing_is_said_when_every_plugin_loaded(manager: PluginManager, allow: bool):
    err = io.StringIO()
    refuse_broken_plugins(_args(allow), err)
    assert err.getvalue() == ""


@pytest.mark.parametrize(
    ("allow", "variable"),
    [(True, None), (False, "1"), (False, "true"), (False, " YES "), (False, "On")],
)
def test_opting_out_warns_once_for_each_failed_then_each_missing_plugin(
    manager: PluginManager, monkeypatch: pytest.MonkeyPatch, allow: bool, variable: str | None
):
    if variable is not None:
        monkeypatch.setenv(ALLOW_BROKEN_PLUGINS_ENV, variable)
    _broken(manager, "policy", "audit", distributions={"policy": "pi-sdk-policy"})
    manager.missing.extend(["polcy", "otel-x"])
    err = io.StringIO()
    refuse_broken_plugins(_args(allow), err)
    assert err.getvalue().splitlines() == [
        "pi-sdk: warning: running without plugin 'policy', which failed to load",
        "pi-sdk: warning: running without plugin 'audit', which failed to load",
        "pi-sdk: warning: running without plugin 'polcy', which is not installed",
        "pi-sdk: warning: running without plugin 'otel-x', which is not installed",
    ]


def test_opting_out_with_only_missing_names_warns_for_each(manager: PluginManager):
    manager.missing.append("polcy")
    err = io.StringIO()
    refuse_broken_plugins(_args(allow=True), err)
    assert err.getvalue() == (
        "pi-sdk: warning: running without plugin 'polcy', which is not installed\n"
    )


@pytest.mark.parametrize("variable", ["0", "no", "", "off", "2", "yes please"])
def test_other_values_of_the_variable_do_not_opt_out(
    manager: PluginManager, monkeypatch: pytest.MonkeyPatch, variable: str
):
    monkeypatch.setenv(ALLOW_BROKEN_PLUGINS_ENV, variable)
    manager.missing.append("polcy")
    assert _refusal().startswith("PI_SDK_LOAD_PLUGINS names 'polcy'")


@pytest.mark.parametrize(
    ("names", "distributions", "text"),
    [
        (
            ["policy"],
            {"policy": "pi-sdk-policy"},
            "plugin 'policy' (pi-sdk-policy) failed to load, so none of its hooks would apply"
            " (a tool policy, a redaction, ...); fix it or `pip uninstall pi-sdk-policy`, or "
            + OPT_OUT,
        ),
        (
            ["policy"],
            {},
            "plugin 'policy' failed to load, so none of its hooks would apply (a tool policy,"
            " a redaction, ...); fix it, or " + OPT_OUT,
        ),
        (
            ["policy", "audit", "local"],
            {"policy": "pi-sdk-policy", "audit": "pi-sdk-audit"},
            "plugins 'policy' (pi-sdk-policy), 'audit' (pi-sdk-audit), 'local' failed to load,"
            " so none of their hooks would apply (a tool policy, a redaction, ...); fix them or"
            " `pip uninstall pi-sdk-policy pi-sdk-audit`, or " + OPT_OUT_SEVERAL,
        ),
    ],
)
def test_a_failed_plugin_is_refused_naming_it_its_distribution_and_the_fixes(
    manager: PluginManager, names: list[str], distributions: dict[str, str], text: str
):
    _broken(manager, *names, distributions=distributions)
    manager.missing.append("polcy")  # a failed plugin is what the refusal is about
    assert _refusal() == text


@pytest.mark.parametrize(
    ("missing", "text"),
    [
        (
            ["polcy"],
            "PI_SDK_LOAD_PLUGINS names 'polcy', which is not an installed plugin, so none of"
            " its hooks would apply; correct the name (`pi-sdk plugins` lists the installed"
            " ones), or " + OPT_OUT,
        ),
        (
            ["polcy", "otel-x"],
            "PI_SDK_LOAD_PLUGINS names 'polcy', 'otel-x', which are not installed, so none of"
            " their hooks would apply; correct the names (`pi-sdk plugins` lists the installed"
            " ones), or " + OPT_OUT_SEVERAL,
        ),
    ],
)
def test_a_name_to_load_that_is_not_installed_is_refused(
    manager: PluginManager, missing: list[str], text: str
):
    manager.missing.extend(missing)
    assert _refusal() == text


def test_the_option_is_off_unless_given():
    parser = argparse.ArgumentParser()
    add_broken_plugins_option(parser)
    assert parser.parse_args([]).allow_broken_plugins is False
    assert parser.parse_args(["--allow-broken-plugins"]).allow_broken_plugins is True
