"""``pi-sdk models --refresh`` / ``--server``: servers' lists shown, kept, reused, failures told.

The real command runs in a child process with a private config folder, against loopback servers
speaking Ollama's and vLLM's shapes. Lists show where they came from (server, store, catalog),
are kept owner-only in the config folder and served offline to later commands (``prompt`` finds
a listed model), and a server that cannot be listed is one line on stderr, exit status 1.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from _support.cli import ThreadedLoopback, cli_env, run_cli
from _support.loopback import Step, text_reply
from _support.model_servers import ModelServer, closed_port_url

KEY = "sk-test-SECRET-cli-listing-0123456789"


def _rows(stdout: str) -> dict[tuple[str, str], list[str]]:
    """``(provider, id) -> the row's cells`` of the models table."""
    rows: dict[tuple[str, str], list[str]] = {}
    for line in stdout.splitlines()[1:-1]:
        cells = line.split()
        rows[(cells[0], cells[1])] = cells
    return rows


def _serve(fake: ModelServer, server: ThreadedLoopback, answer: Step | None = None) -> None:
    def route(method: str, target: str, headers: dict[str, str], body: bytes) -> Step:
        if target == "/v1/chat/completions" and answer is not None:
            return answer
        return fake.serve(method, target, headers, body)

    server.server.route = route


@pytest.mark.timeout(180)  # several runs of the CLI, each a fresh interpreter
def test_servers_are_listed_kept_and_reused_offline(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    ollama, vllm = ModelServer("ollama"), ModelServer("vllm")
    with ThreadedLoopback([]) as first, ThreadedLoopback([]) as second:
        _serve(ollama, first)
        _serve(vllm, second, text_reply("openai-completions", "Hi from vLLM"))
        listed = run_cli(
            ["models", "--server", f"ollama={first.url}/v1", "--server", f"vllm={second.url}/v1"],
            env,
        )
        assert listed.returncode == 0, listed.stderr
        rows = _rows(listed.stdout)
        assert rows[("ollama", "qwen3:8b")][2:5] == ["8,192", "2,048", "yes"]
        assert rows[("ollama", "qwen3:8b")][-1] == "server"
        assert rows[("vllm", "Qwen/Qwen3-8B")][-1] == "server"
        assert ("ollama", "nomic-embed-text:latest") not in rows
        assert rows[("anthropic", "claude-sonnet-4-5")][-1] == "catalog"
        store = tmp_path / "config" / "pi-sdk" / "models-store.json"
        assert stat.S_IMODE(store.stat().st_mode) == 0o600
        assert set(json.loads(store.read_text("utf-8"))["entries"]) == {
            f"ollama {first.url}/v1",
            f"vllm {second.url}/v1",
        }

        again = run_cli(["models", "--refresh", "--provider", "vllm"], env)
        assert again.returncode == 0, again.stderr
        assert _rows(again.stdout)[("vllm", "gpt-4o-mini")][-1] == "server"
        assert (vllm.lists, vllm.not_modified) == (1, 1)  # the second answer was a 304

        asked = len(first.server.requests) + len(second.server.requests)
        offline = run_cli(["models", "--provider", "ollama"], env)
        assert offline.returncode == 0, offline.stderr
        assert {row[-1] for row in _rows(offline.stdout).values()} == {"store"}
        assert len(first.server.requests) + len(second.server.requests) == asked

        answered = run_cli(["prompt", "-m", "vllm/Qwen/Qwen3-8B", "hello"], env)
        assert answered.returncode == 0, answered.stderr
        assert answered.stdout == "Hi from vLLM\n"
        assert second.server.requests[-1][1] == "/v1/chat/completions"


def test_a_server_that_cannot_be_listed_is_one_line_and_exit_status_1(tmp_path: Path) -> None:
    url = closed_port_url()
    servers = ["--server", f"ollama={url}/v1", "--server", f"gpu={url}"]
    done = run_cli(["models", *servers], cli_env(tmp_path))
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"pi-sdk: could not list gpu ({url}): GET {url}/models: cannot connect: connection"
        " refused (is the server running?)",
        f"pi-sdk: could not list ollama ({url}/v1): GET {url}/api/tags: cannot connect:"
        " connection refused (is the server running?)",
    ]
    assert "Traceback" not in done.stderr
    assert "2 not listed: gpu, ollama" in done.stdout.splitlines()[-1]
    assert ("anthropic", "claude-sonnet-4-5") in _rows(done.stdout)  # the rest is shown


def test_a_stored_key_goes_to_the_server_and_is_never_printed(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    vllm = ModelServer("vllm")
    with ThreadedLoopback([]) as server:
        _serve(vllm, server)
        assert run_cli(["models", "--server", f"vllm={server.url}/v1"], env).returncode == 0
        assert run_cli(["keys", "set", "vllm"], env, stdin=KEY + "\n").returncode == 0
        vllm.list_status = 500
        done = run_cli(["models", "--refresh", "--provider", "vllm", "--json"], env)
        sent = server.server.headers[-1]
    assert sent["authorization"] == f"Bearer {KEY}"
    assert done.returncode == 1
    assert "HTTP 500 Internal Server Error: upstream is down" in done.stderr
    assert KEY not in done.stdout + done.stderr
    listed = [json.loads(line) for line in done.stdout.splitlines()]
    assert {m["id"] for m in listed if m["provider"] == "vllm"} == {"Qwen/Qwen3-8B", "gpt-4o-mini"}


def test_input_errors_are_status_2(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    cases = {
        ("models", "--server", "no-url"): "--server takes ID=URL",
        ("models", "--server", "openai=http://127.0.0.1:9/v1"): "provider 'openai' cannot list",
        ("models", "--refresh", "--provider", "anthropic"): "has no model list to refresh",
        ("models", "--refresh", "--provider", "antropic"): "did you mean anthropic?",
        ("models", "--provider", "ollama"): "no models listed for provider 'ollama' yet",
    }
    for args, message in cases.items():
        done = run_cli(list(args), env)
        assert done.returncode == 2, (args, done.stderr)
        assert message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr


def test_a_corrupt_store_is_a_warning_and_the_catalog_still_shows(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    store = tmp_path / "config" / "pi-sdk" / "models-store.json"
    store.parent.mkdir(parents=True)
    store.write_text("{not json", "utf-8")
    store.chmod(0o600)
    done = run_cli(["models", "--provider", "anthropic"], env)
    assert done.returncode == 0
    assert done.stderr == (
        f"pi-sdk: warning: the models store {store} is not valid JSON: not used; the next"
        " refresh moves it to models-store.json.bad and starts a new one\n"
    )
