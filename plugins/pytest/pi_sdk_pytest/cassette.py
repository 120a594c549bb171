"""One test's cassette: vcrpy configured to record provider traffic safely and replay it strictly.

Used by the pytest plugin (:mod:`pi_sdk_pytest.plugin`); usable directly::

    with open_cassette(Path("tests/cassettes/x.yaml"), recording=False) as session:
        ...  # run provider calls
    assert not session.problems()

Record modes (``record_mode``, vcrpy's and pytest-recording's names):

* ``"none"`` (``recording=False``): replay only, described below.
* ``"once"``: ``"none"`` when the file exists, else ``"all"``.
* ``"new_episodes"``: recorded interactions are replayed; a request that matches none goes to
  the network and is added to the file. Recorded interactions that no request of this run
  played are dropped when the file is written (:attr:`CassetteSession.dropped`), so the file
  holds exactly what the test asks for now and replays cleanly in ``"none"``; vcrpy's
  ``new_episodes`` keeps them, and strict replay would then fail on them as never requested.
* ``"all"`` (``recording=True``; ``"rewrite"`` is the same): every request goes to the network
  and the file is replaced by this recording.

Recording (``"all"``, ``"new_episodes"``): the file is written only if
:attr:`CassetteSession.save` is still true at exit (the plugin clears it when the test failed),
atomically (temporary file + rename), after scrubbing (:mod:`pi_sdk_pytest.scrub`).

Replaying: requests are answered from the file in order, each interaction at most once; a request
that matches nothing is remembered (:attr:`CassetteSession.misses`, with the first difference
from the closest recorded request) and answered at once with a non-retryable HTTP error
(:data:`MISS_STATUS`, ``x-should-retry: false``) whose message names the request and lists the
recorded ones: the vendor SDKs would wrap an exception into a retryable connection error, and
the call would be retried before failing. Network access is blocked
(:mod:`pi_sdk_pytest.network`), and :meth:`CassetteSession.problems` lists misses, blocked
attempts and interactions left unplayed.

Requests match on method, scheme, host, port, path and query (after the ``key`` parameter is
removed), and, by default (``match_body=True``), on their body: parsed JSON, the volatile values
of :data:`pi_sdk_pytest.body_match.VOLATILE_BODY_KEYS` (and ``ignore_body_keys``) masked, the
first differing JSON path named in the miss (:mod:`pi_sdk_pytest.body_match`).
"""

from __future__ import annotations

import importlib
import json
import os
import tempfile
from collections.abc import Generator, Iterable
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast, get_args

import yaml

from pi_sdk_pytest.body_match import (
    VOLATILE_BODY_KEYS,
    json_body_difference,
    masked_body,
    parsed_body,
)
from pi_sdk_pytest.network import block_network
from pi_sdk_pytest.scrub import (
    SCRUBBED_QUERY_PARAMETERS,
    SCRUBBED_RESPONSE_HEADERS,
    is_secret_header,
    known_credentials,
    scrub_text,
    split_credential,
    strip_query_parameters,
    strip_userinfo,
)

__all__ = [
    "MISS_STATUS",
    "RECORD_MODES",
    "CassetteSession",
    "ReadableYaml",
    "RecordMode",
    "json_body_difference",
    "open_cassette",
]

RecordMode = Literal["none", "once", "new_episodes", "all", "rewrite"]
"""vcrpy's record modes (and pytest-recording's ``rewrite``, the same as ``"all"`` here)."""
RECORD_MODES: tuple[str, ...] = get_args(RecordMode)

MISS_STATUS = 404
"""HTTP status of the answer to a replayed request that is not in the cassette."""
_MAX_LISTED = 5

# vcrpy ships no type information: reach it through ``Any``.
_vcr: Any = importlib.import_module("vcr")
_vcr_cassette: Any = importlib.import_module("vcr.cassette")
_vcr_persisters: Any = importlib.import_module("vcr.persisters.filesystem")
_vcr_serialize: Any = importlib.import_module("vcr.serialize")
_vcr_yaml: Any = importlib.import_module("vcr.serializers.yamlserializer")


class _ReadableYamlDumper(yaml.SafeDumper):
    """YAML with multi-line strings (SSE bodies) as literal blocks, so cassettes diff well."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")  # pyright: ignore[reportUnknownMemberType]
    return dumper.represent_str(value)


_ReadableYamlDumper.add_representer(str, _represent_str)


class ReadableYaml:
    """vcrpy serializer: vcrpy's YAML format and (safe) loader; block-style multi-line strings.

    PyYAML falls back to a quoted scalar when a string cannot be a literal block (e.g. trailing
    spaces), so every body still loads back byte for byte.
    """

    @staticmethod
    def deserialize(cassette_string: str) -> Any:
        """Load a cassette (any vcrpy YAML cassette)."""
        return _vcr_yaml.deserialize(cassette_string)

    @staticmethod
    def serialize(cassette_dict: Any) -> str:
        """Dump a cassette."""
        return yaml.dump(cassette_dict, Dumper=_ReadableYamlDumper, allow_unicode=True)


_MATCH_ON = ("method", "scheme", "host", "port", "path", "query")


@dataclass
class CassetteSession:
    """State of one open cassette."""

    path: Path
    """The cassette file."""
    recording: bool
    """True while real traffic may be recorded (``"all"``, ``"new_episodes"``), False on
    replay (``"none"``)."""
    mode: str = "none"
    """The effective record mode: ``"none"``, ``"new_episodes"`` or ``"all"`` (``"once"``
    resolved by the file's existence)."""
    cassette: Any = None
    """The vcrpy ``Cassette`` (``.requests``, ``.responses``, ``.play_counts``)."""
    save: bool = True
    """Recording only: write the file at exit. Cleared when the test failed."""
    secrets: set[str] = field(default_factory=set[str])
    """Credential values seen in requests (scrubbed from the file)."""
    misses: list[str] = field(default_factory=list[str])
    """Replay only: requests that matched no recorded interaction."""
    blocked: list[str] = field(default_factory=list[str])
    """Replay only: network connections that were refused."""
    dropped: list[str] = field(default_factory=list[str])
    """``"new_episodes"`` only: ``"METHOD uri"`` of the recorded interactions no request of this
    run played, left out of the written file (filled when the file is written)."""

    def unplayed(self) -> list[str]:
        """Replay only: ``"METHOD uri"`` of recorded interactions no request used."""
        if self.recording or self.cassette is None:
            return []
        counts = cast(dict[int, int], self.cassette.play_counts)
        requests = cast(list[Any], self.cassette.requests)
        return [f"{r.method} {r.uri}" for i, r in enumerate(requests) if not counts.get(i)]

    def problems(self) -> list[str]:
        """Replay only: every reason the test must fail, one line each (empty when clean)."""
        if self.recording:
            return []
        lines = [f"request not in cassette {self.path}: {m}" for m in self.misses]
        if self.misses:
            lines.append(f"recorded in {self.path.name}: {recorded_listing(self.cassette)}")
        lines += [f"network access blocked: {b}" for b in self.blocked]
        lines += [f"recorded interaction never requested: {u}" for u in self.unplayed()]
        return lines

    def recorded_json_bodies(self) -> list[Any]:
        """The request bodies in the cassette, parsed as JSON (``None`` for an empty body)."""
        return [parsed_body(r.body) for r in cast(list[Any], self.cassette.requests)]


def _comparable_body(request: Any, ignore: tuple[str, ...]) -> Any:
    return masked_body(parsed_body(request.body), ignore)


def _json_body_matcher(ignore: tuple[str, ...]) -> Any:
    def matcher(r1: Any, r2: Any) -> None:
        if _comparable_body(r1, ignore) != _comparable_body(r2, ignore):
            raise AssertionError("request bodies differ")

    return matcher


class _Persister:
    """Loads nothing while recording (a fresh recording); saves atomically, and only if allowed."""

    def __init__(self, session: CassetteSession) -> None:
        self.session = session

    def load_cassette(self, cassette_path: str, serializer: Any) -> Any:
        if self.session.mode == "all":
            raise _vcr_persisters.CassetteNotFoundError()
        return _vcr_persisters.FilesystemPersister.load_cassette(cassette_path, serializer)

    def save_cassette(self, cassette_path: str, cassette_dict: Any, serializer: Any) -> None:
        if not (self.session.recording and self.session.save):
            return
        data = cast(str, _vcr_serialize.serialize(cassette_dict, serializer))
        target = Path(cassette_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(data)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _cassette_class(session: CassetteSession, ignore: tuple[str, ...] | None) -> Any:
    """Return vcrpy's ``Cassette`` class answering a replay miss with :func:`_miss_response`.

    The stubs ask ``can_play_response_for`` (urllib3's twice: on connect and on the response),
    then ``play_response`` with the same request object; a miss is counted once per request.
    """
    base: Any = _vcr_cassette.Cassette

    def can_play_response_for(self: Any, request: Any) -> bool:
        if base.can_play_response_for(self, request):
            return True
        if session.recording:
            return False
        filtered = self._before_record_request(request)
        if filtered is None:  # a host vcrpy was told to ignore: it goes to the (guarded) network
            return False
        pending = getattr(self, "_pi_miss", None)
        if pending is None or pending[0] is not request:
            description = _describe_miss(self, filtered, ignore)
            session.misses.append(description)
            self._pi_miss = (request, _miss_response(session.path, description, self))
        return True

    def play_response(self: Any, request: Any) -> Any:
        pending = getattr(self, "_pi_miss", None)
        if pending is not None and pending[0] is request:
            self._pi_miss = None
            return pending[1]
        return base.play_response(self, request)

    def save(self: Any, force: bool = False) -> None:
        """``new_episodes``: write only what this run played or recorded (module docstring)."""
        loaded = cast(int, self._loaded_count)
        if session.mode != "new_episodes" or not session.save:
            return base._save(self, force)  # noqa: SLF001 - vcrpy's save step
        counts = cast(dict[int, int], self.play_counts)
        data = cast(list[tuple[Any, Any]], self.data)
        unplayed = {i for i in range(loaded) if not counts.get(i)}
        if not unplayed:
            return base._save(self, force)  # noqa: SLF001
        session.dropped = [f"{data[i][0].method} {data[i][0].uri}" for i in sorted(unplayed)]
        kept = [pair for i, pair in enumerate(data) if i not in unplayed]
        self._persist({"requests": [r for r, _ in kept], "responses": [a for _, a in kept]})
        self.dirty = False
        return None

    methods = {
        "can_play_response_for": can_play_response_for,
        "play_response": play_response,
        "_save": save,
    }
    return type("TrackingCassette", (base,), methods)


def _describe_miss(cassette: Any, request: Any, ignore: tuple[str, ...] | None) -> str:
    """Return ``"METHOD uri"`` and why it missed.

    ``ignore`` holds the masked body paths (``None``: bodies are not matched).
    """
    line = f"{request.method} {request.uri}"
    requests = cast(list[Any], cassette.requests)
    same = [i for i, r in enumerate(requests) if (r.method, r.uri) == (request.method, request.uri)]
    unplayed = [i for i in same if not cassette.play_counts.get(i)]
    if ignore is not None and unplayed:
        index = unplayed[0]
        diff = json_body_difference(
            _comparable_body(request, ignore), _comparable_body(requests[index], ignore)
        )
        return f"{line} (body differs from recorded interaction {index}: {diff})"
    if same and not unplayed:
        played = ", ".join(str(i) for i in same)
        return f"{line} (recorded interaction {played} already played; each answers once)"
    return line


def recorded_listing(cassette: Any) -> str:
    """The recorded requests as ``"0. POST https://... (played), 1. ..."`` (at most 5 shown)."""
    if cassette is None or not cassette.requests:
        return "no interactions"
    requests = cast(list[Any], cassette.requests)
    counts = cast(dict[int, int], cassette.play_counts)
    shown = [
        f"{i}. {r.method} {r.uri} ({'played' if counts.get(i) else 'not played'})"
        for i, r in enumerate(requests[:_MAX_LISTED])
    ]
    if len(requests) > _MAX_LISTED:
        shown.append(f"... {len(requests) - _MAX_LISTED} more")
    return ", ".join(shown)


def _miss_response(path: Path, description: str, cassette: Any) -> dict[str, Any]:
    """A vendor-shaped JSON error (Anthropic, OpenAI and Google read ``error.message``)."""
    message = (
        f"pi-sdk replay: request not in cassette {path}: {description}. "
        f"Recorded: {recorded_listing(cassette)}. "
        "Record it again (--record-mode=all, or --pi-record) if the request changed on purpose."
    )
    error = {"type": "pi_sdk_cassette_miss", "message": message, "code": MISS_STATUS}
    body = {"type": "error", "error": {**error, "status": "NOT_FOUND"}}
    return {
        "status": {"code": MISS_STATUS, "message": "Not Found"},
        "headers": {"content-type": ["application/json"], "x-should-retry": ["false"]},
        "body": {"string": json.dumps(body).encode("utf-8")},
    }


def _make_hooks(session: CassetteSession, secret_headers: tuple[str, ...]) -> tuple[Any, Any, Any]:
    """Vcrpy's hooks that scrub a recording (:mod:`pi_sdk_pytest.scrub`)."""
    response_drop = SCRUBBED_RESPONSE_HEADERS | {name.lower() for name in secret_headers}
    known: list[set[str]] = []  # the process's credentials, read at the first save

    def before_record_request(request: Any) -> Any:
        for name in list(request.headers):
            if is_secret_header(str(name), secret_headers):
                session.secrets |= split_credential(str(request.headers[name]))
                del request.headers[name]
        uri, removed = strip_userinfo(request.uri)
        uri, more = strip_query_parameters(
            uri, (*SCRUBBED_QUERY_PARAMETERS, *secret_headers), by_rule=True
        )
        if uri != request.uri:
            session.secrets |= removed | more
            request.uri = uri
        return request

    def before_record_response(response: Any) -> Any:
        headers = cast(dict[str, Any], response.get("headers") or {})
        response["headers"] = {k: v for k, v in headers.items() if k.lower() not in response_drop}
        return response

    def before_save_interaction(request: Any, response: Any) -> Any:
        if not known:
            known.append(known_credentials())
        secrets = session.secrets | known[0]
        request.uri = scrub_text(request.uri, secrets)
        if request.body is not None:
            request.body = scrub_text(request.body, secrets)
        for name in list(request.headers):
            request.headers[name] = scrub_text(request.headers[name], secrets)
        return request, scrub_text(response, secrets)

    return before_record_request, before_record_response, before_save_interaction


@contextmanager
def open_cassette(
    path: Path,
    *,
    recording: bool | None = None,
    record_mode: str | None = None,
    allowed_hosts: Iterable[str] = (),
    match_body: bool = True,
    ignore_body_keys: Iterable[str] = (),
    secret_headers: Iterable[str] = (),
    secrets: Iterable[str] = (),
    **vcr_options: Any,
) -> Generator[CassetteSession]:
    """Open ``path`` for recording or replay for the duration of the ``with`` block.

    Args:
        path: The cassette file (YAML, vcrpy's format). Replay requires it to exist.
        recording: Shorthand: ``True`` is ``record_mode="all"``, ``False`` ``"none"``.
        record_mode: ``"none"`` (replay, the default), ``"once"``, ``"new_episodes"``,
            ``"all"`` or ``"rewrite"`` (see the module); wins over ``recording``.
        allowed_hosts: Replay only: hosts the network guard lets through.
        match_body: Match requests on their JSON body too (default; ``False``: method and
            URL only, the opt-out for a test whose bodies vary on purpose).
        ignore_body_keys: Body paths masked besides :data:`VOLATILE_BODY_KEYS` (dotted,
            ``*`` for any key or index; :mod:`pi_sdk_pytest.body_match`).
        secret_headers: More header (and query parameter) names whose values are secrets,
            beyond the rules of :mod:`pi_sdk_pytest.scrub`: removed from requests and
            responses, their values scrubbed everywhere (e.g. ``["x-gateway-ticket"]``).
        secrets: More secret values to scrub wherever they appear (e.g. a token your test
            fixture made).
        **vcr_options: Extra ``vcr.VCR.use_cassette`` options (e.g. ``match_on``); hooks given
            here run after pi-sdk's scrubbing.

    Yields:
        The :class:`CassetteSession`; check :meth:`CassetteSession.problems` after the calls.

    Raises:
        FileNotFoundError: replaying (``"none"``) and ``path`` does not exist.
        ValueError: an unknown ``record_mode``.
    """
    mode = _effective_mode(path, recording, record_mode)
    if mode == "none" and not path.is_file():
        raise FileNotFoundError(f"no cassette at {path}")
    session = CassetteSession(path=path, recording=mode != "none", mode=mode)
    session.secrets |= {s for s in secrets if s}
    request_hook, response_hook, save_hook = _make_hooks(session, tuple(secret_headers))
    recorder: Any = _vcr.VCR(decode_compressed_response=True)
    recorder.register_serializer("pi_yaml", ReadableYaml)
    match_on = tuple(vcr_options.pop("match_on", _MATCH_ON))
    ignore = (*VOLATILE_BODY_KEYS, *ignore_body_keys) if match_body else None
    if ignore is not None:
        recorder.register_matcher("pi_json_body", _json_body_matcher(ignore))
        match_on += ("pi_json_body",)

    def chain(own: Any, key: str) -> list[Any]:
        extra = vcr_options.pop(key, None)
        if extra is None:
            return [own]
        return [own, *(extra if isinstance(extra, list | tuple) else [extra])]

    config: dict[str, Any] = recorder.get_merged_config(
        path=str(path),
        serializer=vcr_options.pop("serializer", "pi_yaml"),
        record_mode=mode,
        match_on=match_on,
        persister=_Persister(session),
        before_record_request=chain(request_hook, "before_record_request"),
        before_record_response=chain(response_hook, "before_record_response"),
        before_save_interaction=chain(save_hook, "before_save_interaction"),
        **vcr_options,
    )
    context: Any = _vcr_cassette.CassetteContextDecorator.from_args(
        _cassette_class(session, ignore), **config
    )
    with ExitStack() as stack:
        stack.callback(_unpatch, context)  # last: after the cassette's own exit, even a failed one
        session.cassette = stack.enter_context(context)
        if mode == "none":
            stack.enter_context(block_network(allowed_hosts, on_block=session.blocked.append))
        yield session


def _unpatch(context: Any) -> None:
    """Undo the HTTP clients' patches of a cassette whose save raised.

    vcrpy's context exit saves the cassette first and only then undoes its patches (the
    generator it keeps); a save that raises (a folder where the file goes, a full disk) leaves
    them in place until that generator is garbage-collected. Then they come undone at a random
    later moment, inside whatever cassette is open by then, whose calls go to the network
    unrecorded. Closing the generator undoes them now; after a clean exit it is already gone.
    """
    finish = getattr(context, "_CassetteContextDecorator__finish", None)
    if finish is not None:
        finish.close()


def _effective_mode(path: Path, recording: bool | None, record_mode: str | None) -> str:
    """``"none"``, ``"new_episodes"`` or ``"all"``: ``"once"`` resolved, ``"rewrite"`` named."""
    if record_mode is None:
        return "all" if recording else "none"
    if record_mode not in RECORD_MODES:
        known = ", ".join(RECORD_MODES)
        raise ValueError(f"unknown record mode {record_mode!r}; use one of {known}")
    if record_mode == "once":
        return "none" if path.is_file() else "all"
    return "all" if record_mode == "rewrite" else record_mode
