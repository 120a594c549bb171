"""Catalog base URLs with ``{NAME}`` placeholders filled in from the environment.

pi-ai 0.73.1's Cloudflare models carry ``https://api.cloudflare.com/client/v4/accounts/
{CLOUDFLARE_ACCOUNT_ID}/ai/v1`` (and ``{CLOUDFLARE_GATEWAY_ID}`` for AI Gateway); pi-ai fills the
names in from ``process.env`` at each request (``resolveCloudflareBaseUrl``). A client calls
:func:`resolve_base_url` where it reads ``model.base_url``.
"""

from __future__ import annotations

import os
import re

from pi_sdk.errors import ConfigurationError
from pi_sdk.types import Model

__all__ = ["resolve_base_url"]

_PLACEHOLDER = re.compile(r"\{([A-Z_][A-Z0-9_]*)\}")


def resolve_base_url(model: Model) -> str:
    """``model.base_url`` with each ``{NAME}`` replaced by the environment variable ``NAME``.

    Only upper-case names are placeholders (pi-ai's rule); others, such as Vertex AI's
    ``{location}``, are left for the provider. The environment is read at each call; a URL
    without placeholders is returned as is.

    Raises:
        ConfigurationError: a named variable is unset or empty (the message names it and
            ``model.provider``).
    """
    url = model.base_url
    if "{" not in url:
        return url

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        found = os.environ.get(name)
        if not found:
            raise ConfigurationError(
                f"{name} is required for provider {model.provider!r} but is not set"
            )
        return found

    return _PLACEHOLDER.sub(value, url)
