"""The pytest plugin's hooks and fixtures in a reader's session, run in-process (pytester).

What the plugin does around a ``pi_vcr`` test: a failed recording is never written (its
problems go to a report section), a replay without its cassette fails naming the command that
records it, ``once`` records a missing cassette and replays an existing one, ``new_episodes``
names in the terminal summary what it dropped, ``pi_recording`` answers outside a cassette too,
and the plugin loads beside pytest-recording, which declares the same ``--record-mode``.
The inner sessions run in this process (``pytester.inline_run``), so they are fast and their
lines are measured under this module's tests; the request traffic goes to a local server.
"""

from __future__ import annotations

import json
import textwrap
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml
from _support.threaded_http import threaded_http_server
from pi_sdk_pytest import open_cassette
from pi_sdk_pytest.plugin import RECORD_ENV

pytest_plugins = ["pytester"]

APP = textwrap.dedent(
    """
    import os

    import httpx2
    import pytest


    def post(prompt):
        with httpx2.Client(verify=False) as client:  # plain HTTP: no certificates to load
            return client.post(os.environ["APP_URL"], json={"prompt": prompt}).text
    """
)


class _Echo(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers["content-length"]))
        reply = json.dumps({"echo": json.loads(body)["prompt"]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def app_url(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.delenv(RECORD_ENV, raising=False)
    with threaded_http_server(_Echo) as server:
        host, port = server.server_address[:2]
        url = f"http://{host!s}:{port}/v1/chat"
        monkeypatch.setenv("APP_URL", url)
        yield url


def _cassette(path: Path, url: str, *prompts: str) -> Path:
    """Record ``prompts`` (one POST each) at ``path`` through the local server."""
    with open_cassette(path, record_mode="all"):
        with httpx2.Client(verify=False) as client:  # plain HTTP: no certificates to load
            for prompt in prompts:
                client.post(url, json={"prompt": prompt})
    return path


def _write_app(pytester: pytest.Pytester, tests: str) -> None:
    """The reader's test module ``test_app.py``: :data:`APP`'s helper, then ``tests``."""
    pytester.makepyfile(test_app=APP + textwrap.dedent(tests))


def _prompts(path: Path) -> list[str]:
    interactions = yaml.safe_load(path.read_text())["interactions"]
    return [json.loads(i["request"]["body"])["prompt"] for i in interactions]


def _outcomes(reprec: Any) -> dict[str, Any]:
    """{test name: its call report} (the setup report when the test failed there)."""
    found: dict[str, Any] = {}
    for report in reprec.getreports("pytest_runtest_logreport"):
        name = report.nodeid.split("::")[-1]
        if report.when == "call" or (report.when == "setup" and report.failed):
            found[name] = report
    return found


def _section(report: Any) -> str | None:
    sections = dict(report.sections)
    return sections.get("Captured pi-sdk cassette call")


def test_a_failed_recording_is_not_written_and_a_passing_one_is(
    pytester: pytest.Pytester, app_url: str
) -> None:
    _write_app(
        pytester,
        """
            @pytest.mark.pi_vcr(name="kept", record_mode="all")
            def test_passes():
                assert "a" in post("a")

            @pytest.mark.pi_vcr(name="failed", record_mode="all")
            def test_fails_after_its_request():
                post("b")
                raise AssertionError("fails after its request")
        """,
    )
    reprec = pytester.inline_run("-p", "no:cacheprovider")
    reprec.assertoutcome(passed=1, failed=1)
    folder = pytester.path / "cassettes" / "test_app"
    assert sorted(p.name for p in folder.iterdir()) == ["kept.yaml"]
    assert _prompts(folder / "kept.yaml") == ["a"]
    failed = _outcomes(reprec)["test_fails_after_its_request"]
    assert "fails after its request" in str(failed.longrepr)
    assert _section(failed) is None  # a recording has no replay problems


def test_a_failed_replay_reports_its_cassette_problems_only_when_it_has_some(
    pytester: pytest.Pytester, app_url: str
) -> None:
    _cassette(pytester.path / "cassettes" / "test_app" / "two.yaml", app_url, "a", "b")
    _write_app(
        pytester,
        """
            @pytest.mark.pi_vcr(name="two")
            def test_plays_one_and_fails():
                post("a")
                raise AssertionError("boom one")

            @pytest.mark.pi_vcr(name="two")
            def test_plays_both_and_fails():
                post("a")
                post("b")
                raise AssertionError("boom both")

            @pytest.mark.pi_vcr(name="two")
            def test_plays_one_and_passes():
                post("b")
        """,
    )
    reprec = pytester.inline_run("-p", "no:cacheprovider")
    reprec.assertoutcome(failed=3)
    outcomes = _outcomes(reprec)
    one = outcomes["test_plays_one_and_fails"]
    assert "boom one" in str(one.longrepr)  # the test's own failure stays the failure
    assert _section(one) == f"recorded interaction never requested: POST {app_url}"
    both = outcomes["test_plays_both_and_fails"]
    assert "boom both" in str(both.longrepr)
    assert _section(both) is None
    passes = outcomes["test_plays_one_and_passes"]  # its body passed: the plugin fails it
    assert str(passes.longrepr).endswith(f"recorded interaction never requested: POST {app_url}")
    assert "plugin.py" not in str(passes.longrepr)  # pytrace=False: the problem list alone


def test_a_replay_without_its_cassette_fails_naming_the_command_that_records_it(
    pytester: pytest.Pytester, app_url: str
) -> None:
    _write_app(
        pytester,
        """
            @pytest.mark.pi_vcr(name="absent")
            def test_absent():
                raise AssertionError("the body must not run")
        """,
    )
    reprec = pytester.inline_run("-p", "no:cacheprovider")
    reprec.assertoutcome(failed=1)
    report = _outcomes(reprec)["test_absent"]
    assert report.when == "setup"
    path = pytester.path / "cassettes" / "test_app" / "absent.yaml"
    assert str(report.longrepr) == (
        f"no cassette at {path}. Record it once with the provider API keys in the "
        "environment: pytest --pi-record 'test_app.py::test_absent'"
    )
    assert not path.exists()


@pytest.mark.parametrize("where", ["marker", "option"])
def test_once_records_a_missing_cassette_and_replays_an_existing_one(
    pytester: pytest.Pytester, app_url: str, where: str
) -> None:
    _cassette(pytester.path / "cassettes" / "test_app" / "old.yaml", app_url, "a")
    mode = ', record_mode="once"' if where == "marker" else ""
    _write_app(
        pytester,
        f"""
            @pytest.mark.pi_vcr(name="old"{mode})
            def test_existing(pi_cassette):
                assert (pi_cassette.recording, pi_cassette.mode) == (False, "none")
                post("a")

            @pytest.mark.pi_vcr(name="new"{mode})
            def test_missing(pi_cassette):
                assert (pi_cassette.recording, pi_cassette.mode) == (True, "all")
                post("c")
        """,
    )
    args = () if where == "marker" else ("--record-mode=once",)
    reprec = pytester.inline_run("-p", "no:cacheprovider", *args)
    reprec.assertoutcome(passed=2)
    assert _prompts(pytester.path / "cassettes" / "test_app" / "new.yaml") == ["c"]


def test_new_episodes_names_each_cassette_it_dropped_interactions_from(
    pytester: pytest.Pytester, app_url: str
) -> None:
    folder = pytester.path / "cassettes" / "test_app"
    one = _cassette(folder / "one.yaml", app_url, "a", "b")
    two = _cassette(folder / "two.yaml", app_url, "a", "b")
    kept = _cassette(folder / "kept.yaml", app_url, "a")
    _write_app(
        pytester,
        """
            @pytest.mark.pi_vcr(name="one")
            def test_plays_one():
                post("a")

            @pytest.mark.pi_vcr(name="two")
            def test_plays_none():
                pass

            @pytest.mark.pi_vcr(name="kept")
            def test_plays_all():
                post("a")
        """,
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--record-mode=new_episodes")
    result.assert_outcomes(passed=3)
    dropped = [line for line in result.outlines if line.startswith("pi-sdk: ")]
    assert dropped == [
        f"pi-sdk: new_episodes dropped 1 interaction no request played from {one}",
        f"pi-sdk: new_episodes dropped 2 interactions no request played from {two}",
    ]
    assert (_prompts(one), _prompts(kept)) == (["a"], ["a"])


def test_new_episodes_keeps_the_file_of_a_failed_test_and_reports_nothing_dropped(
    pytester: pytest.Pytester, app_url: str
) -> None:
    """A failed test writes nothing, so it drops nothing: no summary line, the file as it was."""
    one = _cassette(pytester.path / "cassettes" / "test_app" / "one.yaml", app_url, "a", "b")
    _write_app(
        pytester,
        """
            @pytest.mark.pi_vcr(name="one")
            def test_plays_one_then_fails():
                post("a")
                raise AssertionError("the app broke")
        """,
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--record-mode=new_episodes")
    result.assert_outcomes(failed=1)
    assert [line for line in result.outlines if line.startswith("pi-sdk: ")] == []
    assert _prompts(one) == ["a", "b"]


@pytest.mark.parametrize(("env", "recording"), [("", False), ("0", False), ("all", True)])
def test_pi_recording_outside_a_cassette_follows_the_session_mode(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, env: str, recording: bool
) -> None:
    monkeypatch.setenv(RECORD_ENV, env)
    assert request.getfixturevalue("pi_recording") is recording


class _Recording:
    """pytest-recording's option, declared before pi-sdk's plugin loads (both read it)."""

    @staticmethod
    def pytest_addoption(parser: pytest.Parser) -> None:
        parser.getgroup("recording").addoption(
            "--record-mode", action="store", default=None, dest="record_mode"
        )


def test_the_plugin_loads_beside_pytest_recording_and_reads_its_record_mode(
    pytester: pytest.Pytester, app_url: str
) -> None:
    _write_app(
        pytester,
        """
            def test_mode(pytestconfig, pi_recording):
                assert pytestconfig.getoption("--pi-record") is False
                assert pi_recording is True
        """,
    )
    reprec = pytester.inline_run(
        "-p", "no:cacheprovider", "--record-mode=all", plugins=[_Recording()]
    )
    reprec.assertoutcome(passed=1)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((), {"test_marked_all": True, "test_marked_once_existing": False, "test_plain": False}),
        (
            ("--record-mode=once",),
            {"test_existing": False, "test_missing": True, "test_plain": True},
        ),
        (("--pi-record",), {"test_marked_none": False, "test_existing": True, "test_plain": True}),
    ],
)
def test_pi_recording_is_the_cassettes_answer_whichever_fixture_asks_first(
    pytester: pytest.Pytester, app_url: str, args: tuple[str, ...], expected: dict[str, bool]
) -> None:
    """A fixture that starts a server only to record (docs/testing.md) asks ``pi_recording``
    before the plugin's ``pi_cassette`` is set up: the marker and ``once`` still decide."""
    _cassette(pytester.path / "cassettes" / "test_app" / "old.yaml", app_url, "a")
    _write_app(
        pytester,
        """
            SEEN = {}

            @pytest.fixture
            def vendor(request, pi_recording):  # the docs' stand-in server fixture
                SEEN[request.node.name] = pi_recording

            @pytest.mark.pi_vcr(name="new", record_mode="all")
            def test_marked_all(vendor):
                pass

            @pytest.mark.pi_vcr(name="old", record_mode="once")
            def test_marked_once_existing(vendor):
                post("a")

            @pytest.mark.pi_vcr(name="old", record_mode="none")
            def test_marked_none(vendor):
                post("a")

            @pytest.mark.pi_vcr(name="old")
            def test_existing(vendor):
                post("a")

            @pytest.mark.pi_vcr(name="missing")
            def test_missing(vendor):
                pass

            def test_plain(vendor):
                pass

            def test_zz_report():
                import json
                from pathlib import Path
                Path("seen.json").write_text(json.dumps(SEEN))
        """,
    )
    names = [*expected, "test_zz_report"]
    reprec = pytester.inline_run("-p", "no:cacheprovider", *args, "-k", " or ".join(names))
    reprec.assertoutcome(passed=len(names))
    assert json.loads((pytester.path / "seen.json").read_text()) == expected
