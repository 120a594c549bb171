"""check_provider_options: the one rule for ``StreamOptions.provider_options`` keys."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from pi_sdk.errors import ConfigurationError
from pi_sdk.options import StreamOptions

__all__ = ["check_provider_options"]


def check_provider_options(
    options: StreamOptions, known: Collection[str], api: str
) -> dict[str, Any]:
    """Return ``options.provider_options`` once every key is one the API reads.

    A key the API does not read would be silently ignored (a typo such as ``"thinkng"``), so
    it is an error, before any I/O.

    Args:
        options: The call's options.
        known: The ``provider_options`` keys the wire API reads.
        api: The wire API's name, for the message (``"anthropic-messages"``).

    Raises:
        ConfigurationError: ``"unknown <api> provider_options ['<key>', ...]; known: [...]"``.
    """
    unknown = sorted(set(options.provider_options) - set(known))
    if unknown:
        raise ConfigurationError(
            f"unknown {api} provider_options {unknown}; known: {sorted(known)}"
        )
    return options.provider_options
