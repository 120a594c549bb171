"""The Agent's model fallback: ``Agent(fallback=...)``, checked when it is given (issue 28).

The Agent-level fallback is the stream-level one (:class:`pi_sdk.FallbackPolicy`,
:mod:`pi_sdk._models.fallback_stream`) given once to the Agent: every model call of every run
carries it as ``StreamOptions.fallback``, so a turn whose model fails moves on to the next model
by the same rules (before any content transparently, after content per ``after_content``), and
the reply that ends the turn names the model that answered. What the Agent adds is the check up
front, where the mistake is made, instead of at the first call:

* every ``"provider/id"`` is looked up in the collection the Agent's calls go through (the
  ``Models`` whose ``stream`` is the Agent's ``stream_fn``, else the default collection): an
  unknown one is a :class:`~pi_sdk.errors.ModelNotFoundError` naming it;
* a chain that would try the same model twice with nothing changed (``[gpt, gpt]``, or the
  Agent's own model in the list) is a :class:`ValueError` naming it, at construction and again
  when the model or the fallback is changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from pi_sdk.types import Model

if TYPE_CHECKING:  # imported when a fallback is given: an Agent without one never loads them
    from pi_sdk._models.fallback import FallbackEntry, FallbackPolicy, ModelLookup

__all__ = ["AgentFallback", "check_fallback", "fallback_collection"]

AgentFallback: TypeAlias = (
    "FallbackPolicy | Sequence[Model | str | FallbackEntry | tuple[Model | str, Mapping[str, Any]]]"
)
"""``Agent(fallback=...)``: a policy, or the models to move on to in order (a policy with its
defaults)."""


def fallback_collection(stream_fn: object) -> ModelLookup:
    """Where the Agent's calls resolve models: the ``Models`` of a bound ``models.stream``."""
    from pi_sdk._models.collection import Models
    from pi_sdk._models.default import default_models

    owner = getattr(stream_fn, "__self__", None)
    return owner if isinstance(owner, Models) else default_models()


def check_fallback(
    value: AgentFallback | None, model: Model | None, stream_fn: object
) -> FallbackPolicy | None:
    """``value`` as a checked policy for an Agent of ``model`` (module docstring).

    Raises:
        TypeError: neither a policy nor a list of models (a bare string, e.g.).
        ModelNotFoundError: a ``"provider/id"`` names no model of the collection.
        ProviderNotFoundError: no installed wire API serves a model of the list.
        ValueError: the chain tries one model twice with the same options (``model`` included),
            or the list is empty.
    """
    if value is None:
        return None
    from pi_sdk._models.fallback import FallbackPolicy

    collection = fallback_collection(stream_fn)
    if isinstance(value, FallbackPolicy):
        policy = value
    elif isinstance(value, str | bytes) or not isinstance(value, Sequence):  # pyright: ignore[reportUnnecessaryIsInstance] - callers pass anything
        raise TypeError(
            "Agent(fallback=...) takes a FallbackPolicy or a list of models"
            f" ('provider/id', Model, (model, options)); got {type(value).__name__}"
        )
    else:
        policy = FallbackPolicy(list(value), collection=collection)
    policy.entries(collection)  # raises for an unknown name, naming it
    if model is not None:
        policy.chain(model, collection=collection)  # raises when the model is in its own list
    return policy
