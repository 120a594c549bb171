"""The CLI's advice for a provider with no models, said in-process for every case.

In a fresh plugin manager no provider has models, while the workspace has the first-party
packages installed: the message then says why an installed package registered none.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pi_sdk._cli import hints
from pi_sdk._plugins.manager import LOAD_PLUGINS_ENV, PluginManager


def test_only_installed_distributions_are_found() -> None:
    assert hints._installed(("pi-sdk-anthropic", "pi-sdk-no-such-package", "pi-sdk-openai")) == {  # pyright: ignore[reportPrivateUsage]
        "pi-sdk-anthropic",
        "pi-sdk-openai",
    }
    assert hints._installed(()) == frozenset()  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("provider", "left_out", "hint"),
    [
        ("anthropic", False, "; pi-sdk-anthropic is installed but registered none"
         " (`pi-sdk plugins` says why)"),
        ("anthropic", True, f"; pi-sdk-anthropic is installed but {LOAD_PLUGINS_ENV} leaves it"
         " out"),
        ("fireworks", False, "; pi-sdk-anthropic and pi-sdk-openai are installed but registered"
         " none (`pi-sdk plugins` says why)"),
        ("fireworks", True, f"; pi-sdk-anthropic and pi-sdk-openai are installed but"
         f" {LOAD_PLUGINS_ENV} leaves them out"),
        ("no-such-vendor", True, ""),
    ],
)  # fmt: skip
def test_an_installed_package_with_no_models_says_why(
    plugin_manager: PluginManager,
    monkeypatch: pytest.MonkeyPatch,
    provider: str,
    left_out: bool,
    hint: str,
) -> None:
    if left_out:
        monkeypatch.setenv(LOAD_PLUGINS_ENV, "something-else")
    else:
        monkeypatch.delenv(LOAD_PLUGINS_ENV, raising=False)
    assert hints.unknown_provider(provider) == (
        f"no models registered for provider {provider!r}{hint} (`pi-sdk models` lists them)"
    )


def test_a_loaded_package_that_registered_none_is_not_said_to_be_left_out(
    plugin_manager: PluginManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LOAD_PLUGINS_ENV, "anthropic")
    loaded = SimpleNamespace(distributions={"anthropic": ("pi-sdk-anthropic", "1.0")})
    monkeypatch.setattr(hints, "get_plugin_manager", lambda: loaded)
    assert hints._installed_hint("fireworks") == (  # pyright: ignore[reportPrivateUsage]
        "; pi-sdk-anthropic and pi-sdk-openai are installed but registered none"
        " (`pi-sdk plugins` says why)"
    )
