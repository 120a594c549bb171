"""Strict replay: request bodies match by default, volatile values masked, record modes.

A real pi-sdk call (the Anthropic adapter) is recorded from a loopback vendor, then replayed:
in-process through ``open_cassette`` and end to end through the pytest plugin in a fresh pytest
(the failure a test author reads). Record modes run against a small local HTTP server.
"""

from __future__ import annotations

import json
import os
import textwrap
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx2
import pytest
import yaml
from _support import warm_cli
from _support.loopback import LoopbackServer, text_reply
from _support.threaded_http import threaded_http_server
from pi_sdk_pytest import VOLATILE_BODY_KEYS, open_cassette
from pi_sdk_pytest.body_match import MASKED, masked_body

import pi_sdk

PROMPT = "Capital of France?"


def anthropic_at(url: str) -> pi_sdk.Model:
    return pi_sdk.get_model("anthropic", "claude-sonnet-4-5").model_copy(update={"base_url": url})


async def ask(model: pi_sdk.Model, prompt: str = PROMPT, **options) -> pi_sdk.AssistantMessage:
    context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content=prompt)])
    options = pi_sdk.StreamOptions(api_key="sk-test-key", max_retries=0, **options)
    return await pi_sdk.complete(model, context, options)


@pytest.fixture
async def recorded(tmp_path: Path) -> tuple[Path, str]:
    """A cassette of one Anthropic call (``metadata.user_id`` = ``"u-1"``); returns (path, url)."""
    path = tmp_path / "cassettes" / "test_app" / "recorded.yaml"
    async with LoopbackServer([text_reply("anthropic-messages", "Paris.")]) as vendor:
        with open_cassette(path, record_mode="all"):
            message = await ask(anthropic_at(vendor.url), metadata={"user_id": "u-1"})
        url = vendor.url
    assert message.stop_reason == "stop", message.error_message
    return path, url


async def replay_once(path: Path, url: str, **kwargs) -> tuple[pi_sdk.AssistantMessage, list[str]]:
    prompt = kwargs.pop("prompt", PROMPT)
    options = kwargs.pop("options", {"metadata": {"user_id": "u-1"}})
    with open_cassette(path, recording=False, **kwargs) as session:
        message = await ask(anthropic_at(url), prompt, **options)
    return message, session.misses


async def test_the_same_request_replays_and_a_changed_prompt_misses_naming_the_path(recorded):
    path, url = recorded
    message, misses = await replay_once(path, url)
    assert (message.text, misses) == ("Paris.", [])

    message, misses = await replay_once(path, url, prompt="Capital of Spain?")
    assert message.stop_reason == "error"
    (miss,) = misses
    assert "body differs from recorded interaction 0: $.messages[0].content" in miss
    assert '"Capital of Spain?" != "Capital of France?"' in miss
    assert "$.messages[0].content" in message.error_message  # what the code under test sees


async def test_volatile_values_are_masked_but_their_presence_is_compared(recorded):
    path, url = recorded
    message, misses = await replay_once(path, url, options={"metadata": {"user_id": "u-2"}})
    assert (message.stop_reason, misses) == ("stop", [])

    message, misses = await replay_once(path, url, options={})
    (miss,) = misses
    assert "$.metadata: only in the recording" in miss


async def test_opting_out_per_call_and_masking_more_keys(recorded):
    path, url = recorded
    message, misses = await replay_once(path, url, prompt="Anything", match_body=False)
    assert (message.text, misses) == ("Paris.", [])
    message, misses = await replay_once(
        path, url, prompt="Anything", ignore_body_keys=["messages.*.content"]
    )
    assert (message.text, misses) == ("Paris.", [])


def test_an_added_empty_tools_list_misses(tmp_path: Path) -> None:
    uri = "http://127.0.0.1:9/v1/messages"
    recorded = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    request = {"body": json.dumps(recorded), "headers": {}, "method": "POST", "uri": uri}
    response = {"body": {"string": "ok"}, "headers": {}, "status": {"code": 200, "message": "OK"}}
    path = tmp_path / "c.yaml"
    interactions = [{"request": request, "response": response}]
    path.write_text(yaml.safe_dump({"interactions": interactions, "version": 1}))
    with open_cassette(path, recording=False) as session:  # body matching is the default
        with httpx2.Client() as client:
            answer = client.post(uri, json={**recorded, "tools": []})
    assert answer.status_code == 404
    assert session.misses == [
        f"POST {uri} (body differs from recorded interaction 0: $.tools: only in the live request)"
    ]


def test_the_volatile_rule_masks_values_at_the_documented_paths() -> None:
    body = {
        "metadata": {"user_id": "u", "other": 1},
        "prompt_cache_key": "k",
        "messages": [{"id": "a", "content": "x"}, {"id": "b"}],
    }
    masked = masked_body(body, [*VOLATILE_BODY_KEYS, "messages.*.id", "absent.key"])
    assert masked == {
        "metadata": {"user_id": MASKED, "other": 1},
        "prompt_cache_key": MASKED,
        "messages": [{"id": MASKED, "content": "x"}, {"id": MASKED}],
    }
    assert body["prompt_cache_key"] == "k"  # a copy: the request is not changed
    assert masked_body(["a", "b"], ["1"]) == ["a", MASKED]
    assert masked_body("text", VOLATILE_BODY_KEYS) == "text"


# --- end to end through the pytest plugin ------------------------------------------------------

INNER_TESTS = textwrap.dedent(
    """
    import asyncio

    import pytest

    import pi_sdk

    URL = URL_PLACEHOLDER


    def ask(prompt, user_id="u-1"):
        model = pi_sdk.get_model("anthropic", "claude-sonnet-4-5").model_copy(
            update={"base_url": URL}
        )
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content=prompt)])
        options = pi_sdk.StreamOptions(metadata={"user_id": user_id}, max_retries=0)
        return asyncio.run(pi_sdk.complete(model, context, options))


    @pytest.mark.pi_vcr(name="recorded")
    def test_same_request():
        assert ask("Capital of France?").text == "Paris."


    @pytest.mark.pi_vcr(name="recorded")
    def test_changed_prompt():
        ask("Capital of Spain?")  # the error message is swallowed: the plugin fails the test


    @pytest.mark.pi_vcr(name="recorded")
    def test_another_user_id():
        assert ask("Capital of France?", user_id="u-42").text == "Paris."


    @pytest.mark.pi_vcr(name="recorded", match_body=False)
    def test_opted_out():
        assert ask("Capital of Spain?").text == "Paris."
    """
)


def run_pytest(folder: Path, *args: str, env: dict[str, str] | None = None) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    for name in ("PI_SDK_RECORD", "PYTEST_ADDOPTS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        clean.pop(name, None)
    # Forked from a warm server (anthropic imported once) when it can be: _support/warm_cli.py.
    done = warm_cli.run_module(
        "pytest",
        ["-p", "no:cacheprovider", "-rA", *args],
        {**clean, **(env or {})},
        cwd=folder,
        timeout=120,
    )
    return done.stdout + done.stderr


async def test_a_replayed_test_whose_body_changed_fails_naming_the_json_path(recorded, tmp_path):
    path, url = recorded
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_app.py").write_text(INNER_TESTS.replace("URL_PLACEHOLDER", repr(url)))
    out = run_pytest(tmp_path, "--record-mode=none", "test_app.py")
    assert "PASSED test_app.py::test_same_request" in out
    assert "PASSED test_app.py::test_another_user_id" in out
    assert "PASSED test_app.py::test_opted_out" in out
    assert "FAILED test_app.py::test_changed_prompt" in out
    assert "body differs from recorded interaction 0: $.messages[0].content" in out
    assert "1 failed, 3 passed" in out
    assert path.is_file()


def test_an_unknown_record_mode_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_x.py").write_text("def test_x():\n    pass\n")
    out = run_pytest(tmp_path, "--record-mode=sometimes")
    assert "invalid choice: 'sometimes'" in out
    out = run_pytest(tmp_path, env={"PI_SDK_RECORD": "sometimes"})
    assert "PI_SDK_RECORD='sometimes' is not a record mode" in out


# --- record modes -----------------------------------------------------------------------------


class _Echo(BaseHTTPRequestHandler):
    """Answers every POST with ``answer <n>`` (its count of requests so far)."""

    def do_POST(self):  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers["Content-Length"]))
        self.server.hits += 1
        body = f"answer {self.server.hits}".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def vendor():
    with threaded_http_server(_Echo, hits=0) as server:
        yield server


def post(server, prompt: str) -> str:
    host, port = server.server_address
    with httpx2.Client() as client:
        return client.post(f"http://{host}:{port}/v1/chat", json={"prompt": prompt}).text


def recorded_prompts(path: Path) -> list[str]:
    interactions = yaml.safe_load(path.read_text())["interactions"]
    return [json.loads(i["request"]["body"])["prompt"] for i in interactions]


def test_record_mode_once_records_a_missing_cassette_then_replays_it(tmp_path, vendor):
    path = tmp_path / "once.yaml"
    with open_cassette(path, record_mode="once") as session:
        assert (session.mode, session.recording) == ("all", True)
        assert post(vendor, "a") == "answer 1"
    assert recorded_prompts(path) == ["a"]
    with open_cassette(path, record_mode="once") as session:
        assert (session.mode, session.recording) == ("none", False)
        assert post(vendor, "a") == "answer 1"  # from the cassette
    assert vendor.hits == 1
    assert session.problems() == []


def test_record_mode_new_episodes_replays_the_recorded_and_adds_the_new(tmp_path, vendor):
    path = tmp_path / "episodes.yaml"
    with open_cassette(path, record_mode="all"):
        post(vendor, "a")
    with open_cassette(path, record_mode="new_episodes") as session:
        assert session.recording
        assert post(vendor, "a") == "answer 1"  # replayed: the server is not asked
        assert post(vendor, "b") == "answer 2"  # new: recorded from the server
    assert vendor.hits == 2
    assert recorded_prompts(path) == ["a", "b"]


@pytest.mark.parametrize("mode", ["all", "rewrite"])
def test_record_mode_all_rewrites_the_cassette(tmp_path, vendor, mode):
    path = tmp_path / "all.yaml"
    with open_cassette(path, record_mode="all"):
        post(vendor, "old")
    with open_cassette(path, record_mode=mode) as session:
        assert session.mode == "all"
        assert post(vendor, "new") == "answer 2"
    assert recorded_prompts(path) == ["new"]


def test_record_mode_none_needs_the_cassette_and_never_records(tmp_path, vendor):
    with pytest.raises(FileNotFoundError, match="no cassette at"):
        with open_cassette(tmp_path / "missing.yaml", record_mode="none"):
            pass
    with pytest.raises(ValueError, match="unknown record mode 'sometimes'"):
        with open_cassette(tmp_path / "x.yaml", record_mode="sometimes"):
            pass
    assert not (tmp_path / "missing.yaml").exists()
    assert vendor.hits == 0


def test_record_mode_new_episodes_drops_what_this_run_did_not_play(tmp_path, vendor):
    path = tmp_path / "episodes.yaml"
    with open_cassette(path, record_mode="all"):
        post(vendor, "a")
        post(vendor, "b")
    with open_cassette(path, record_mode="new_episodes") as session:
        assert post(vendor, "b") == "answer 2"  # replayed
        assert post(vendor, "c") == "answer 3"  # recorded
    assert session.dropped == ["POST " + session.cassette.requests[0].uri]
    assert recorded_prompts(path) == ["b", "c"]
    with open_cassette(path, record_mode="none") as session:
        assert (post(vendor, "b"), post(vendor, "c")) == ("answer 2", "answer 3")
    assert session.problems() == []
    assert vendor.hits == 3


EPISODE_TESTS = textwrap.dedent(
    """
    import os

    import httpx2
    import pytest


    @pytest.mark.pi_vcr(name="episode")
    def test_prompt():
        with httpx2.Client() as client:
            answer = client.post(os.environ["APP_URL"], json={"prompt": os.environ["APP_PROMPT"]})
        assert answer.status_code == 200, answer.text
    """
)


@pytest.mark.slow  # five pytest runs in a project of its own
def test_a_cassette_written_by_new_episodes_replays_in_modes_none_and_once(tmp_path, vendor):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_app.py").write_text(EPISODE_TESTS)
    host, port = vendor.server_address
    url = f"http://{host}:{port}/v1/chat"
    path = tmp_path / "cassettes" / "test_app" / "episode.yaml"

    def run(prompt: str, *args: str) -> str:
        return run_pytest(tmp_path, *args, env={"APP_URL": url, "APP_PROMPT": prompt})

    assert "1 passed" in run("old prompt", "--record-mode=all")
    episodes = run("new prompt", "--record-mode=new_episodes")
    assert "1 passed" in episodes
    for mode in ("none", "once"):  # before the fix: "recorded interaction never requested"
        out = run("new prompt", f"--record-mode={mode}")
        assert "1 passed" in out, out
        assert "dropped" not in out
    assert recorded_prompts(path) == ["new prompt"]
    assert f"pi-sdk: new_episodes dropped 1 interaction no request played from {path}" in episodes
    out = run("old prompt")  # strict replay still catches a changed request
    assert "request not in cassette" in out
    assert "1 failed" in out
    assert vendor.hits == 2
