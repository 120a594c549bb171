"""Where the kit finds the provider under test: the one place that knows how one is installed.

A declaration with a ``plugin`` (a package's ``Provider`` objects, or hook implementations)
gets a fresh plugin manager holding that plugin alone (:func:`pi_sdk.plugins.use_plugin_manager`),
whose default collection :func:`pi_sdk.stream` then calls; one without uses the installed entry
points.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Generator
from contextlib import contextmanager
from typing import Any

import pi_sdk
from pi_sdk import AssistantMessageEvent, Context, Model, StreamOptions
from pi_sdk.plugins import use_plugin_manager
from pi_sdk_pytest.conformance.declaration import ProviderUnderTest

__all__ = ["provider_installed", "raw_stream"]


@contextmanager
def provider_installed(subject: ProviderUnderTest) -> Generator[None]:
    """Make ``subject``'s provider the one :func:`pi_sdk.stream` finds, for the ``with`` block."""
    if subject.plugin is None:
        yield
        return
    with use_plugin_manager() as manager:
        manager.register(subject.plugin, name=f"pi-sdk-conformance-{subject.name}")
        yield


def raw_stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent] | None:
    """The provider's own stream function called directly, past the core's contract checks.

    ``None`` when the registered stream function does not return an async iterator of events
    (a provider that hands the core a call plan to run: its events are the core's).
    """
    implementation = pi_sdk.get_api_provider(model.api)
    if implementation.stream is None:  # a call plan: the core's read loop makes its events
        return None
    produced: Any = implementation.stream(model, context, options)
    return produced if hasattr(produced, "__anext__") else None
