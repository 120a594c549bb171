"""The per-key rate limit and usage counters (``pi_sdk._serve.usage_store``), the named keys of
``ProxyPolicy``, and the proxy's 429 and ``GET /api/usage``."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from pathlib import Path
from typing import Any

import httpx2
import pytest
from _support.loopback import LoopbackServer, model_at, text_reply
from _support.proxy import API, TOKEN, VENDOR_KEY, prompt
from _support.serving import uvicorn_serving

from pi_sdk._cli import main
from pi_sdk._cli.serve_scale import read_keys
from pi_sdk._serve.usage_store import RateLimit, UsageStore, parse_rate_limit
from pi_sdk.agent import ProxyPolicy, proxy_app, stream_proxy


def test_the_rate_limit_is_a_sliding_window(tmp_path: Path) -> None:
    store = UsageStore(tmp_path / "u.sqlite", rate_limit=RateLimit(requests=3, window_s=10))
    at = [store._admit("a", t) for t in (100.0, 101.0, 102.0, 103.0, 109.5)]  # noqa: SLF001
    assert at[:3] == [None, None, None]
    assert at[3] == pytest.approx(7.0)  # the request of t=100 leaves the window at t=110
    assert at[4] == pytest.approx(0.5)
    assert store._admit("a", 110.5) is None  # noqa: SLF001 - t=100 left; the other key is apart
    assert store._admit("b", 103.0) is None  # noqa: SLF001
    assert store.usage_now("a").refused == 2 and store.usage_now("b").refused == 0


def _hammer(path: str, count: int, results: multiprocessing.Queue[int]) -> None:
    store = UsageStore(path, rate_limit=RateLimit(requests=50, window_s=3600))
    results.put(sum(1 for _ in range(count) if asyncio.run(store.admit("k")) is None))


@pytest.mark.slow  # four spawned interpreters
def test_processes_together_admit_exactly_the_limit(tmp_path: Path) -> None:
    path = str(tmp_path / "u.sqlite")
    UsageStore(path).create()
    context = multiprocessing.get_context("spawn")
    results: multiprocessing.Queue[int] = context.Queue()
    processes = [context.Process(target=_hammer, args=(path, 30, results)) for _ in range(4)]
    for process in processes:
        process.start()
    admitted = sum(results.get(timeout=60) for _ in processes)
    for process in processes:
        process.join(30)
    assert admitted == 50  # 120 tried over 4 processes
    assert UsageStore(path).usage_now("k").refused == 70


@pytest.mark.parametrize(
    ("text", "requests", "window"), [("600/min", 600, 60), ("10/s", 10, 1), (" 5 / h ", 5, 3600)]
)
def test_rate_limits_parse(text: str, requests: int, window: float) -> None:
    assert parse_rate_limit(text) == RateLimit(requests=requests, window_s=window)


@pytest.mark.parametrize("text", ["600", "600/day", "x/min", "0/min"])
def test_a_bad_rate_limit_says_the_form(text: str) -> None:
    with pytest.raises(ValueError, match="rate limit"):
        parse_rate_limit(text)


def test_named_keys_are_checked_and_told_apart() -> None:
    policy = ProxyPolicy(token=TOKEN, allow=("anthropic/*",), keys={"app-a": "key-a-123"})
    assert policy.key_name(f"Bearer {TOKEN}") == "default"
    assert policy.key_name("Bearer key-a-123") == "app-a"
    assert policy.key_name("Bearer key-a-12") is None and policy.key_name(None) is None
    assert "key-a-123" not in repr(policy)
    for keys, error in [
        ({"a b": "x"}, "key name 'a b'"),
        ({"default": "x"}, "key name 'default'"),
        ({"a": ""}, "key 'a' has an empty token"),
        ({"a": TOKEN}, "key 'a' has the token of another key"),
    ]:
        with pytest.raises(ValueError, match=error):
            ProxyPolicy(token=TOKEN, allow=("anthropic/*",), keys=keys)


def test_a_bad_keys_file_never_quotes_a_token(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("PI_SDK_PROXY_TOKEN", TOKEN)
    bad = tmp_path / "keys.json"
    bad.write_text('{"a": "secret-token-1",', "utf-8")
    with pytest.raises(ValueError, match="is not JSON") as raised:
        read_keys(bad)
    assert "secret-token-1" not in str(raised.value)
    bad.write_text('["secret-token-1"]', "utf-8")
    assert main(["serve", "--allow", "anthropic/*", "--keys-file", str(bad)]) == 2
    err = capsys.readouterr().err
    assert 'expected a JSON object {"name": "token", ...}' in err and "secret-token-1" not in err


async def test_the_proxy_refuses_over_the_limit_with_429_and_counts_usage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", VENDOR_KEY)
    store = UsageStore(tmp_path / "u.sqlite", rate_limit=RateLimit(requests=2, window_s=3600))
    async with LoopbackServer([text_reply(API, "fine")]) as vendor:
        model = model_at(API, vendor.url)
        policy = ProxyPolicy(
            token=TOKEN, allow=("anthropic/*",), keys={"app": "key-app-1"},
            resolve_model=lambda provider, model_id: model,
        )  # fmt: skip
        async with uvicorn_serving(proxy_app(policy, usage=store)) as url:
            answers = [
                await stream_proxy(model, prompt(), proxy_url=url, auth_token="key-app-1").result()
                for _ in range(3)
            ]
            other = await stream_proxy(model, prompt(), proxy_url=url, auth_token=TOKEN).result()
            async with httpx2.AsyncClient() as client:
                raw = await client.post(
                    f"{url}/api/stream", headers={"authorization": "Bearer key-app-1"}, json={}
                )
                mine = await client.get(
                    f"{url}/api/usage", headers={"authorization": "Bearer key-app-1"}
                )
                nobody = await client.get(f"{url}/api/usage")
    assert [a.text for a in answers[:2]] == ["fine", "fine"] and other.text == "fine"
    assert (answers[2].error_message or "").startswith("Proxy error: rate limit: key 'app' may")
    assert raw.status_code == 429 and 3500 <= int(raw.headers["retry-after"]) <= 3600
    assert raw.json()["error"].endswith(f"retry in {raw.headers['retry-after']} s")
    usage = mine.json()
    assert usage["key"] == "app" and usage["requests"] == 2 and usage["refused"] == 2
    assert usage["input"] == 2 * 5 and usage["output"] == 2 * 3 and usage["errors"] == 0
    assert nobody.status_code == 401
    assert json.loads(json.dumps(usage))["totalTokens"] == 16


@pytest.mark.parametrize(
    ("text", "window"),
    [("1/s", 1), ("1/sec", 1), ("1/m", 60), ("1/min", 60), ("1/h", 3600), ("1/hour", 3600)],
)
def test_every_period_name_is_its_length_in_seconds(text: str, window: float) -> None:
    assert parse_rate_limit(text).window_s == window


@pytest.mark.parametrize(
    ("requests", "window_s", "valid"),
    [(1, 60.0, True), (1, 0.001, True), (0, 60.0, False), (-1, 60.0, False), (1, 0.0, False),
     (1, -1.0, False)],
)  # fmt: skip
def test_a_rate_limit_needs_one_request_in_a_positive_window(
    requests: int, window_s: float, valid: bool
) -> None:
    if valid:
        assert RateLimit(requests=requests, window_s=window_s).requests == requests
        return
    with pytest.raises(ValueError, match=f"got {requests} per {window_s} s"):
        RateLimit(requests=requests, window_s=window_s)


class _Refusing:
    """A usage store whose key waits ``wait`` seconds (``None``: admitted)."""

    rate_limit = RateLimit(requests=5, window_s=60)

    def __init__(self, wait: float | None) -> None:
        self.wait = wait

    async def admit(self, key: str) -> float | None:
        return self.wait


@pytest.mark.parametrize(
    ("wait", "retry_after"), [(None, None), (0.0, "1"), (0.2, "1"), (1.0, "1"), (1.01, "2"),
                              (59.5, "60")],
)  # fmt: skip
async def test_retry_after_is_the_wait_in_whole_seconds_rounded_up_at_least_one(
    wait: float | None, retry_after: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    from pi_sdk._serve.usage_routes import rate_limited

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = {"type": "http", "method": "POST", "path": "/api/stream", "headers": [],
             "client": ("10.1.2.3", 4567)}  # fmt: skip
    caplog.set_level("INFO", logger="pi_sdk.serve")
    refused = await rate_limited(_Refusing(wait), "app", scope, receive, send)  # type: ignore[arg-type]
    assert refused is (retry_after is not None)
    if retry_after is None:
        assert sent == [] and caplog.records == []
        return
    assert sent[0]["status"] == 429
    assert (b"retry-after", retry_after.encode()) in sent[0]["headers"]
    reason = f"rate limit: key 'app' may make 5 requests per 60 s; retry in {retry_after} s"
    assert json.loads(sent[1]["body"]) == {"error": reason}
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("WARNING", f"10.1.2.3:4567 429 refused: {reason}")
    ]
