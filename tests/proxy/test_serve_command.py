"""``pi-sdk serve``: the proxy as a command, run as a user runs it (a subprocess under uvicorn)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _support.loopback import LoopbackServer, model_at, text_reply
from _support.proxy import API, TOKEN, VENDOR_KEY, prompt
from _support.serving import serve_command

import pi_sdk
from pi_sdk._cli import main
from pi_sdk.agent import stream_proxy


def _serving(args: list[str], **env: str) -> Any:
    """``pi-sdk serve ARGS`` in a subprocess: yields its URL and, once it ended, its stderr."""
    keys = {"PI_SDK_PROXY_TOKEN": TOKEN, "ANTHROPIC_API_KEY": VENDOR_KEY, **env}
    return serve_command([*args, "--log-level", "warning"], keys)


async def test_pi_sdk_serve_proxies_a_registered_model_and_refuses_a_bad_token(tmp_path: Path):
    async with LoopbackServer([text_reply(API, "served by the command")]) as vendor:
        model = model_at(API, vendor.url).model_copy(update={"id": "claude-loopback"})
        models = tmp_path / "models.json"
        models.write_text(json.dumps({"models": [model.model_dump(mode="json")]}), "utf-8")
        args = ["--allow", "anthropic/claude-loopback", "--models", str(models)]
        async with _serving(args) as (url, stderr):
            options = pi_sdk.StreamOptions(max_retries=0)
            refused = await stream_proxy(
                model, prompt(), options, proxy_url=url, auth_token="wrong"
            ).result()
            served = await stream_proxy(model, prompt(), proxy_url=url, auth_token=TOKEN).result()
    assert refused.error_message == "Proxy error: unauthorized: a valid bearer token is required"
    assert served.text == "served by the command"
    assert TOKEN not in stderr[0] and VENDOR_KEY not in stderr[0]


async def test_serve_sends_a_catalog_model_to_the_provider_base_url_variable():
    async with LoopbackServer([text_reply(API, "via ANTHROPIC_BASE_URL")]) as vendor:
        model = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")  # the catalog's baseUrl
        variable = {"ANTHROPIC_BASE_URL": model_at(API, vendor.url).base_url}
        async with _serving(["--allow", "anthropic/claude-sonnet-4-5"], **variable) as (url, _):
            served = await stream_proxy(model, prompt(), proxy_url=url, auth_token=TOKEN).result()
    assert served.error_message is None
    assert served.text == "via ANTHROPIC_BASE_URL"


def test_serve_without_a_token_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.delenv("PI_SDK_PROXY_TOKEN", raising=False)
    assert main(["serve", "--allow", "anthropic/*"]) == 2
    assert "no bearer token: $PI_SDK_PROXY_TOKEN is empty or unset" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: None, "cannot read the token file: No such file or directory"),
        (lambda p: p.mkdir(), "cannot read the token file: Is a directory"),
        (lambda p: p.write_text(" \n\t\n", "utf-8"), "no bearer token: {path} is empty or unset"),
    ],
    ids=["missing", "a-directory", "blank"],
)
def test_a_token_file_that_gives_no_token_is_a_one_line_usage_error(
    make: Any, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    path = tmp_path / "token"
    make(path)
    assert main(["serve", "--token-file", str(path), "--allow", "anthropic/*"]) == 2
    err = capsys.readouterr().err
    assert err == f"pi-sdk serve: error: {said.format(path=path)}\n"


def test_a_token_variable_that_is_blank_is_a_usage_error_naming_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setenv("MY_PROXY_TOKEN", "  ")
    assert main(["serve", "--token-env", "MY_PROXY_TOKEN", "--allow", "anthropic/*"]) == 2
    assert capsys.readouterr().err == (
        "pi-sdk serve: error: no bearer token: $MY_PROXY_TOKEN is empty or unset\n"
    )


def test_serve_reads_the_token_from_a_file_and_checks_the_patterns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    token = tmp_path / "token"
    token.write_text("from-a-file\n", "utf-8")
    assert main(["serve", "--token-file", str(token), "--allow", "anthropic"]) == 2
    err = capsys.readouterr().err
    assert "model pattern 'anthropic' needs the form provider/id" in err
    assert "from-a-file" not in err


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (None, "cannot read --models {path}: No such file or directory"),
        ("nope", "--models {path} is not JSON: Expecting value"),
        ('{"models": [{"id": 1}]}', "--models {path}: model 0: id: Input should be a valid string"),
    ],
)
def test_a_bad_models_file_is_one_line_naming_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    content: str | None,
    error: str,
):
    monkeypatch.setenv("PI_SDK_PROXY_TOKEN", TOKEN)
    models = tmp_path / "models.json"
    if content is not None:
        models.write_text(content, "utf-8")
    assert main(["serve", "--allow", "anthropic/*", "--models", str(models)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pi-sdk serve: error: {error.format(path=models)}")
    assert err.count("\n") == 1


def test_serve_needs_an_allow_list(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exit_info:
        main(["serve"])
    assert exit_info.value.code == 2
    assert "--allow" in capsys.readouterr().err


def test_an_allow_pattern_that_matches_no_model_stops_the_server(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setenv("PI_SDK_PROXY_TOKEN", TOKEN)
    args = ["serve", "--allow", "anthropic/*", "--allow", "gogle/*", "--host", "256.0.0.1"]
    assert main(args) == 2
    assert capsys.readouterr().err.splitlines() == [
        "pi-sdk: error: --allow 'gogle/*' matches no registered model; did you mean google/...?"
        " (`pi-sdk models` lists them; --models FILE adds your own)"
    ]


async def test_serve_says_what_it_serves_before_it_serves():
    args = ["--allow", "anthropic/claude-sonnet-4-5", "--allow", "openai/gpt-5"]
    args += ["--max-connections", "64"]
    async with _serving(args, OPENAI_API_KEY="") as (url, stderr):
        pass
    assert stderr[0].splitlines()[:7] == [
        f"pi-sdk serve: listening on {url}",
        "  protocols: pi's proxy (POST /api/stream) and pi-messages (POST /messages, model"
        " '<provider>/<id>')",
        "  auth: on, every call needs the bearer token from $PI_SDK_PROXY_TOKEN",
        "  models: 2 models: anthropic/claude-sonnet-4-5, openai/gpt-5",
        "  keys: anthropic: found (its environment variable or a plugin)",
        "  warning: no API key for openai: its calls will fail until its key variable is set"
        " (the provider's page names it)",
        "  limits: 64 connections; request head within 10 s, body within 30 s and 8,388,608"
        " bytes; idle connections closed after 5 s",
    ]
    assert TOKEN not in stderr[0] and VENDOR_KEY not in stderr[0]
