"""pi-sdk-pytest's less travelled paths, each by the behaviour a test author relies on (issue 34).

Cassettes: a request replayed twice, long and empty recordings in a miss report, hosts vcrpy is
told to ignore, an atomic save that fails, hooks chained after scrubbing. The network guard's
other socket calls. The record mode read from options and the environment. Credential files
that hold something else. The package's lazy namespace.
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx2
import pi_sdk_pytest
import pytest
import yaml
from pi_sdk_pytest import open_cassette
from pi_sdk_pytest.body_match import parsed_body
from pi_sdk_pytest.cassette import CassetteSession, recorded_listing
from pi_sdk_pytest.conformance.loopback import LoopbackServer, Reply
from pi_sdk_pytest.network import NetworkBlockedError, block_network
from pi_sdk_pytest.plugin import RECORD_ENV, record_mode
from pi_sdk_pytest.scrub import known_credentials

# --- cassettes --------------------------------------------------------------------------------


def _cassette(path: Path, *uris: str) -> Path:
    interactions = [
        {
            "request": {"body": None, "headers": {}, "method": "GET", "uri": uri},
            "response": {
                "body": {"string": f"answer {n}"},
                "headers": {},
                "status": {"code": 200, "message": "OK"},
            },
        }
        for n, uri in enumerate(uris)
    ]
    path.write_text(yaml.safe_dump({"interactions": interactions, "version": 1}))
    return path


URI = "http://127.0.0.1:9/v1/models"


def test_a_request_replayed_twice_is_a_miss_naming_the_interaction_already_played(
    tmp_path: Path,
) -> None:
    with open_cassette(_cassette(tmp_path / "c.yaml", URI), recording=False) as session:
        with httpx2.Client() as client:
            first = client.get(URI)
            second = client.get(URI)
    assert (first.status_code, first.text) == (200, "answer 0")
    assert second.status_code == 404
    said = f"GET {URI} (recorded interaction 0 already played; each answers once)"
    assert session.misses == [said]
    assert session.problems() == [
        f"request not in cassette {tmp_path / 'c.yaml'}: {said}",
        f"recorded in c.yaml: 0. GET {URI} (played)",
    ]


def test_a_miss_lists_five_recorded_requests_and_counts_the_rest(tmp_path: Path) -> None:
    uris = [f"http://127.0.0.1:9/v1/{n}" for n in range(7)]
    with open_cassette(_cassette(tmp_path / "c.yaml", *uris), recording=False) as session:
        with httpx2.Client() as client:
            assert client.get(uris[1]).text == "answer 1"
            assert client.get(URI).status_code == 404
    listing = ", ".join(
        f"{n}. GET {uri} ({'played' if n == 1 else 'not played'})" for n, uri in enumerate(uris[:5])
    )
    assert session.problems() == [
        f"request not in cassette {tmp_path / 'c.yaml'}: GET {URI}",
        f"recorded in c.yaml: {listing}, ... 2 more",
        *(f"recorded interaction never requested: GET {u}" for u in uris if u != uris[1]),
    ]


def test_a_miss_on_an_empty_cassette_says_no_interactions(tmp_path: Path) -> None:
    with open_cassette(_cassette(tmp_path / "c.yaml"), recording=False) as session:
        with httpx2.Client() as client:
            assert client.get(URI).status_code == 404
    assert session.problems()[1] == "recorded in c.yaml: no interactions"
    assert recorded_listing(None) == "no interactions"


def test_a_recording_session_has_no_unplayed_interactions(tmp_path: Path) -> None:
    recording = CassetteSession(path=tmp_path / "c.yaml", recording=True, cassette=object())
    assert (recording.unplayed(), recording.problems()) == ([], [])
    assert CassetteSession(path=tmp_path / "c.yaml", recording=False).unplayed() == []


async def test_a_host_vcrpy_ignores_goes_to_the_network_guard(tmp_path: Path) -> None:
    path = _cassette(tmp_path / "c.yaml", URI)
    async with LoopbackServer() as server:
        server.play(Reply(parts=(b"live",)))
        port = server.url.rsplit(":", 1)[1]
        with open_cassette(
            path, recording=False, ignore_hosts=["127.0.0.1"], allowed_hosts=["127.0.0.1"]
        ) as allowed:
            async with httpx2.AsyncClient() as client:
                answer = await client.get(f"{server.url}/v1/live")
        with open_cassette(path, recording=False, ignore_hosts=["127.0.0.1"]) as guarded:
            with httpx2.Client() as client, pytest.raises(NetworkBlockedError):
                client.get(f"{server.url}/v1/live")  # refused at connect: the loop is not needed
    assert answer.text == "live"  # not a miss: the live server answered
    assert (allowed.misses, allowed.blocked) == ([], [])
    assert [r.target for r in server.received] == ["/v1/live"]
    assert (guarded.misses, guarded.blocked) == ([], [f"127.0.0.1:{port}"])


async def test_a_failed_save_leaves_no_temporary_file_and_raises(tmp_path: Path) -> None:
    target = tmp_path / "c.yaml"
    target.mkdir()
    (target / "keep").write_text("x")  # a non-empty folder: the atomic replace fails
    unpatched = httpx2.AsyncHTTPTransport.handle_async_request
    async with LoopbackServer() as server:
        with pytest.raises(OSError):
            with open_cassette(target, record_mode="all"):
                assert httpx2.AsyncHTTPTransport.handle_async_request is not unpatched
                async with httpx2.AsyncClient() as client:
                    await client.get(f"{server.url}/v1/x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]
    assert (target / "keep").read_text() == "x"
    # The clients' patches are undone now, not when the garbage collector gets to them (then,
    # inside whatever cassette is open, whose calls would go unrecorded).
    assert httpx2.AsyncHTTPTransport.handle_async_request is unpatched


async def test_hooks_given_as_options_run_after_scrubbing_in_order(tmp_path: Path) -> None:
    seen: list[str] = []

    def on_request(request: Any) -> Any:
        seen.append(f"request key={request.headers.get('x-api-key')}")
        return request

    def first(response: Any) -> Any:
        seen.append("first")
        response["body"]["string"] = response["body"]["string"] + b" +first"
        return response

    def second(response: Any) -> Any:
        seen.append("second")
        response["body"]["string"] = response["body"]["string"] + b" +second"
        return response

    path = tmp_path / "c.yaml"
    async with LoopbackServer() as server:
        server.play(Reply(parts=(b"live",)))
        with open_cassette(
            path,
            record_mode="all",
            before_record_request=on_request,
            before_record_response=(first, second),
        ):
            async with httpx2.AsyncClient() as client:
                await client.get(f"{server.url}/v1/x", headers={"x-api-key": "sk-test-0123456789"})
    asked = [entry for entry in seen if entry.startswith("request")]
    assert asked and set(asked) == {"request key=None"}  # vcrpy may ask more than once
    assert [entry for entry in seen if entry not in asked] == ["first", "second"]
    [interaction] = yaml.safe_load(path.read_text())["interactions"]
    assert interaction["response"]["body"]["string"] == "live +first +second"
    assert "sk-test-0123456789" not in path.read_text()


# --- the network guard ------------------------------------------------------------------------


def test_connect_ex_is_guarded_and_answers_for_allowed_hosts() -> None:
    blocked: list[str] = []
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # bound, not listening: a connection is refused
    with block_network(allowed_hosts=["127.0.0.1"], on_block=blocked.append):
        with socket.socket() as sock:
            with pytest.raises(NetworkBlockedError, match="203.0.113.9:443"):
                sock.connect_ex(("203.0.113.9", 443))
        with socket.socket() as sock:
            assert sock.connect_ex(("127.0.0.1", port)) != 0  # the real call's error number
    assert blocked == ["203.0.113.9:443"]


def test_unix_sockets_and_datagrams_without_an_address_pass(tmp_path: Path) -> None:
    with block_network():
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(tmp_path / "s"))
            server.listen(1)
            with socket.socket(socket.AF_UNIX) as client:
                client.connect(str(tmp_path / "s"))  # not an IP socket: never refused
        left, right = socket.socketpair(type=socket.SOCK_DGRAM)
        with left, right:
            assert left.sendmsg([b"ping"]) == 4  # connected: no address to check
            assert right.recv(4) == b"ping"


def test_a_passive_lookup_is_not_a_dns_query() -> None:
    with block_network():
        found = socket.getaddrinfo(None, 80, type=socket.SOCK_STREAM)
    assert {entry[4][0] for entry in found} <= {"127.0.0.1", "::1"}


@pytest.mark.parametrize("lookup", ["gethostbyname", "gethostbyname_ex"])
def test_a_listed_name_resolved_by_name_allows_its_addresses(lookup: str) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with block_network(allowed_hosts=["LocalHost"]):
            with pytest.raises(NetworkBlockedError):
                socket.create_connection(server.getsockname(), timeout=1)
            found = getattr(socket, lookup)("localhost")
            addresses = [found] if lookup == "gethostbyname" else found[2]
            assert "127.0.0.1" in addresses
            socket.create_connection(server.getsockname(), timeout=1).close()


# --- the record mode --------------------------------------------------------------------------


def _config(**options: Any) -> Any:
    return SimpleNamespace(getoption=lambda name, default=None: options.get(name, default))


@pytest.mark.parametrize(
    ("options", "env", "mode"),
    [
        ({"--pi-record": True, "--pi-record-missing": True}, "none", "all"),
        ({"--pi-record-missing": True, "record_mode": "all"}, "", "once"),
        ({"record_mode": "new_episodes"}, "1", "new_episodes"),
        ({}, "", "none"),
        ({}, " No ", "none"),
        ({}, "0", "none"),
        ({}, "false", "none"),
        ({}, "1", "all"),
        ({}, "TRUE", "all"),
        ({}, "yes", "all"),
        ({}, "missing", "once"),
        ({}, "new_episodes", "new_episodes"),
        ({}, "Rewrite", "rewrite"),
    ],
)
def test_the_record_mode_comes_from_options_then_the_environment(
    monkeypatch: pytest.MonkeyPatch, options: dict[str, Any], env: str, mode: str
) -> None:
    monkeypatch.setenv(RECORD_ENV, env)
    assert record_mode(_config(**options)) == mode


def test_an_unknown_record_mode_in_the_environment_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(RECORD_ENV, "sometimes")
    with pytest.raises(pytest.UsageError) as caught:
        record_mode(_config())
    assert str(caught.value) == (
        f"{RECORD_ENV}='sometimes' is not a record mode; use one of none, once, new_episodes, "
        "all, rewrite"
    )


@pytest.mark.pi_vcr(record_mode="all")  # the session's mode is "none": only the cassette says True
def test_pi_recording_reads_the_open_cassette(
    pi_cassette: CassetteSession, pi_recording: bool
) -> None:
    assert pi_recording is True
    assert pi_cassette.recording is True  # nothing is requested, so nothing is written


# --- credential files and bodies --------------------------------------------------------------


def test_a_credentials_file_that_is_not_an_object_adds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    google = tmp_path / "adc.json"
    google.write_text(json.dumps(["private-key-in-a-list-123"]))
    monkeypatch.setitem(sys.modules, "platformdirs", None)  # the key store is not read
    env = {"HOME": str(tmp_path), "GOOGLE_APPLICATION_CREDENTIALS": str(google)}
    assert known_credentials(env) == set()
    google.write_text(json.dumps({"private_key": "private-key-in-an-object-1"}))
    assert known_credentials(env) == {"private-key-in-an-object-1"}


def test_the_key_store_is_read_when_platformdirs_is_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "pi-sdk" / "keys.json"
    store.parent.mkdir()
    store.write_text(json.dumps({"openai": "sk-stored-key-0123"}))
    monkeypatch.setitem(
        sys.modules, "platformdirs", SimpleNamespace(user_config_path=lambda app: tmp_path / app)
    )
    assert known_credentials({"HOME": str(tmp_path)}) == {"sk-stored-key-0123"}


@pytest.mark.parametrize(
    ("store", "google", "aws", "found"),
    [
        ({"openai": "sk-stored-key-0123", "saved": 1767225600}, None, None, {"sk-stored-key-0123"}),
        (
            None,
            {
                "type": "service_account",
                "private_key": "-----BEGIN PRIVATE KEY-----abc",
                "private_key_id": 12345678901234,
                "client_secret": None,
                "client_email": "robot@project.iam.gserviceaccount.com",
            },
            None,
            {"-----BEGIN PRIVATE KEY-----abc"},
        ),
        (
            None,
            None,
            "[p]\naws_access_key_id =   \nregion = eu-central-1-long\n"
            "aws_session_token = tok-1234\n",
            {"tok-1234"},
        ),
    ],
    ids=["key-store-number", "google-number-null-and-email", "aws-empty-key-and-region"],
)
def test_only_the_text_of_a_secret_field_in_a_credentials_file_is_a_credential(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    store: dict[str, object] | None,
    google: dict[str, object] | None,
    aws: str | None,
    found: set[str],
) -> None:
    """Numbers and nulls are no credentials; nor are other fields (an email, a region)."""
    env = {"HOME": str(tmp_path)}
    if store is not None:
        (tmp_path / "pi-sdk").mkdir()
        (tmp_path / "pi-sdk" / "keys.json").write_text(json.dumps(store))
    if google is not None:
        (tmp_path / "adc.json").write_text(json.dumps(google))
        env["GOOGLE_APPLICATION_CREDENTIALS"] = str(tmp_path / "adc.json")
    if aws is not None:
        (tmp_path / "credentials").write_text(aws)
        env["AWS_SHARED_CREDENTIALS_FILE"] = str(tmp_path / "credentials")
    monkeypatch.setitem(
        sys.modules, "platformdirs", SimpleNamespace(user_config_path=lambda app: tmp_path / app)
    )
    assert known_credentials(env) == found


@pytest.mark.parametrize(
    ("body", "parsed"),
    [
        (None, None),
        (b"", None),
        ("", None),
        (b'{"a": [1]}', {"a": [1]}),
        ("[true]", [True]),
        (b"not json", b"not json"),
        ("{half", "{half"),
        (b"\xff\xfe", b"\xff\xfe"),
    ],
)
def test_a_recorded_body_is_parsed_as_json_or_kept_as_it_is(body: Any, parsed: Any) -> None:
    assert parsed_body(body) == parsed


# --- the namespace ----------------------------------------------------------------------------


def test_the_namespace_lists_its_exports_and_refuses_other_names() -> None:
    exported = pi_sdk_pytest._EXPORTS  # noqa: SLF001 - the table the namespace is made of
    assert set(exported) <= set(dir(pi_sdk_pytest))
    assert dir(pi_sdk_pytest) == sorted(dir(pi_sdk_pytest))
    with pytest.raises(AttributeError) as caught:
        _ = pi_sdk_pytest.NotExported  # type: ignore[attr-defined]
    assert str(caught.value) == "module 'pi_sdk_pytest' has no attribute 'NotExported'"
