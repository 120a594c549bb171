"""Providers that share an id, merged; a provider's settings laid onto its models.

A gateway's models can come from several packages, one per wire API (``opencode`` has models on
``anthropic-messages``, ``openai-completions``, ``openai-responses`` and
``google-generative-ai``), so a collection merges the providers that share an id: catalogs and
wire APIs join, environment variables are tried in the order they came, and a setting two of
them give differently (base URL, a header, an explicit key, a callback, a model fetcher, an
implementation of one API) is a :class:`~pi_sdk.ConfigurationError`: nothing is guessed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from pi_sdk._stream.contract import ApiProvider
from pi_sdk._stream.provider import ModelSource, Provider, ProviderAuth
from pi_sdk.errors import ConfigurationError
from pi_sdk.types import Model

__all__ = ["merge_provider", "with_provider_settings"]


def merge_provider(first: Provider, second: Provider) -> Provider:
    """One provider holding both (same id): see the module doc for the rules.

    Raises:
        ConfigurationError: the two give one setting different values; the message names the
            provider and the setting.
    """
    if first is second:
        return first

    def one(setting: str, a: Any, b: Any) -> Any:
        if a is None or a == {} or b is None or b == {} or a is b or a == b:
            return b if a is None or a == {} else a
        raise ConfigurationError(
            f"provider {first.id!r} is given twice with a different {setting}; configure one"
        )

    headers = dict(first.headers or {})
    for name, value in (second.headers or {}).items():
        headers[name] = one(f"header {name!r}", headers.get(name), value)
    auth = ProviderAuth(
        api_key=one("explicit API key", first.auth.api_key, second.auth.api_key),
        env=tuple(dict.fromkeys((*first.auth.env, *second.auth.env))),
        get_api_key=one("key callback", first.auth.get_api_key, second.auth.get_api_key),
        oauth=one("OAuth setting", first.auth.oauth, second.auth.oauth),
    )
    apis: dict[str, ApiProvider] = {api.api: api for api in first.apis}
    for api in second.apis:
        apis[api.api] = one(f"implementation of {api.api!r}", apis.get(api.api), api)
    return dataclasses.replace(
        first,
        name=first.name or second.name,
        base_url=one("base URL", first.base_url, second.base_url),
        headers=headers or None,
        auth=auth,
        models=_joined(first.models, second.models),
        fetch_models=one("model fetcher", first.fetch_models, second.fetch_models),
        apis=tuple(apis.values()),
    )


def _joined(first: ModelSource, second: ModelSource) -> ModelSource:
    """Both catalogs, read when the collection reads them."""

    def read() -> list[Model]:
        models: list[Model] = []
        for source in (first, second):
            models += source() if callable(source) else source
        return models

    return read


def with_provider_settings(provider: Provider, models: Iterable[Model]) -> list[Model]:
    """``models`` with ``provider``'s base URL and default headers applied (copies, not in place).

    The provider's base URL replaces each model's; its headers go under each model's own.
    """
    if not provider.base_url and not provider.headers:
        return list(models)
    updated: list[Model] = []
    for model in models:
        changes: dict[str, Any] = {}
        if provider.base_url:
            changes["base_url"] = provider.base_url
        if provider.headers:
            changes["headers"] = {**provider.headers, **(model.headers or {})}
        updated.append(model.model_copy(update=changes))
    return updated
