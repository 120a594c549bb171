"""Replay a recorded vcrpy cassette through the registered providers (``pi-sdk replay``).

Each recorded interaction is played as one model call, in order, through the real provider
stream function, with vcrpy serving the recorded response (``record_mode="none"``, each
interaction played once, matching on method and :func:`same_endpoint`). Which provider and model
make the call is decided by asking every registered :class:`pi_sdk.provider.ApiProvider` to
``recognize`` the recorded request (or only the one named with ``api=``); the core knows no vendor.

pi-sdk always asks for a stream. An interaction recorded without one (its answer is one JSON
document) is played through the same streaming call: vcrpy serves the recorded document, and
the adapters accept such an answer, as they accept it from a server that ignores
``"stream": true``. :attr:`RecordedInteraction.whole_document` tells which answers those are.

vcrpy is imported on first use, not with :mod:`pi_sdk`; ``pi-sdk-core`` does not depend on it,
its ``replay`` extra (and the ``cli`` extra, for ``pi-sdk replay`` and ``pi-sdk demo``) does.
Recording cassettes, strict replay in tests and the pytest plugin are ``pi-sdk-pytest``'s.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from pi_sdk._models.calls import stream
from pi_sdk._models.default import get_api_provider, get_api_providers, get_providers
from pi_sdk._stream.contract import ApiProvider
from pi_sdk._stream.event_stream import AssistantMessageEventStream
from pi_sdk._testing.json_body import json_body
from pi_sdk.errors import ConfigurationError, ProviderNotFoundError
from pi_sdk.events import AssistantMessageEvent, DoneEvent, ErrorEvent
from pi_sdk.options import StreamOptions
from pi_sdk.types import AssistantMessage, Context, Model, UserMessage

__all__ = [
    "DUMMY_API_KEY",
    "RecordedInteraction",
    "ReplayCall",
    "ReplayResult",
    "load_cassette",
    "plan_replay",
    "replay",
    "replay_all",
    "replay_vcr",
    "same_endpoint",
]

DUMMY_API_KEY = "replay-dummy-key"
"""The API key sent on replay; recorded cassettes carry none."""

_REPLAY_CONTEXT = Context(
    messages=[UserMessage(content="(replayed call: the response comes from the cassette)")]
)
# RPC-style streaming method names, e.g. ``.../models/x:streamGenerateContent``.
_STREAM_METHOD = re.compile(r":stream([A-Za-z]*)$", re.IGNORECASE)


def _endpoint(path: str) -> str:
    """``path`` with an RPC-style streaming method named as its one-shot twin, lower-cased."""
    return _STREAM_METHOD.sub(lambda m: ":" + m.group(1), path).lower()


def same_endpoint(r1: Any, r2: Any) -> bool:
    """Vcrpy matcher: same path, counting ``:streamX`` and ``:x`` as one endpoint.

    Some APIs stream from a sibling RPC method (Google's AIP custom methods:
    ``:streamGenerateContent`` next to ``:generateContent``); a streaming call must still match
    an interaction recorded with the one-shot method. Paths compare case-insensitively after
    that renaming; query strings are ignored (they may hold a ``key=``).
    """
    return _endpoint(str(r1.path)) == _endpoint(str(r2.path))


def replay_vcr() -> Any:
    """Return the ``vcr.VCR`` that replays cassettes for pi-sdk calls.

    ``record_mode="none"`` (never the network) and ``match_on=["method", "same_endpoint"]``
    (:func:`same_endpoint`): recorded requests were made by other clients, so bodies, headers,
    hosts and query strings are not compared. Use with ``allow_playback_repeats=False`` so
    interactions on one endpoint are served in recorded order, once each.
    """
    vcr = _vcr_module("vcr")
    recorder: Any = vcr.VCR(record_mode="none", match_on=["method", "same_endpoint"])
    recorder.register_matcher("same_endpoint", same_endpoint)
    return recorder


@dataclass(frozen=True, kw_only=True)
class RecordedInteraction:
    """One request/response pair of a cassette, as recorded."""

    index: int
    """Position in the cassette, from 0."""
    method: str
    uri: str
    body: Any
    """The request body parsed as JSON, or ``None`` (absent or not JSON)."""
    status: int
    """HTTP status of the recorded response."""
    content_type: str
    """The recorded response's ``content-type`` (lower-cased, ``""`` when absent)."""

    @property
    def streamed(self) -> bool:
        """Whether the recorded request asked for a stream.

        True when the JSON body has ``"stream": true``, the path names an RPC-style streaming
        method (``:streamGenerateContent``), or the response is ``text/event-stream``.
        """
        if _as_dict(self.body).get("stream") is True:
            return True
        if _STREAM_METHOD.search(urlsplit(self.uri).path):
            return True
        return self.content_type.startswith("text/event-stream")

    @property
    def whole_document(self) -> bool:
        """Whether the recorded answer is one JSON document rather than a stream.

        True for a successful (status < 400) ``application/json`` response: a request recorded
        without a stream, or a server that ignored ``"stream": true``.
        """
        return self.status < 400 and "json" in self.content_type

    @property
    def display_uri(self) -> str:
        """The URI without its query string (which may hold a ``key=``), for messages."""
        parts = urlsplit(self.uri)
        return f"{parts.scheme}://{parts.netloc}{parts.path}"


@dataclass(kw_only=True)
class ReplayCall:
    """One interaction of a running replay: iterate ``events``."""

    interaction: RecordedInteraction
    provider: ApiProvider
    model: Model
    events: AssistantMessageEventStream
    """The call's event stream."""


@dataclass(kw_only=True)
class ReplayResult:
    """The outcome of one interaction, collected by :func:`replay_all`."""

    interaction: RecordedInteraction
    model: Model
    events: list[AssistantMessageEvent] = field(default_factory=list[AssistantMessageEvent])
    message: AssistantMessage | None = None
    """The final message (set once the call's events are consumed)."""


def _serializer_for(path: Path) -> str:
    return "json" if path.suffix.lower() == ".json" else "yaml"


def _as_dict(value: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


_REQUEST_FIELDS = ("body", "headers", "method", "uri")  # what vcrpy's ``Request`` requires


def _shape_problem(data: Any) -> str | None:
    """Why parsed cassette data is not a vcrpy cassette, in its own terms; None when it is."""
    if data is None:
        return "the file is empty"
    items: Any = _as_dict(data).get("interactions")
    if not isinstance(items, list):
        return "no 'interactions' list at the top level"
    for index, item in enumerate(cast("list[Any]", items)):
        entry = _as_dict(item)
        for part in ("request", "response"):
            if not isinstance(entry.get(part), dict):
                return f"interaction {index} has no {part!r}"
        missing = [f for f in _REQUEST_FIELDS if f not in entry["request"]]
        if missing:
            return f"interaction {index}'s request lacks {', '.join(map(repr, missing))}"
    return None


def _vcr_module(name: str) -> Any:
    """Import a vcrpy module on first use (vcrpy ships no type information).

    Raises:
        ConfigurationError: vcrpy is not installed (``pi-sdk-core`` alone does not pull it);
            the message names the extra that does.
    """
    import importlib

    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != "vcr":
            raise
        raise ConfigurationError(
            "replaying a cassette needs vcrpy: pip install 'pi-sdk-core[replay]'"
            " (the cli extra includes it)"
        ) from None


def _header(headers: Any, name: str) -> str:
    for key, value in _as_dict(headers).items():
        if str(key).lower() == name:
            if isinstance(value, list):
                items = cast("list[Any]", value)
                return str(items[0]).lower() if items else ""
            return str(value).lower()
    return ""


def load_cassette(path: str | Path) -> list[RecordedInteraction]:
    """Read a vcrpy cassette (YAML, or JSON for a ``.json`` file).

    Raises:
        ConfigurationError: the file does not exist, cannot be read or is not a vcrpy
            cassette; the message is one line naming the file.
    """
    serialize = _vcr_module("vcr.serialize")
    serializers = _vcr_module("vcr.serializers")
    path = Path(path)
    if not path.is_file():
        what = "is a directory" if path.is_dir() else "not found"
        raise ConfigurationError(f"cassette {what}: {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"cannot read cassette {path}: {exc}") from None
    serializer = getattr(serializers, f"{_serializer_for(path)}serializer")
    try:
        problem = _shape_problem(serializer.deserialize(text))
        if problem is not None:
            raise ValueError(problem)
        loaded: Any = serialize.deserialize(text, serializer)
        requests: list[Any] = loaded[0]
        responses: list[Any] = loaded[1]
    except Exception as exc:  # noqa: BLE001 - any parse failure is "not a cassette"
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigurationError(f"not a vcrpy cassette: {path} ({reason})") from None
    if not requests:
        raise ConfigurationError(f"cassette has no interactions: {path}")
    interactions: list[RecordedInteraction] = []
    for index, (request, recorded) in enumerate(zip(requests, responses, strict=True)):
        response = _as_dict(recorded)
        status: Any = _as_dict(response.get("status")).get("code")
        interactions.append(
            RecordedInteraction(
                index=index,
                method=str(request.method).upper(),
                uri=str(request.uri),
                body=json_body(request.body, keep_unparsed=False),
                status=int(status) if isinstance(status, int) else 200,
                content_type=_header(response.get("headers"), "content-type"),
            )
        )
    return interactions


def _recognize(provider: ApiProvider, item: RecordedInteraction) -> Model | None:
    if provider.recognize is None:
        return None
    return provider.recognize(item.method, item.uri, item.body)


def plan_replay(
    interactions: list[RecordedInteraction], *, api: str | None = None
) -> list[tuple[RecordedInteraction, ApiProvider, Model]]:
    """Decide the provider and model of every interaction, before anything runs.

    Args:
        interactions: From :func:`load_cassette`.
        api: Use only this API's provider (``--api``); default: the registered provider whose
            ``recognize`` accepts the request. When several do (an OpenAI-compatible recognizer
            takes any ``.../chat/completions``, Mistral's takes ``api.mistral.ai``'s), the first
            one whose model names a catalog provider wins over one that names only the host.

    Returns:
        ``(interaction, provider, model)`` per interaction.

    Raises:
        ProviderNotFoundError: ``api`` is not registered, or no registered provider recognizes
            a request (its provider package is probably not installed).
        ConfigurationError: the provider named by ``api`` cannot derive a model from a request.
    """
    chosen = [get_api_provider(api)] if api is not None else get_api_providers()
    catalog = set(get_providers())
    plan: list[tuple[RecordedInteraction, ApiProvider, Model]] = []
    for item in interactions:
        found: tuple[ApiProvider, Model] | None = None
        for provider in chosen:
            model = _recognize(provider, item)
            if model is None:
                continue
            if found is None:
                found = (provider, model)
            if model.provider in catalog:
                found = (provider, model)
                break
        if found is None:
            where = f"interaction {item.index} ({item.method} {item.display_uri})"
            if api is not None:
                raise ConfigurationError(f"{where}: API {api!r} does not recognize this request")
            known = ", ".join(sorted(p.api for p in chosen)) or "none"
            raise ProviderNotFoundError(
                f"{where}: no registered API provider recognizes this request "
                f"(registered: {known}); install its provider package or pass --api"
            )
        plan.append((item, found[0], found[1]))
    return plan


async def replay(
    path: str | Path,
    *,
    api: str | None = None,
    options: StreamOptions | None = None,
) -> AsyncIterator[ReplayCall]:
    """Play every interaction of a cassette, in order, yielding one :class:`ReplayCall` each.

    Every call is made while the cassette is in use, before the first one is yielded: vcrpy's
    HTTP patches are process-wide, and a generator suspended at a ``yield`` inside the cassette
    would keep them on for as long as the caller holds it (a ``break`` or an exception in the
    loop left them on until the event loop closed the generator, and another cassette opened
    meanwhile was undone by this one's exit). Each call's ``events`` are then played back as the
    provider streamed them, each event's ``partial`` the message as it stood at that event.

    Example:
        ```python
        async for call in replay("tests/cassettes/weather.yaml"):
            message = await call.events.result()
        ```

    Args:
        path: A vcrpy cassette.
        api: Play every interaction with this API's provider.
        options: Call options; default ``StreamOptions(api_key=DUMMY_API_KEY, max_retries=0)``.
            Keep ``max_retries=0`` so that one call consumes exactly one interaction.

    Raises:
        ConfigurationError: bad path or not a cassette (before anything is played).
        ProviderNotFoundError: no provider for a recorded request (before anything is played).
    """
    path = Path(path)
    plan = plan_replay(load_cassette(path), api=api)
    call_options = options or StreamOptions(api_key=DUMMY_API_KEY, max_retries=0)
    played: list[ReplayCall] = []
    with replay_vcr().use_cassette(
        str(path), serializer=_serializer_for(path), allow_playback_repeats=False
    ):
        for item, provider, model in plan:
            events = _PlayedBack(await _Recorded.make(model, call_options))
            played.append(
                ReplayCall(interaction=item, provider=provider, model=model, events=events)
            )
    for call in played:
        yield call


@dataclass(eq=False)
class _Recorded:
    """One finished call: its events (``partial`` snapshots), final message and failure.

    What :class:`AssistantMessageEventStream` reads of its run: ``final`` (set once the events
    were played, or their playing closed), ``failure`` and :meth:`events`.
    """

    played: list[AssistantMessageEvent]
    message: AssistantMessage
    failure: BaseException | None
    final: AssistantMessage | None = None

    @classmethod
    async def make(cls, model: Model, options: StreamOptions) -> _Recorded:
        """Make the call (the cassette in use) and keep what it streamed."""
        live = stream(model, _REPLAY_CONTEXT, options)
        events: list[AssistantMessageEvent] = []
        async for event in live:
            if not isinstance(event, DoneEvent | ErrorEvent):  # one message, updated in place
                event = dataclasses.replace(event, partial=event.partial.model_copy(deep=True))
            events.append(event)
        return cls(events, await live.result(), live.failure)

    async def events(self) -> AsyncIterator[AssistantMessageEvent]:
        try:
            for event in self.played:
                yield event
        finally:
            self.final = self.message


class _PlayedBack(AssistantMessageEventStream):
    """The event stream of a call already made (:class:`_Recorded`): the same API as any."""

    def __init__(self, recorded: _Recorded) -> None:
        """Play ``recorded``'s events back."""
        self._call = cast("Any", recorded)
        self._events = recorded.events()
        self._iterating = False


async def replay_all(
    path: str | Path, *, api: str | None = None, options: StreamOptions | None = None
) -> list[ReplayResult]:
    """Play a whole cassette and collect every call's events and final message.

    Raises:
        ConfigurationError: as :func:`replay`.
        ProviderNotFoundError: as :func:`replay`.
    """
    results: list[ReplayResult] = []
    async for call in replay(path, api=api, options=options):
        result = ReplayResult(interaction=call.interaction, model=call.model)
        async for event in call.events:
            result.events.append(event)
        result.message = await call.events.result()
        results.append(result)
    return results
