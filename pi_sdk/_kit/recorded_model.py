"""recorded_model: the model a recorded request was sent to, for a provider's ``recognize``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pi_sdk.errors import ModelNotFoundError
from pi_sdk.types import Model

__all__ = ["recorded_model"]


def recorded_model(
    provider: str,
    model_id: str,
    *,
    api: str,
    base_url: str,
    aliases: Sequence[str] = (),
    **stand_in: Any,
) -> Model:
    """The catalog's model for a recorded request (``pi-sdk replay``), else a stand-in.

    Args:
        provider: The catalog provider the request's vendor serves (``"anthropic"``).
        model_id: The model id the request named (body or path).
        api: The wire API the request spoke; the returned model's ``api``.
        base_url: Where the request went (the URI up to the API's path); the returned model's
            ``base_url``, so a replay calls the same server.
        aliases: Catalog ids tried, in order, when ``model_id`` is not registered (Bedrock's id
            without a cross-region profile prefix); the returned model keeps ``model_id``.
        **stand_in: Fields of the stand-in :class:`~pi_sdk.types.Model` (``reasoning``,
            ``input``, ...) for an id the catalog lacks; its ``name`` is the id.

    Returns:
        The registered model (prices, limits kept; its ``compat`` too when it speaks ``api``: the
        flags are the API's own) with ``id``, ``api`` and ``base_url`` set as above, or the
        stand-in.
    """
    from pi_sdk._models.default import get_model  # at replay, not when a provider is discovered

    for candidate in (model_id, *aliases):
        try:
            known = get_model(provider, candidate)
        except ModelNotFoundError:
            continue
        update: dict[str, Any] = {"id": model_id, "api": api, "base_url": base_url}
        if known.api != api:
            update["compat"] = None  # e.g. a Responses model's flags on a Chat Completions call
        return known.model_copy(update=update)
    return Model(
        id=model_id, name=model_id, api=api, provider=provider, base_url=base_url, **stand_in
    )
