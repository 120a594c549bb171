"""Model fallback: which models a call may move on to, and which failures move it on.

A :class:`FallbackPolicy` is an ordered list of models (each possibly with option overrides)
and the rules of moving on (issue 28, item 2; pydantic-ai ``FallbackModel`` and LiteLLM's
``fallbacks`` are the prior art, pi-ai has none). The stream that follows it is
:mod:`pi_sdk._models.fallback_stream`; what ended a failed attempt is classified here
(:func:`classify_failure`), from the :class:`~pi_sdk.provider.ProviderError` the call ended in
(HTTP status, ``retryable``) and else from the message's words:

* ``connection``: no (whole) response: refused, reset, cut, timed out. Moves on.
* ``rate_limit``: HTTP 429, after the call's own retries. Moves on.
* ``overloaded``: HTTP 529 / 503, a vendor's in-stream ``overloaded_error``. Moves on.
* ``server``: any other 5xx. Moves on.
* ``overflow``: the request did not fit the context window (:mod:`pi_sdk._wire.overflow`).
  Moves on, to a model with a larger ``context_window`` only.
* ``refusal``: the model refused (``stop_reason: refusal``, a content filter). Moves on only
  with ``refusals=True``.
* ``auth``: HTTP 401 / 403, the key is wrong or lacks the right. Never.
* ``bad_request``: another 4xx, which the next model would refuse too. Never.
* ``aborted``: the caller aborted. Never.
* ``other``: anything else (a configuration error, a protocol violation). Never by default.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias, cast

from pi_sdk._stream.provider_errors import ProviderError
from pi_sdk._wire.overflow import is_context_overflow
from pi_sdk.types import AssistantMessage, Model, Usage


class ModelLookup(Protocol):
    """What a policy needs of a ``Models`` collection: its models and wire APIs."""

    def get_model(self, provider: str, model_id: str) -> Model:
        """The model ``provider/model_id``; raises ``ModelNotFoundError``."""
        ...

    def api_provider(self, api: str, provider: str | None = None) -> Any:
        """The implementation of ``api``; raises ``ProviderNotFoundError``."""
        ...


__all__ = [
    "MOVES_ON",
    "FailureKind",
    "FallbackAttempt",
    "FallbackEntry",
    "FallbackPolicy",
    "classify_failure",
    "resolve_fallback",
]

FailureKind: TypeAlias = Literal[
    "connection",
    "rate_limit",
    "overloaded",
    "server",
    "overflow",
    "refusal",
    "auth",
    "bad_request",
    "aborted",
    "other",
]
"""What ended a failed attempt (module table)."""

MOVES_ON: frozenset[str] = frozenset(
    {"connection", "rate_limit", "overloaded", "server", "overflow"}
)
"""The failure kinds a policy moves on from by default (``refusal`` joins with ``refusals``)."""

_REFUSAL_STOPS = frozenset(
    {"refusal", "content_filter", "sensitive", "SAFETY", "PROHIBITED_CONTENT", "RECITATION"}
)
"""Vendors' raw stop reasons for a refused reply (Anthropic, OpenAI and Azure, Gemini)."""


def classify_failure(
    message: AssistantMessage, failure: BaseException | None, model: Model | None = None
) -> FailureKind:
    """What ended a failed reply (module table); ``message.stop_reason`` is ``error``/``aborted``.

    Args:
        message: The failed reply (its ``error_message``, ``raw_stop_reason``, usage).
        failure: The exception the call ended in
            (:attr:`~pi_sdk.AssistantMessageEventStream.failure`), if any.
        model: The model called: its context window tells a silent overflow.
    """
    if message.stop_reason == "aborted":
        return "aborted"
    text = message.error_message or ""
    if is_context_overflow(message, model.context_window if model is not None else None):
        return "overflow"
    if message.raw_stop_reason in _REFUSAL_STOPS or "refused" in text.lower():
        return "refusal"
    status = failure.status if isinstance(failure, ProviderError) else _leading_status(text)
    if status is not None:
        if status in (401, 403):
            return "auth"
        if status == 429:
            return "rate_limit"
        if status in (503, 529):
            return "overloaded"
        if status >= 500:
            return "server"
        return "bad_request"
    lowered = text.lower()
    if "overloaded" in lowered:  # Anthropic's in-stream overloaded_error
        return "overloaded"
    if isinstance(failure, ProviderError) and (failure.retryable or failure.incomplete):
        return "connection"  # lost or cut connections, first-byte timeouts: no status
    return "other"


def _leading_status(text: str) -> int | None:
    """The status an error text starts with (``"529 Overloaded: ..."``), as pi-sdk words it."""
    head = text[:3]
    if len(text) >= 4 and head.isdigit() and text[3] in " :" and 400 <= int(head) <= 599:
        return int(head)
    return None


@dataclass(frozen=True)
class FallbackEntry:
    """One model of a fallback chain, with the options its calls change (``reasoning``, ...).

    ``options``: :class:`~pi_sdk.StreamOptions` field names and values laid over the call's
    options for this model (a lower reasoning level, a smaller ``max_tokens``).
    """

    model: Model
    options: Mapping[str, Any] = field(default_factory=dict[str, Any])

    @property
    def key(self) -> tuple[str, str, tuple[tuple[str, str], ...]]:
        """What makes two entries the same attempt: the model and its option overrides."""
        overrides = tuple(sorted((k, repr(v)) for k, v in self.options.items()))
        return (self.model.provider, self.model.id, overrides)


@dataclass
class FallbackAttempt:
    """One model tried by a fallback stream: who, and how it ended.

    ``usage`` and ``cost`` (``usage.cost.total``, USD) are that model's own; a failed attempt
    that streamed content before it failed (``content_streamed``) keeps its partial message,
    as the vendor sent it, in ``message``.
    """

    provider: str
    model: str
    api: str
    outcome: Literal["answered", "failed"]
    kind: FailureKind | None
    """What ended a failed attempt (:func:`classify_failure`); ``None`` when it answered."""
    error: str | None
    moved_on: bool
    """The policy moved on to the next model after this attempt."""
    content_streamed: bool
    usage: Usage
    message: AssistantMessage

    def diagnostic_details(self) -> dict[str, Any]:
        """The JSON ``details`` of this attempt's ``fallback`` diagnostic."""
        details: dict[str, Any] = {
            "provider": self.provider,
            "model": self.model,
            "api": self.api,
            "movedOn": self.moved_on,
            "contentStreamed": self.content_streamed,
            "usage": self.usage.model_dump(mode="json", by_alias=True),
        }
        if self.content_streamed:
            details["partial"] = self.message.model_dump(mode="json", by_alias=True)
        return details


OnAttempt: TypeAlias = Callable[[FallbackAttempt], object]
"""``on_attempt(attempt)``: told of each failed attempt as it ends (sync; a raise is logged)."""


class FallbackPolicy:
    """Which models a call falls back to, in order, and which failures move it on.

    Example:
        ```python
        policy = pi_sdk.FallbackPolicy(
            ["openai/gpt-4o", "google/gemini-2.5-pro"], after_content="continue"
        )
        message = await pi_sdk.complete(claude, context, pi_sdk.StreamOptions(fallback=policy))
        ```

    The model a call is made with comes first; ``models`` follow. ``StreamOptions.fallback``
    also takes a plain list (this policy with its defaults).

    Args:
        models: The models to move on to, in order: :class:`~pi_sdk.Model` objects,
            ``"provider/model-id"`` strings (looked up in ``collection``, else in the collection
            of the first call that uses the policy), or ``(model, {option: value})`` pairs
            (:class:`FallbackEntry`: option overrides laid over the call's for that model).
        move_on: The failure kinds that move on (default :data:`MOVES_ON`). ``auth`` and
            ``bad_request`` are refused here: the next model would refuse the same request or
            the key is at fault, and moving on would hide it.
        refusals: Also move on from a refused reply (``refusal``).
        after_content: A failure after content streamed: ``"error"`` (default) ends the call
            with it, partial content kept; ``"continue"`` calls the next model with the partial
            reply and a request to continue it, and streams the rest (a partial holding a tool
            call is never continued: the call was not complete).
        continue_prompt: The user message that asks the next model to continue.
        sticky: Later calls with this policy start at the model that last answered
            (an Agent whose primary is down stops trying it every turn).
        on_attempt: Told of each failed attempt (:class:`FallbackAttempt`).
        collection: Where ``"provider/id"`` names are looked up and every model is checked for
            a wire-API implementation, at construction (``None``: at the first call that uses
            the policy, against its collection; the call then raises instead).

    Raises:
        ModelNotFoundError: a ``"provider/id"`` names no model (the message names it; at
            construction with ``collection``, else when a call first uses the policy).
        ProviderNotFoundError: no wire-API implementation serves a model given (names it).
        ValueError: the same model with the same overrides twice (a chain that would try the
            same thing again), an empty list, or ``auth``/``bad_request`` in ``move_on``.
    """

    DEFAULT_CONTINUE_PROMPT = (
        "Your previous reply was cut off. Continue it exactly where it stopped, without"
        " repeating anything already written."
    )

    def __init__(
        self,
        models: Iterable[FallbackItem],
        *,
        move_on: Iterable[str] = MOVES_ON,
        refusals: bool = False,
        after_content: Literal["error", "continue"] = "error",
        continue_prompt: str | None = None,
        sticky: bool = False,
        on_attempt: OnAttempt | None = None,
        collection: ModelLookup | None = None,
    ) -> None:
        items = list(models)
        if not items:
            raise ValueError("FallbackPolicy needs at least one model to fall back to")
        for item in items:
            _check_item(item)
        self._items = items
        self._resolved: tuple[ModelLookup, tuple[FallbackEntry, ...]] | None = None
        if collection is not None:
            self.entries(collection)
        kinds = frozenset(move_on)
        never = kinds & {"auth", "bad_request", "aborted"}
        if never:
            raise ValueError(
                f"FallbackPolicy never moves on from {sorted(never)}: the next model would"
                " refuse the same request, or the caller stopped it"
            )
        unknown = kinds - MOVES_ON - {"refusal", "other"}
        if unknown:
            raise ValueError(f"unknown failure kinds {sorted(unknown)}; known: {sorted(MOVES_ON)}")
        if after_content not in ("error", "continue"):
            raise ValueError(f"after_content must be 'error' or 'continue'; got {after_content!r}")
        self.move_on: frozenset[str] = kinds | ({"refusal"} if refusals else frozenset())
        self.refusals = refusals
        self.after_content: Literal["error", "continue"] = after_content
        self.continue_prompt = continue_prompt or self.DEFAULT_CONTINUE_PROMPT
        self.sticky = sticky
        self.on_attempt = on_attempt
        self._answered: dict[object, object] = {}
        """``sticky``: per first entry's key, the key of the entry that last answered."""

    def __repr__(self) -> str:
        names = ", ".join(_name(item) for item in self._items)
        return f"FallbackPolicy([{names}], after_content={self.after_content!r})"

    def entries(self, collection: ModelLookup) -> tuple[FallbackEntry, ...]:
        """The models to move on to, looked up and checked in ``collection``.

        Raises:
            ModelNotFoundError, ProviderNotFoundError, ValueError: as the class says.
        """
        if self._resolved is not None and self._resolved[0] is collection:
            return self._resolved[1]
        entries = tuple(_entry(item, collection) for item in self._items)
        _check_distinct(entries)
        self._resolved = (collection, entries)
        return entries

    def chain(
        self,
        first: Model,
        first_options: Mapping[str, Any] | None = None,
        *,
        collection: ModelLookup,
    ) -> list[FallbackEntry]:
        """The entries a call of ``first`` tries, in order (``sticky``: from the last answerer).

        Raises:
            ValueError: ``first`` (with no overrides) is also in the list: the chain would try
                the same model twice with nothing changed.
        """
        head = FallbackEntry(first, dict(first_options or {}))
        chain = [head, *self.entries(collection)]
        _check_distinct(chain)
        if self.sticky:
            last = self._answered.get(head.key)
            for index, entry in enumerate(chain):
                if entry.key == last:
                    return chain[index:]
        return chain

    def answered(self, head: FallbackEntry, entry: FallbackEntry) -> None:
        """Remember that ``entry`` answered a call whose chain began at ``head`` (``sticky``)."""
        if self.sticky:
            self._answered[head.key] = entry.key

    def moves_on(self, kind: FailureKind) -> bool:
        """Whether a failure of ``kind`` moves on to the next model."""
        return kind in self.move_on


def _check_distinct(entries: Iterable[FallbackEntry]) -> None:
    seen: set[object] = set()
    for entry in entries:
        if entry.key in seen:
            raise ValueError(
                f"fallback chain tries {entry.model.provider}/{entry.model.id} twice with the"
                " same options: it would repeat a failed call (give the entry different"
                " options, or remove it)"
            )
        seen.add(entry.key)


FallbackItem: TypeAlias = "Model | str | FallbackEntry | tuple[Model | str, Mapping[str, Any]]"
"""One model of a chain: a model, ``"provider/id"``, an entry, or ``(model, option overrides)``."""


def _name(item: object) -> str:
    if isinstance(item, tuple):
        return _name(cast("tuple[object, ...]", item)[0])
    if isinstance(item, FallbackEntry):
        item = item.model
    return f"{item.provider}/{item.id}" if isinstance(item, Model) else str(item)


def _check_item(item: object) -> None:
    """Refuse what is no model of a chain, and unknown option names, at construction."""
    options: object = None
    if isinstance(item, tuple):
        pair = cast("tuple[object, ...]", item)
        if len(pair) != 2:
            raise TypeError(f"a fallback pair is (model, options); got {len(pair)} items")
        item, options = pair
    elif isinstance(item, FallbackEntry):
        options = item.options
        item = item.model
    if isinstance(item, str):
        provider, sep, model_id = item.partition("/")
        if not sep or not provider or not model_id:
            raise ValueError(f"fallback model {item!r}: expected 'provider/model-id'")
    elif not isinstance(item, Model):
        raise TypeError(
            "fallback models are Model, 'provider/id' or (model, options); got"
            f" {type(item).__name__}"
        )
    if options:
        from pi_sdk.options import StreamOptions

        names = {f.name for f in dataclasses.fields(StreamOptions)}
        bad = sorted(set(cast("Mapping[str, Any]", options)) - names)
        if bad:
            raise ValueError(f"fallback entry {_name(item)}: unknown option(s) {bad}")


def _entry(item: FallbackItem, collection: ModelLookup) -> FallbackEntry:
    if isinstance(item, FallbackEntry):
        entry = item
    elif isinstance(item, tuple):
        model, options = item
        entry = FallbackEntry(_entry(model, collection).model, dict(options))
    elif isinstance(item, Model):
        entry = FallbackEntry(item)
    else:
        provider, _, model_id = item.partition("/")
        entry = FallbackEntry(collection.get_model(provider, model_id))
    collection.api_provider(entry.model.api, entry.model.provider)  # raises
    return entry


def resolve_fallback(value: object, collection: ModelLookup) -> FallbackPolicy:
    """``StreamOptions.fallback`` as a policy: a :class:`FallbackPolicy`, or a list of models.

    Raises:
        TypeError: neither.
        ModelNotFoundError, ProviderNotFoundError, ValueError: as :class:`FallbackPolicy`.
    """
    if isinstance(value, FallbackPolicy):
        return value
    if isinstance(value, list | tuple):
        return FallbackPolicy(value, collection=collection)  # pyright: ignore[reportUnknownArgumentType]
    raise TypeError(
        "StreamOptions.fallback takes a FallbackPolicy or a list of models; got"
        f" {type(value).__name__}"
    )
