"""Shared fixtures."""

import pytest

from pi_sdk.plugins import PluginManager, use_plugin_manager


@pytest.fixture
def plugin_manager():
    """A fresh, empty plugin manager, active for the test (installed plugins are not loaded).

    Register plugin objects with ``plugin_manager.register(obj, name=...)``; the registries
    fill from them on next access. The previous manager is restored afterwards.
    """
    with use_plugin_manager(PluginManager()) as pm:
        yield pm
