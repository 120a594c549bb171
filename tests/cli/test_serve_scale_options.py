"""``pi-sdk serve``'s options for several processes and keys: every value and text they give.

:mod:`pi_sdk._cli.serve_scale`, in process: ``--workers`` (at least 1; with several, a port
that cannot be listened on ends the command with status 1 and one line), ``--rate-limit`` and
``--usage-db`` (no store without either; the default database in the data folder; one that
cannot open), ``--keys-file`` (tokens stripped; each refusal's text, never quoting a token),
and the options' defaults.
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_sdk._cli.serve_scale import USAGE_DB, add_scale_options, read_keys, run_server, usage_store


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_scale_options(parser)
    args = parser.parse_args(list(argv))
    args.host, args.port = "127.0.0.1", 0
    return args


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port this test listens on (nobody else can)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield sock.getsockname()[1]


def test_the_options_defaults():
    args = _args()
    assert (args.workers, args.keys_file, args.rate_limit, args.usage_db) == (1, None, None, None)
    args = _args("--workers", "3", "--rate-limit", "10/s", "--usage-db", "u.sqlite")
    assert (args.workers, args.rate_limit, args.usage_db) == (3, "10/s", Path("u.sqlite"))


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_workers_on_a_port_that_cannot_be_listened_on_end_with_status_1(
    taken_port: int, capsys: pytest.CaptureFixture[str], workers: int
):
    args = _args("--workers", str(workers))
    args.port = taken_port
    assert run_server(object(), args, lambda loop: None) == 1
    reason = f"[Errno {errno.EADDRINUSE}] {os.strerror(errno.EADDRINUSE)}"
    assert capsys.readouterr().err == (
        f"pi-sdk serve: error: cannot listen on 127.0.0.1:{taken_port}: {reason}\n"
    )


@pytest.mark.parametrize("workers", [0, -2])
def test_fewer_than_one_worker_is_refused(workers: int):
    with pytest.raises(ValueError) as raised:
        usage_store(_args("--workers", str(workers)))
    assert str(raised.value) == f"--workers must be at least 1, got {workers}"


def test_no_usage_store_without_a_rate_limit_or_a_database():
    assert usage_store(_args("--workers", "4")) is None


def test_a_rate_limit_alone_keeps_the_counts_in_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    store = usage_store(_args("--rate-limit", "600/min"))
    data = tmp_path / "xdg" / "pi-sdk"
    assert store.path == data / USAGE_DB == data / "serve-usage.sqlite"
    assert store.path.is_file()
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert str(store.rate_limit) == "600 requests per 60 s"


@pytest.mark.parametrize(
    ("limit", "said"),
    [(None, None), ("10/s", "10 requests per 1 s"), ("5000/h", "5000 requests per 3600 s")],
)
def test_a_usage_database_given_is_the_one_used(tmp_path: Path, limit: str | None, said: str):
    path = tmp_path / "usage.sqlite"
    store = usage_store(_args("--usage-db", str(path), *(["--rate-limit", limit] if limit else [])))
    assert store.path == path and path.is_file()
    assert (str(store.rate_limit) if store.rate_limit else None) == said


def test_a_usage_database_that_cannot_open_says_which_and_why(tmp_path: Path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    with pytest.raises(ValueError) as raised:
        usage_store(_args("--usage-db", str(folder)))
    assert str(raised.value) == (
        f"cannot open the usage database {folder}: unable to open database file"
    )


def test_a_keys_file_gives_each_name_its_stripped_token(tmp_path: Path):
    keys = tmp_path / "keys.json"
    keys.write_text('{"app-a": " token-a \\n", "app-b": "token-b"}', "utf-8")
    assert read_keys(keys) == {"app-a": "token-a", "app-b": "token-b"}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"a": "secret-1",', "{path} is not JSON"),
        ('["secret-1"]', '{path}: expected a JSON object {{"name": "token", ...}}'),
        ('{"a": 1}', '{path}: expected a JSON object {{"name": "token", ...}}'),
    ],
)
def test_a_bad_keys_file_says_what_is_wrong_without_its_tokens(
    tmp_path: Path, text: str, said: str
):
    keys = tmp_path / "keys.json"
    keys.write_text(text, "utf-8")
    with pytest.raises(ValueError) as raised:
        read_keys(keys)
    assert str(raised.value) == "--keys-file " + said.format(path=keys)


def test_a_keys_file_that_cannot_be_read_says_why(tmp_path: Path):
    missing = tmp_path / "nope.json"
    with pytest.raises(ValueError) as raised:
        read_keys(missing)
    assert str(raised.value) == f"cannot read --keys-file {missing}: No such file or directory"
