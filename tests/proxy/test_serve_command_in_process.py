"""``pi-sdk serve`` in process, up to the point where uvicorn would start.

``run_serve`` (``pi_sdk/_cli/serve.py``) and ``run_server`` (``pi_sdk/_cli/serve_scale.py``) with
uvicorn's ``Server`` and the supervisor replaced by recorders: what each option becomes in the
policy, the limits, the usage store, the summary and the uvicorn configuration (the defaults
too); the request log's handler; one worker served in this process on the bound socket, several
handed to the supervisor; the refusals when the serve extra, ``fork`` or a models list is
missing. The subprocess runs (a real server) are in ``test_serve_command.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _support.proxy import TOKEN

import pi_sdk
from pi_sdk._cli import main, serve_scale, serve_summary
from pi_sdk._cli import serve as serve_command
from pi_sdk._serve import server, workers
from pi_sdk._serve.limits import default_max_connections, quiet_accept_errors
from pi_sdk._serve.outcome_log import LOGGER_NAME
from pi_sdk._serve.policy import ProxyPolicy

MODEL = "anthropic/claude-sonnet-4-5"


class Ran:
    """What ``run_serve`` handed on: the app's policy and store, the summary, uvicorn's config."""

    def __init__(self) -> None:
        self.policy: ProxyPolicy | None = None
        self.usage: Any = None
        self.serving: serve_summary.Serving | None = None
        self.config: Any = None
        self.args: argparse.Namespace | None = None
        self.quiet: Any = None


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch) -> Iterator[Ran]:
    seen = Ran()
    real_app = server.proxy_app

    def proxy_app(policy: ProxyPolicy, *, usage: Any = None) -> Any:
        seen.policy, seen.usage = policy, usage
        return real_app(policy, usage=usage)

    def summary(serving: serve_summary.Serving) -> list[str]:
        seen.serving = serving
        return ["summary line 1", "summary line 2"]

    def run_server(config: Any, args: argparse.Namespace, quiet: Any) -> int:
        seen.config, seen.args, seen.quiet = config, args, quiet
        return 7

    monkeypatch.setattr(server, "proxy_app", proxy_app)
    monkeypatch.setattr(serve_summary, "summary", summary)
    monkeypatch.setattr(serve_command, "run_server", run_server)
    monkeypatch.setenv("PI_SDK_PROXY_TOKEN", f"  {TOKEN}\n")
    log = logging.getLogger(LOGGER_NAME)
    monkeypatch.setattr(log, "handlers", [])
    monkeypatch.setattr(log, "propagate", True)
    monkeypatch.setattr(log, "level", log.level)
    yield seen


def test_the_defaults_reach_the_policy_the_limits_the_summary_and_uvicorn(
    ran: Ran, capsys: pytest.CaptureFixture[str]
):
    assert main(["serve", "--allow", MODEL]) == 7  # run_server's status is the command's
    assert capsys.readouterr().err == "summary line 1\nsummary line 2\n"
    policy, serving, config = ran.policy, ran.serving, ran.config
    assert policy is not None and serving is not None
    assert policy.token == TOKEN  # stripped
    assert (policy.allow, policy.cors_origins, policy.keys) == ((MODEL,), (), {})
    assert policy.max_body_bytes == 8 * 1024 * 1024
    assert policy.body_timeout_ms == 30_000
    assert ran.usage is None
    assert serving.url == "http://127.0.0.1:8787"
    assert (serving.token_source, serving.token_length) == ("$PI_SDK_PROXY_TOKEN", len(TOKEN))
    assert [f"{m.provider}/{m.id}" for m in serving.models] == [MODEL]
    assert (serving.body_timeout_ms, serving.max_body_bytes) == (30_000, 8 * 1024 * 1024)
    assert (serving.workers, serving.keys, serving.rate_limit, serving.usage_db) == (
        1,
        1,
        None,
        None,
    )
    limits = serving.limits
    assert (limits.header_timeout_s, limits.idle_timeout_s) == (10.0, 5.0)
    assert limits.max_connections == default_max_connections()
    assert (config.host, config.port, config.log_level) == ("127.0.0.1", 8787, "info")
    assert config.timeout_keep_alive == 5 and config.access_log is False
    assert ran.quiet is quiet_accept_errors
    assert ran.args is not None and ran.args.workers == 1
    # the request lines go to stderr at the --log-level, not also to the root logger
    log = logging.getLogger(LOGGER_NAME)
    assert [type(h) for h in log.handlers] == [logging.StreamHandler]
    assert log.handlers[0].stream is sys.stderr  # type: ignore[attr-defined]
    assert log.level == logging.INFO and log.propagate is False


def test_every_option_reaches_what_it_sets(
    ran: Ran, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    token = tmp_path / "token"
    token.write_text("file-token\n", "utf-8")
    keys = tmp_path / "keys.json"
    keys.write_text('{"app-a": "key-a", "app-b": " key-b "}', "utf-8")
    usage_db = tmp_path / "usage.sqlite"
    argv = ["serve", "--allow", MODEL, "--allow", "openai/gpt-5", "--token-file", str(token)]
    argv += ["--host", "127.0.0.2", "--port", "9999", "--max-body-bytes", "1000"]
    argv += ["--cors-origin", "https://a.example", "--cors-origin", "https://b.example"]
    argv += ["--header-timeout", "3", "--idle-timeout", "7", "--body-timeout", "2.5"]
    argv += ["--max-connections", "40", "--workers", "3", "--keys-file", str(keys)]
    argv += ["--rate-limit", "10/s", "--usage-db", str(usage_db), "--log-level", "warning"]
    assert main(argv) == 7
    policy, serving, config = ran.policy, ran.serving, ran.config
    assert policy is not None and serving is not None
    assert policy.token == "file-token"
    assert policy.allow == (MODEL, "openai/gpt-5")
    assert policy.cors_origins == ("https://a.example", "https://b.example")
    assert (policy.max_body_bytes, policy.body_timeout_ms) == (1000, 2500)
    assert dict(policy.keys) == {"app-a": "key-a", "app-b": "key-b"}
    assert ran.usage is not None and ran.usage.path == usage_db and usage_db.is_file()
    assert str(ran.usage.rate_limit) == "10 requests per 1 s"
    assert serving.url == "http://127.0.0.2:9999"
    assert (serving.token_source, serving.token_length) == (str(token), len("file-token"))
    assert [f"{m.provider}/{m.id}" for m in serving.models] == [MODEL, "openai/gpt-5"]
    assert (serving.body_timeout_ms, serving.max_body_bytes) == (2500, 1000)
    assert serving.cors_origins == ("https://a.example", "https://b.example")
    assert (serving.workers, serving.keys) == (3, 3)  # the token and the file's two
    assert (serving.rate_limit, serving.usage_db) == ("10 requests per 1 s", str(usage_db))
    limits = serving.limits
    assert (limits.header_timeout_s, limits.idle_timeout_s, limits.max_connections) == (3, 7, 40)
    assert (config.host, config.port, config.log_level) == ("127.0.0.2", 9999, "warning")
    assert config.timeout_keep_alive == 7
    assert logging.getLogger(LOGGER_NAME).level == logging.WARNING


def test_a_usage_database_alone_counts_without_a_rate_limit(ran: Ran, tmp_path: Path):
    assert main(["serve", "--allow", MODEL, "--usage-db", str(tmp_path / "u.sqlite")]) == 7
    assert ran.serving is not None
    assert (ran.serving.rate_limit, ran.serving.usage_db) == (None, str(tmp_path / "u.sqlite"))


def test_the_served_models_resolve_to_the_provider_base_url_variable(
    ran: Ran, monkeypatch: pytest.MonkeyPatch
):
    assert main(["serve", "--allow", MODEL]) == 7
    assert ran.policy is not None and ran.policy.resolve_model is not None
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1/private")
    model = ran.policy.resolve_model("anthropic", "claude-sonnet-4-5")
    assert model.base_url == "http://127.0.0.1:1/private"
    assert model.id == "claude-sonnet-4-5"


@pytest.mark.parametrize("wrapped", [False, True], ids=["a-list", "models-object"])
def test_a_models_file_registers_its_models_as_a_list_or_an_object(
    ran: Ran, tmp_path: Path, wrapped: bool
):
    model = pi_sdk.get_model("anthropic", "claude-sonnet-4-5").model_copy(
        update={"id": "claude-in-a-file", "base_url": "http://127.0.0.1:1"}
    )
    listed = [model.model_dump(mode="json", by_alias=True)]
    models = tmp_path / "models.json"
    models.write_text(json.dumps({"models": listed} if wrapped else listed), "utf-8")
    assert main(["serve", "--allow", "anthropic/claude-in-a-file", "--models", str(models)]) == 7
    assert ran.serving is not None
    assert [m.base_url for m in ran.serving.models] == ["http://127.0.0.1:1"]


@pytest.mark.parametrize("text", ['{"models": 3}', '{"model": []}', '"a model"', "7"])
def test_a_models_file_that_is_not_a_list_of_models_says_the_shape_it_needs(
    ran: Ran, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
):
    models = tmp_path / "models.json"
    models.write_text(text, "utf-8")
    assert main(["serve", "--allow", MODEL, "--models", str(models)]) == 2
    assert capsys.readouterr().err == (
        f"pi-sdk serve: error: {models}: expected {{'models': [...]}} or a list of models\n"
    )
    assert ran.config is None


def test_without_the_serve_extra_the_command_names_it(
    ran: Ran, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a)
    )
    assert main(["serve", "--allow", MODEL]) == 2
    assert capsys.readouterr().err == (
        "pi-sdk serve: error: `pi-sdk serve` needs the serve extra:"
        " pip install 'pi-sdk-core[serve]'\n"
    )
    assert ran.config is None


def _args(workers: int) -> argparse.Namespace:
    return argparse.Namespace(host="127.0.0.1", port=0, workers=workers)


@pytest.fixture
def uvicorn_servers(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any, bool]]:
    """Stands uvicorn's ``Server`` in: records (config, sockets, all open on 127.0.0.1)."""
    import uvicorn

    served: list[tuple[Any, Any, bool]] = []

    class Server:
        def __init__(self, config: Any) -> None:
            self.config = config

        async def serve(self, sockets: list[socket.socket] | None = None) -> None:
            listening = all(s.getsockname()[0] == "127.0.0.1" for s in sockets or [])
            served.append((self.config, sockets, listening))

    monkeypatch.setattr(uvicorn, "Server", Server)
    return served


def test_one_worker_serves_in_this_process_on_the_bound_socket_then_closes_it(
    uvicorn_servers: list[tuple[Any, Any, bool]],
):
    loops: list[asyncio.AbstractEventLoop] = []
    config = object()
    assert serve_scale.run_server(config, _args(1), loops.append) == 0
    [(given, sockets, was_open)] = uvicorn_servers
    assert given is config and was_open
    [sock] = sockets
    assert sock.fileno() == -1  # closed after
    assert len(loops) == 1  # quiet() is given the server's running loop
    assert loops[0].is_closed()


def test_several_workers_are_handed_to_the_supervisor_each_serving_the_shared_socket(
    uvicorn_servers: list[tuple[Any, Any, bool]], monkeypatch: pytest.MonkeyPatch
):
    made: list[Any] = []

    class Supervisor:
        def __init__(self, serve: Callable[[socket.socket], int], sock: socket.socket, n: int):
            self.serve, self.sock, self.count = serve, sock, n
            made.append(self)

        def run(self) -> int:
            return 5 if self.serve(self.sock) == 0 else 6  # one worker's run, in process

    monkeypatch.setattr(workers, "Supervisor", Supervisor)
    config = object()
    assert serve_scale.run_server(config, _args(3), lambda loop: None) == 5
    [supervisor] = made
    assert supervisor.count == 3
    assert uvicorn_servers == [(config, [supervisor.sock], True)]
    supervisor.sock.close()


def test_several_workers_need_fork(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delattr(os, "fork", raising=False)
    with pytest.raises(ValueError) as raised:
        serve_scale.usage_store(argparse.Namespace(workers=2, rate_limit=None, usage_db=None))
    assert str(raised.value) == ("--workers needs POSIX (fork); on Windows run one server per port")
    # one worker needs no fork
    assert (
        serve_scale.usage_store(argparse.Namespace(workers=1, rate_limit=None, usage_db=None))
        is None
    )
