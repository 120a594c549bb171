"""A record mode read at run time (a command line, a config file) acts as its literal does.

``--record-mode`` and ``PI_SDK_RECORD_MODE`` arrive as strings equal to the literals these
rows name but not the same objects (``_support.strings.built``): each mode resolves, replays
or records exactly as the literal.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _support.strings import built
from pi_sdk_pytest import open_cassette
from pi_sdk_pytest.cassette import _effective_mode  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("mode", "exists", "effective"),
    [
        ("none", True, "none"),
        ("once", True, "none"),
        ("once", False, "all"),
        ("new_episodes", True, "new_episodes"),
        ("all", True, "all"),
        ("rewrite", True, "all"),
    ],
)
def test_a_record_mode_built_at_run_time_resolves_like_its_literal(
    tmp_path: Path, mode: str, exists: bool, effective: str
) -> None:
    path = tmp_path / "c.yaml"
    if exists:
        path.write_text("interactions: []\nversion: 1\n")
    assert _effective_mode(path, None, built(mode)) == effective


def test_replaying_with_a_built_none_needs_the_cassette(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        with open_cassette(tmp_path / "missing.yaml", record_mode=built("none")):
            pass


@pytest.mark.parametrize(("mode", "recording"), [("none", False), ("new_episodes", True)])
def test_a_built_mode_records_or_replays_like_its_literal(
    tmp_path: Path, mode: str, recording: bool
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("interactions: []\nversion: 1\n")
    with open_cassette(path, record_mode=built(mode)) as session:
        assert (session.recording, session.mode) == (recording, mode)


ONE_CALL = """interactions:
- request: {body: '', headers: {}, method: GET, uri: 'http://vendor.test/x'}
  response:
    body: {string: ok}
    headers: {}
    status: {code: 200, message: OK}
version: 1
"""


@pytest.mark.parametrize(("mode", "loaded"), [("all", 0), ("new_episodes", 1), ("none", 1)])
def test_a_built_mode_all_starts_a_fresh_recording(tmp_path: Path, mode: str, loaded: int) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(ONE_CALL)
    with open_cassette(path, record_mode=built(mode)) as session:
        assert len(session.cassette.data) == loaded


def test_replaying_with_a_built_none_blocks_the_network(tmp_path: Path) -> None:
    import socket

    from pi_sdk_pytest.network import NetworkBlockedError

    path = tmp_path / "c.yaml"
    path.write_text(ONE_CALL)
    with open_cassette(path, record_mode=built("none")) as session:
        with pytest.raises(NetworkBlockedError):
            socket.getaddrinfo("vendor.invalid", 443)
    assert len(session.blocked) == 1
