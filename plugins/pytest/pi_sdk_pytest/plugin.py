"""pytest plugin: record a test's provider traffic once with real keys, replay it offline forever.

Registered through the ``pytest11`` entry point ``pi_sdk``; see ``docs/testing.md``. Until a test
carries the marker or requests a fixture, the plugin only declares its options, marker and
fixtures: this module imports nothing of pi-sdk (vcrpy, pydantic and the registries load when a
cassette is opened), so it adds well under 5 ms to any pytest start-up.

* ``@pytest.mark.pi_vcr`` (or requesting the ``pi_cassette`` fixture) puts the test's HTTP traffic
  (everything made through ``httpx2``, which the OpenAI, Anthropic and Google SDKs use) on a
  cassette: ``<test dir>/cassettes/<test module>/<test name>.yaml``. Marker keywords:
  ``name`` (the file stem, or ``"<module>/<stem>"`` for another module's cassette),
  ``allowed_hosts`` (hosts reachable on replay), ``match_body`` (default ``True``: requests must
  carry the recorded JSON body, volatile values masked; ``False`` opts the test out),
  ``ignore_body_keys`` (more body paths not compared), ``record_mode`` (this test's mode),
  ``replay_api_key`` (the dummy key, ``None`` for none), and any vcrpy ``use_cassette`` option.
  The ``pi_vcr_config`` fixture returns defaults for all of them.
* Default: **replay** (record mode ``none``). The cassette must exist. Every provider gets a
  dummy key (``pi-sdk-replay-key``) when no plugin knows one: a ``get_api_key`` hook wrapper
  answers for any provider, plugin providers included; the vendor SDKs' own variables
  (:data:`REPLAY_KEY_ENV_VARS`) are set to it too, for clients the test builds itself. Network
  access is blocked (:mod:`pi_sdk_pytest.network`). A request that is not in the cassette gets
  an immediate, non-retryable HTTP error naming it and the recorded ones (for a body that
  changed: the first differing JSON path). The test **fails** if a request was not in the
  cassette, network access was blocked, or a recorded interaction was never requested.
* ``--record-mode`` as pytest-recording users know it (``PI_SDK_RECORD`` in the environment):
  ``none`` (the default: replay), ``once`` (record the tests that have no cassette yet, replay
  the others), ``new_episodes`` (replay what is recorded, record and add what is not), ``all``
  (record everything again; ``rewrite`` is the same). ``new_episodes`` also drops the recorded
  interactions the test no longer requests, so the cassette replays in ``none``; the terminal
  summary names how many it dropped from which file. Recording sends requests to the real
  servers with the keys from the environment; a passing test writes its cassette (scrubbed:
  see :mod:`pi_sdk_pytest.scrub`), a failing one leaves the old file untouched.
  ``--pi-record`` is ``--record-mode=all``, ``--pi-record-missing`` ``--record-mode=once``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pi_sdk_pytest.cassette import CassetteSession

__all__ = [
    "RECORD_ENV",
    "REPLAY_API_KEY",
    "REPLAY_KEY_ENV_VARS",
    "pi_cassette",
    "pi_recording",
    "pi_vcr_config",
]

RECORD_ENV = "PI_SDK_RECORD"
"""Environment variable equivalent of ``--record-mode``: a mode name, or ``1``/``true``/``yes``
(``all``) or ``missing`` (``once``)."""

RECORD_MODES = ("none", "once", "new_episodes", "all", "rewrite")
"""The values of ``--record-mode`` (vcrpy's modes and pytest-recording's ``rewrite``)."""

REPLAY_API_KEY = "pi-sdk-replay-key"
"""Dummy key on replay: the ``get_api_key`` answer for any provider no plugin answers for, and
the value of every unset variable of :data:`REPLAY_KEY_ENV_VARS`."""

REPLAY_KEY_ENV_VARS = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "GEMINI_API_KEY",
)
"""Variables the vendor SDKs read themselves when a test builds a client without a key (e.g.
``openai.AsyncOpenAI()`` raises without ``OPENAI_API_KEY``). pi-sdk providers need none of them
on replay: they get the dummy through the ``get_api_key`` hook."""

_SESSION_KEY = pytest.StashKey["CassetteSession"]()
_DROPPED_KEY = pytest.StashKey[list[str]]()
_UNSAFE_NAME = re.compile(r"[^\w.\-\[\]=,+]+")


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--pi-record`` and the ``pi_cassette_dir`` ini option."""
    group = parser.getgroup("pi-sdk", "pi-sdk recorded provider traffic")
    try:
        group.addoption(
            "--record-mode",
            action="store",
            default=None,
            choices=RECORD_MODES,
            help="cassette record mode of pi_vcr tests: none (default: replay offline), once, "
            f"new_episodes, all (rewrite). Env: {RECORD_ENV}=<mode>.",
        )
    except ValueError:  # pytest-recording declares the same option: both plugins read it
        pass
    group.addoption(
        "--pi-record",
        action="store_true",
        help="record the provider traffic of pi_vcr tests with the real API keys from the "
        "environment and rewrite their cassettes (default: replay offline). "
        f"Env: {RECORD_ENV}=1.",
    )
    group.addoption(
        "--pi-record-missing",
        action="store_true",
        help="record only the pi_vcr tests that have no cassette yet; replay the others. "
        f"Env: {RECORD_ENV}=missing.",
    )
    parser.addini(
        "pi_cassette_dir",
        "cassette folder, relative to each test file (default: cassettes)",
        default="cassettes",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``pi_vcr`` marker; a bad :data:`RECORD_ENV` value fails the session here."""
    record_mode(config)
    config.addinivalue_line(
        "markers",
        "pi_vcr(name=None, allowed_hosts=(), match_body=True, ignore_body_keys=(), "
        "record_mode=None, replay_api_key=..., **vcr_options): record the test's provider "
        "traffic with --record-mode, replay it offline otherwise (pi-sdk).",
    )


def record_mode(config: pytest.Config) -> str:
    """Return the session's record mode: one of :data:`RECORD_MODES` (``"none"``: replay).

    ``--pi-record`` (``all``) and ``--pi-record-missing`` (``once``) first, then
    ``--record-mode``, then :data:`RECORD_ENV`; an unknown value there fails the session.
    """
    if config.getoption("--pi-record", default=False):
        return "all"
    if config.getoption("--pi-record-missing", default=False):
        return "once"
    option = config.getoption("record_mode", default=None)
    if option:
        return str(option)
    env = os.environ.get(RECORD_ENV, "").strip().lower()
    if env in ("", "0", "false", "no"):
        return "none"
    if env in ("1", "true", "yes"):
        return "all"
    if env == "missing":
        return "once"
    if env not in RECORD_MODES:
        raise pytest.UsageError(
            f"{RECORD_ENV}={env!r} is not a record mode; use one of {', '.join(RECORD_MODES)}"
        )
    return env


def _cassette_path(request: pytest.FixtureRequest, name: str | None) -> Path:
    folder = Path(request.path).parent / str(request.config.getini("pi_cassette_dir"))
    if name and "/" in name:  # "<module>/<stem>": another module's cassette
        parts = [_UNSAFE_NAME.sub("_", p) for p in name.split("/") if p not in ("", ".", "..")]
        return folder.joinpath(*parts).with_suffix(".yaml")
    stem = _UNSAFE_NAME.sub("_", name or request.node.name)
    return folder / Path(request.path).stem / f"{stem}.yaml"


@pytest.fixture
def pi_vcr_config() -> dict[str, Any]:
    """Default ``pi_vcr`` options for the tests in scope; override it in a ``conftest.py``."""
    return {}


@pytest.fixture
def pi_recording(request: pytest.FixtureRequest) -> bool:
    """True when this test's cassette is being recorded (real network), False on replay.

    A ``pi_vcr`` test's answer is its cassette's (the marker's ``record_mode``, ``once``
    resolved by the file): the cassette is opened first, whichever fixture asks. Elsewhere,
    the session's record mode.
    """
    if request.node.get_closest_marker("pi_vcr") is not None:
        session: CassetteSession = request.getfixturevalue("pi_cassette")
        return session.recording
    return record_mode(request.config) != "none"


@pytest.fixture
def pi_cassette(
    request: pytest.FixtureRequest,
    pi_vcr_config: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> Generator[CassetteSession]:
    """Record or replay this test's HTTP traffic; yields a :class:`CassetteSession`.

    The session exposes ``path``, ``recording``, ``cassette`` (vcrpy's, with ``.requests``)
    and ``recorded_json_bodies()``. Failing conditions are checked after the test body.
    """
    from pi_sdk_pytest.cassette import open_cassette
    from pi_sdk_pytest.replay_keys import replay_keys

    marker = request.node.get_closest_marker("pi_vcr")
    options: dict[str, Any] = {**pi_vcr_config, **(marker.kwargs if marker else {})}
    path = _cassette_path(request, options.pop("name", None))
    replay_key = options.pop("replay_api_key", REPLAY_API_KEY)
    mode = options.pop("record_mode", None) or record_mode(request.config)
    if mode == "once":
        mode = "none" if path.is_file() else "all"
    recording = mode != "none"
    with ExitStack() as stack:
        if not recording:
            if not path.is_file():
                pytest.fail(
                    f"no cassette at {path}. Record it once with the provider API keys in the "
                    f"environment: pytest --pi-record {request.node.nodeid!r}",
                    pytrace=False,
                )
            if replay_key:
                for variable in REPLAY_KEY_ENV_VARS:
                    if not os.environ.get(variable):
                        monkeypatch.setenv(variable, replay_key)
                stack.enter_context(replay_keys(str(replay_key)))
        session = stack.enter_context(open_cassette(path, record_mode=mode, **options))
        request.node.stash[_SESSION_KEY] = session
        try:
            yield session
        finally:
            del request.node.stash[_SESSION_KEY]
    if session.dropped:  # known once the cassette is written, as the ``with`` block ends
        count = len(session.dropped)
        request.config.stash.setdefault(_DROPPED_KEY, []).append(
            f"new_episodes dropped {count} interaction{'s' if count > 1 else ''} no request "
            f"played from {session.path}"
        )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give every ``pi_vcr`` test the ``pi_cassette`` fixture (unmarked tests get nothing)."""
    for item in items:
        if not isinstance(item, pytest.Function) or item.get_closest_marker("pi_vcr") is None:
            continue
        if "pi_cassette" not in item.fixturenames:
            item.fixturenames.append("pi_cassette")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """Fail a replayed test that missed, blocked or left unplayed any interaction."""
    try:
        result = yield
    except BaseException:
        session = item.stash.get(_SESSION_KEY, None)
        if session is not None:
            session.save = False  # never save a recording of a failed test
            if session.problems():
                item.add_report_section("call", "pi-sdk cassette", "\n".join(session.problems()))
        raise
    session = item.stash.get(_SESSION_KEY, None)
    if session is not None:
        problems = session.problems()
        if problems:
            pytest.fail("\n".join(problems), pytrace=False)
    return result


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    """Name, one line per cassette, what ``new_episodes`` dropped (see the module docstring)."""
    for line in config.stash.get(_DROPPED_KEY, list[str]()):
        terminalreporter.write_line(f"pi-sdk: {line}")
