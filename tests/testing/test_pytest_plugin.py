"""The pi-sdk pytest plugin, end to end: record through a loopback fake server, replay offline.

The inner test files run in a subprocess (a fresh pytest that loads the plugin through its
``pytest11`` entry point), first with ``--pi-record`` against a fake SSE server bound to
127.0.0.1, then in replay with no server at all and the network guard on.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from pi_sdk_pytest.network import NetworkBlockedError, block_network
from pi_sdk_pytest.scrub import (
    PLACEHOLDER,
    is_secret_header,
    scrub_text,
    secrets_from_environ,
    split_credential,
    strip_query_parameters,
)

SECRET = "sk-fake-0123456789abcdef-SECRET"
SSE = (
    "event: message_start\n"
    'data: {"type":"message_start","message":{"id":"msg_1"}}\n\n'
    "event: content_block_delta\n"
    'data: {"type":"content_block_delta","delta":{"text":"Hi \u00e9 \U0001f600"}}\n\n'
)

CONFTEST = textwrap.dedent(
    """
    import os
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    import pytest

    PORT = int(os.environ["FAKE_PORT"])
    SSE = SSE_PLACEHOLDER

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["content-length"]))
            body = SSE + 'data: {"echo":"' + self.headers["x-api-key"] + '"}\\n\\n'
            self.send_response(200)
            self.send_header("content-type", "text/event-stream; charset=utf-8")
            self.send_header("set-cookie", "session=abcdefgh12345678")
            self.send_header("openai-organization", "org-private-1234")
            self.send_header("x-request-id", "req_42")
            self.end_headers()
            self.wfile.write(body.encode("utf-8"))

        def log_message(self, *args):
            pass

    @pytest.fixture
    def fake_vendor(pi_recording):
        if not pi_recording:  # replay: no server, the cassette answers
            yield f"http://127.0.0.1:{PORT}"
            return
        server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{PORT}"
        server.shutdown()
        server.server_close()

    def call(base_url, path="/v1/messages"):
        import httpx2

        key = os.environ["FAKE_VENDOR_API_KEY"]
        headers = {
            "authorization": f"Bearer {key}",
            "x-api-key": key,
            "x-goog-api-key": key,
            "cookie": "sid=cookievalue123",
            "openai-organization": "org-private-1234",
        }
        with httpx2.Client() as client:
            with client.stream(
                "POST", f"{base_url}{path}?alt=sse&key={key}", headers=headers,
                json={"model": "fake", "stream": True},
            ) as response:
                return b"".join(response.iter_bytes()).decode("utf-8")
    """
).replace("SSE_PLACEHOLDER", repr(SSE))

RECORD_TESTS = textwrap.dedent(
    """
    import pytest
    from conftest import SSE, call

    @pytest.mark.pi_vcr
    def test_stream(fake_vendor):
        body = call(fake_vendor)
        assert body.startswith(SSE)

    @pytest.mark.pi_vcr
    def test_failing_recording(fake_vendor):
        call(fake_vendor)
        assert False, "a failed recording must not be saved"
    """
)

REPLAY_PROBLEMS = textwrap.dedent(
    """
    import socket
    import pytest
    from conftest import PORT, call

    @pytest.mark.pi_vcr(name="test_vendor/test_stream")
    def test_leaves_interaction_unplayed(fake_vendor):
        pass

    @pytest.mark.pi_vcr(name="test_vendor/test_stream")
    def test_unrecorded_request(fake_vendor):
        call(fake_vendor)
        try:
            call(fake_vendor, path="/v1/other")
        except Exception:
            pass  # the library error is swallowed: the plugin still fails the test

    @pytest.mark.pi_vcr(name="test_vendor/test_stream")
    def test_raw_socket(fake_vendor):
        call(fake_vendor)
        try:
            socket.create_connection(("127.0.0.1", PORT), timeout=1)
        except Exception:
            pass

    @pytest.mark.pi_vcr(name="never_recorded")
    def test_missing_cassette(fake_vendor):
        call(fake_vendor)
    """
)

REPLAY_KEYS_AND_MISSES = textwrap.dedent(
    """
    import asyncio
    import json

    import httpx2
    import pytest

    import pi_sdk
    from conftest import call
    from pi_sdk.plugins import get_plugin_manager
    from pi_sdk_pytest.plugin import REPLAY_API_KEY


    class Vault:
        @pi_sdk.hookimpl
        def get_api_key(self, provider):
            return "vault-key" if provider == "vaulted" else None


    @pytest.fixture
    def vault():
        manager = get_plugin_manager()
        plugin = Vault()
        manager.register(plugin, name="vault")
        yield
        manager.unregister(plugin)


    @pytest.mark.pi_vcr(name="test_vendor/test_stream")
    def test_every_provider_gets_the_dummy_key(fake_vendor, vault):
        call(fake_vendor)
        # A plugin provider's key, Vertex's key (GOOGLE_CLOUD_API_KEY is unset): the dummy.
        assert pi_sdk.default_models().get_api_key("echo-plugin-provider") == REPLAY_API_KEY
        assert pi_sdk.default_models().get_api_key("google-vertex") == REPLAY_API_KEY
        assert pi_sdk.default_models().get_api_key("vaulted") == "vault-key"  # a real answer kept


    @pytest.mark.pi_vcr(name="test_vendor/test_stream", replay_api_key=None)
    def test_no_dummy_key_when_turned_off(fake_vendor):
        call(fake_vendor)
        assert pi_sdk.default_models().get_api_key("echo-plugin-provider") is None


    def test_no_dummy_key_outside_a_cassette():
        assert pi_sdk.default_models().get_api_key("echo-plugin-provider") is None


    @pytest.mark.pi_vcr(name="test_vendor/test_stream")
    def test_a_miss_is_answered_at_once(fake_vendor, pi_cassette):
        call(fake_vendor)
        with httpx2.Client() as client:
            response = client.get(f"{fake_vendor}/v1/models")
        assert response.status_code == 404
        assert response.headers["x-should-retry"] == "false"
        message = response.json()["error"]["message"]
        assert f"GET {fake_vendor}/v1/models" in message
        assert f"0. POST {fake_vendor}/v1/messages?alt=sse (played)" in message
        assert len(pi_cassette.misses) == 1


    @pytest.mark.pi_vcr(name="test_vendor/test_stream")
    def test_a_provider_does_not_retry_a_miss(fake_vendor, pi_cassette):
        call(fake_vendor)
        model = pi_sdk.get_model("anthropic", "claude-sonnet-4-5").model_copy(
            update={"base_url": fake_vendor}
        )
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
        options = pi_sdk.StreamOptions(max_retries=3, max_retry_delay_ms=1)
        message = asyncio.run(pi_sdk.complete(model, context, options))
        assert message.stop_reason == "error"
        assert f"POST {fake_vendor}/v1/messages" in message.error_message
        assert "Recorded: 0. POST" in message.error_message
        assert len(pi_cassette.misses) == 1  # one attempt: max_retries=3 did not retry it
    """
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(folder: Path, port: int, *args: str) -> dict[str, str | None]:
    """Run pytest in ``folder``; return {test name: failure message or None if it passed}."""
    drop = ("PI_SDK_RECORD", "PYTEST_ADDOPTS")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.endswith("_API_KEY")}
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    env.update(FAKE_PORT=str(port), FAKE_VENDOR_API_KEY=SECRET)
    report = folder / "report.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--junitxml={report}", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    outcomes: dict[str, str | None] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        outcomes[case.attrib["name"]] = (
            None if problem is None else problem.attrib.get("message", "")
        )
    return outcomes


@pytest.mark.slow  # three pytest runs in a reader's project
def test_record_scrub_and_replay_offline(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_vendor.py").write_text(RECORD_TESTS)
    port = _free_port()

    recorded = _run(tmp_path, port, "--pi-record", "test_vendor.py")
    assert recorded["test_stream"] is None
    assert recorded["test_failing_recording"] is not None
    folder = tmp_path / "cassettes" / "test_vendor"
    assert sorted(p.name for p in folder.iterdir()) == ["test_stream.yaml"]  # failed: not saved

    text = (folder / "test_stream.yaml").read_text(encoding="utf-8")
    assert SECRET not in text
    assert "cookievalue123" not in text and "abcdefgh12345678" not in text
    assert "org-private-1234" not in text
    (interaction,) = yaml.safe_load(text)["interactions"]
    request, response = interaction["request"], interaction["response"]
    assert {h.lower() for h in request["headers"]}.isdisjoint(
        {"authorization", "x-api-key", "x-goog-api-key", "cookie", "openai-organization"}
    )
    assert "key=" not in request["uri"] and request["uri"].endswith("/v1/messages?alt=sse")
    assert {h.lower() for h in response["headers"]}.isdisjoint(
        {"set-cookie", "openai-organization"}
    )
    assert response["headers"]["x-request-id"] == ["req_42"]
    # SSE stored verbatim (as text), the echoed key replaced
    assert response["body"]["string"] == SSE + 'data: {"echo":"' + PLACEHOLDER + '"}\n\n'

    # Replay: no server runs; the same test passes from the cassette alone.
    (tmp_path / "test_vendor.py").write_text(
        RECORD_TESTS.split("@pytest.mark.pi_vcr\ndef test_failing")[0]
    )
    (tmp_path / "test_problems.py").write_text(REPLAY_PROBLEMS)
    (tmp_path / "test_replay_keys.py").write_text(REPLAY_KEYS_AND_MISSES)
    replayed = _run(tmp_path, port)
    assert replayed["test_stream"] is None
    assert "recorded interaction never requested: POST" in (
        replayed["test_leaves_interaction_unplayed"] or ""
    )
    # The plugin's own failure is the problem list alone, no traceback into the plugin.
    unplayed = next(
        case
        for case in ET.parse(tmp_path / "report.xml").getroot().iter("testcase")
        if case.attrib["name"] == "test_leaves_interaction_unplayed"
    )
    assert "pi_sdk_pytest/plugin.py" not in "".join(unplayed.itertext())
    assert "request not in cassette" in (replayed["test_unrecorded_request"] or "")
    assert "/v1/other" in (replayed["test_unrecorded_request"] or "")
    assert f"network access blocked: 127.0.0.1:{port}" in (replayed["test_raw_socket"] or "")
    assert "no cassette at" in (replayed["test_missing_cassette"] or "")
    assert "--pi-record" in (replayed["test_missing_cassette"] or "")
    assert (folder / "test_stream.yaml").read_text(encoding="utf-8") == text  # replay never writes

    # QA: no dummy key for Vertex or plugin providers (Vertex changed auth mode and missed).
    assert replayed["test_every_provider_gets_the_dummy_key"] is None
    assert replayed["test_no_dummy_key_when_turned_off"] is None
    assert replayed["test_no_dummy_key_outside_a_cassette"] is None
    # QA: a miss was a retried connection error; now one non-retryable answer naming it. The
    # inner asserts passed (else the failure is theirs); the plugin then fails the test.
    miss = replayed["test_a_miss_is_answered_at_once"] or ""
    assert miss.startswith("Failed: request not in cassette")
    assert f"GET http://127.0.0.1:{port}/v1/models" in miss
    assert "recorded in test_stream.yaml: 0. POST" in miss
    retried = replayed["test_a_provider_does_not_retry_a_miss"] or ""
    assert retried.startswith("Failed: request not in cassette")
    assert retried.count("not in cassette") == 1


# --- the building blocks --------------------------------------------------------------------


def test_block_network_blocks_ip_sockets_and_restores() -> None:
    blocked: list[str] = []
    with block_network(on_block=blocked.append):
        with pytest.raises(NetworkBlockedError, match="203.0.113.9:443"):
            socket.create_connection(("203.0.113.9", 443), timeout=1)
        left, right = socket.socketpair()  # asyncio's self-pipe keeps working
        left.close()
        right.close()
    assert blocked == ["203.0.113.9:443"]
    assert socket.socket.connect.__qualname__ == "socket.connect" or "block_network" not in (
        socket.socket.connect.__qualname__
    )


def test_block_network_allows_listed_hosts() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with block_network(allowed_hosts=["127.0.0.1"]):
            socket.create_connection(server.getsockname(), timeout=1).close()


def test_block_network_blocks_udp_and_dns_but_not_loopback() -> None:
    # QA: the guard saw only connect(); a UDP datagram and a DNS lookup left the machine.
    blocked: list[str] = []
    with block_network(on_block=blocked.append):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            with pytest.raises(NetworkBlockedError, match="UDP datagram to 203.0.113.9:53"):
                udp.sendto(b"x", ("203.0.113.9", 53))
            with pytest.raises(NetworkBlockedError):
                udp.sendto(b"x", 0, ("203.0.113.9", 53))
            with pytest.raises(NetworkBlockedError):
                udp.sendmsg([b"x"], [], 0, ("203.0.113.9", 53))
            with pytest.raises(NetworkBlockedError):
                udp.connect(("203.0.113.9", 53))
            udp.sendto(b"x", ("127.0.0.1", 9))  # loopback: stays on the machine
        for lookup in (
            lambda: socket.getaddrinfo("pi-sdk.invalid", 443),
            lambda: socket.gethostbyname("pi-sdk.invalid"),
            lambda: socket.gethostbyname_ex("pi-sdk.invalid"),
        ):
            with pytest.raises(NetworkBlockedError, match="DNS lookup of pi-sdk.invalid"):
                lookup()
        assert socket.getaddrinfo("localhost", 80)  # no DNS query for these
        assert socket.getaddrinfo("127.0.0.1", 80)
        assert socket.getaddrinfo("203.0.113.9", 443)  # a literal: the connect is checked
    assert blocked == ["UDP datagram to 203.0.113.9:53"] * 4 + ["DNS lookup of pi-sdk.invalid"] * 3
    # Restored exactly: socket.socket inherits these from _socket.socket again.
    assert "sendto" not in vars(socket.socket) and "connect" not in vars(socket.socket)
    assert socket.getaddrinfo.__module__ == "socket"


def test_block_network_allows_a_listed_name_and_its_addresses() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        with block_network(allowed_hosts=["localhost"]):
            socket.create_connection(("localhost", port), timeout=1).close()  # resolved: allowed
        with block_network():
            with pytest.raises(NetworkBlockedError, match=f":{port}"):
                socket.create_connection(("localhost", port), timeout=1)


def test_scrub_helpers() -> None:
    assert split_credential("Bearer sk-abcdefgh123") == {"Bearer sk-abcdefgh123", "sk-abcdefgh123"}
    assert split_credential("short") == set()
    uri, removed = strip_query_parameters("https://x/v1?alt=sse&KEY=AIzaSyA-123456&b=2", ["key"])
    assert uri == "https://x/v1?alt=sse&b=2" and removed == {"AIzaSyA-123456"}
    assert strip_query_parameters("https://x/v1?alt=sse", ["key"]) == (
        "https://x/v1?alt=sse",
        set(),
    )
    data = {"a": [b"xx sk-abcdefgh123 yy", "sk-abcdefgh123"], "sk-abcdefgh123": 1}
    assert scrub_text(data, {"sk-abcdefgh123"}) == {
        "a": [f"xx {PLACEHOLDER} yy".encode(), PLACEHOLDER],
        PLACEHOLDER: 1,
    }
    env = {"OPENAI_API_KEY": "sk-live-123456789", "HOME": "/root/abcdefgh", "X_TOKEN": "tok"}
    assert secrets_from_environ(env) == {"sk-live-123456789"}


@pytest.mark.parametrize(
    ("value", "parts"),
    [
        ("Bearer abcdefgh", {"Bearer abcdefgh", "abcdefgh"}),  # 8 characters: a secret
        ("bearer abcdefg", {"bearer abcdefg"}),  # 7: too short alone, the whole value is kept
        ("Basic dXNlcjpwYXNz", {"Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"}),
        ("TOKEN  gh-123456789 ", {"TOKEN  gh-123456789", "gh-123456789"}),
        ("Digest abcdefghij", {"Digest abcdefghij"}),  # not a scheme whose rest is the secret
        ("abcdefgh", {"abcdefgh"}),
        ("abcdefg", set()),
        ("  ", set()),
    ],
)
def test_a_credential_value_and_the_token_after_its_scheme_are_secrets(
    value: str, parts: set[str]
) -> None:
    assert split_credential(value) == parts


@pytest.mark.parametrize(
    ("name", "value", "secret"),
    [
        ("OPENAI_API_KEY", "abcdefgh", True),  # 8 characters: scrubbed
        ("OPENAI_API_KEY", "abcdefg", False),  # 7: would match ordinary text
        ("DEPLOY_KEY", "abcdefgh", True),
        ("github_token", "abcdefgh", True),  # any case
        ("APP_SECRET", "abcdefgh", True),
        ("DB_PASSWORD", "abcdefgh", True),
        ("KEYBOARD", "abcdefgh", False),
        ("TOKEN_FILE", "abcdefgh", False),  # the suffix decides, not a word inside
    ],
)
def test_secret_environment_variables_are_named_by_their_suffix(
    name: str, value: str, secret: bool
) -> None:
    assert secrets_from_environ({name: value}) == ({value} if secret else set())


@pytest.mark.parametrize(
    ("uri", "names", "by_rule", "kept", "removed"),
    [
        ("https://x/v?key=abcdefgh&a=", ["key"], False, "https://x/v?a=", {"abcdefgh"}),
        ("https://x/v?key=abcdefg", ["KEY"], False, "https://x/v", set()),  # too short to scrub
        ("https://x/v?X-Amz-Security-Token=abcdefghi&b=1", [], True, "https://x/v?b=1",
         {"abcdefghi"}),
        ("https://x/v?X-Amz-Security-Token=abcdefghi", [], False,
         "https://x/v?X-Amz-Security-Token=abcdefghi", set()),  # by name only
        ("https://x/v?access_token=abcdefghi&key=abcdefgh", ["key"], True, "https://x/v",
         {"abcdefghi", "abcdefgh"}),
        ("https://x/v", ["key"], True, "https://x/v", set()),
    ],
)  # fmt: skip
def test_query_parameters_go_by_name_or_by_rule(
    uri: str, names: list[str], by_rule: bool, kept: str, removed: set[str]
) -> None:
    assert strip_query_parameters(uri, names, by_rule=by_rule) == (kept, removed)


@pytest.mark.parametrize(
    ("name", "extra", "secret"),
    [
        ("Authorization", (), True),
        ("OpenAI-Organization", (), True),  # an id, not a credential, removed too
        ("x-custom-auth", (), True),  # the name says it
        ("X-Gateway-Ticket", ("x-gateway-TICKET",), True),  # the caller's, any case
        ("x-request-id", (), False),
        ("content-type", ("x-gateway-ticket",), False),
    ],
)
def test_which_headers_are_removed(name: str, extra: tuple[str, ...], secret: bool) -> None:
    assert is_secret_header(name, extra) is secret


def test_a_longer_secret_is_scrubbed_whole_before_one_it_contains() -> None:
    long, short = "sk-abcdefgh-extra", "sk-abcdefgh"
    for order in ([short, long], [long, short]):
        assert scrub_text(f"a {long} b {short}", order) == f"a {PLACEHOLDER} b {PLACEHOLDER}"
        assert scrub_text(f"a {long}".encode(), order) == f"a {PLACEHOLDER}".encode()
    assert scrub_text(["x", 3, None], [long]) == ["x", 3, None]
    assert scrub_text("keep", ["", ""]) == "keep"  # no secret at all: unchanged
