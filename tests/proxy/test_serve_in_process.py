"""The proxy app called in-process (ASGI, no socket): its refusal codes, the 408 close, the error
event of a stream function that raised, redaction, raw UTF-8 frames and the usage it records.

``pi_sdk/_serve/server.py``; the same app over a real socket is in ``test_proxy_server.py``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import pi_sdk
from pi_sdk._serve.server import proxy_app
from pi_sdk._serve.usage_store import UsageStore
from pi_sdk.agent import ProxyPolicy
from pi_sdk.events import DoneEvent, ErrorEvent, StartEvent

TOKEN = "serve-token-7d1a"
MODEL = pi_sdk.Model(id="m-1", api="x-api", provider="acme")
CONTEXT = {"messages": [{"role": "user", "content": "hi", "timestamp": 1}]}
BODY = json.dumps({"model": {"provider": "acme", "id": "m-1"}, "context": CONTEXT}).encode()
MESSAGES_BODY = json.dumps({"model": "acme/m-1", "context": CONTEXT}).encode()


class Reply:
    """What the app sent: status, headers (lower-case names), the body's bytes."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        start = messages[0]
        self.status: int = start["status"]
        self.headers = {k.decode().lower(): v.decode() for k, v in start.get("headers", [])}
        self.body = b"".join(m.get("body", b"") for m in messages[1:])

    def events(self) -> list[dict[str, Any]]:
        lines = self.body.decode().splitlines()
        return [json.loads(line[6:]) for line in lines if line.startswith("data: ")]


async def call(
    app: Any,
    path: str,
    body: bytes,
    *,
    token: str = TOKEN,
    stall: bool = False,
    method: str = "POST",
) -> Reply:
    """One request through ``app``; ``stall``: the body never ends (a slow client)."""
    sent: list[dict[str, Any]] = []
    given = False

    async def receive() -> dict[str, Any]:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": stall}
        await asyncio.Event().wait()  # no more body, and the client stays
        raise AssertionError

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "headers": [(b"authorization", f"Bearer {token}".encode())], "client": ("127.0.0.1", 5),
        "server": ("127.0.0.1", 80), "root_path": "",
    }  # fmt: skip
    await app(scope, receive, send)
    return Reply(sent)


def _app(stream_fn: Any = None, usage: UsageStore | None = None, **policy: Any) -> Any:
    settings: dict[str, Any] = {
        "token": TOKEN,
        "allow": ("acme/*",),
        "resolve_model": lambda provider, model_id: MODEL,
        **policy,
    }
    return proxy_app(ProxyPolicy(**settings), stream_fn=stream_fn, usage=usage)


def _ending(final: pi_sdk.AssistantMessage | None, *, raise_: Exception | None = None) -> Any:
    """A stream function that starts, then ends with ``final`` (done or error) or raises."""

    def stream_fn(model: pi_sdk.Model, context: Any, options: Any) -> Any:
        async def events() -> AsyncIterator[Any]:
            partial = pi_sdk.AssistantMessage(api=model.api, provider="acme", model=model.id)
            yield StartEvent(partial=partial)
            if raise_ is not None:
                raise raise_
            assert final is not None
            if final.stop_reason in ("error", "aborted"):
                yield ErrorEvent(reason=final.stop_reason, error=final)  # type: ignore[arg-type]
            else:
                yield DoneEvent(reason=final.stop_reason, message=final)  # type: ignore[arg-type]

        return events()

    return stream_fn


def _final(stop_reason: str = "stop", error: str | None = None) -> Any:
    return pi_sdk.AssistantMessage(
        api="x-api", provider="acme", model="m-1", content=[pi_sdk.TextContent(text="ok")],
        stop_reason=stop_reason, error_message=error,  # type: ignore[arg-type]
        usage=pi_sdk.Usage(input=7, output=2, total_tokens=9),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("case", "status", "code"),
    [
        ("bad token", 401, "unauthorized"),
        ("not allowed", 403, "model_not_allowed"),
        ("not json", 400, "invalid_request"),
        ("too large", 413, "request_too_large"),
        ("too slow", 408, "request_timeout"),
    ],
)
async def test_each_refusal_has_its_status_and_pi_messages_code(
    case: str, status: int, code: str, caplog: pytest.LogCaptureFixture
):
    caplog.set_level("INFO", logger="pi_sdk.serve")
    token = "wrong" if case == "bad token" else TOKEN
    for path in ("/messages", "/v1/messages", "/api/stream"):
        body = BODY if path == "/api/stream" else MESSAGES_BODY
        if case == "not allowed":
            model: Any = {"provider": "other", "id": "m"} if path == "/api/stream" else "other/m"
            body = json.dumps({"model": model, "context": CONTEXT}).encode()
        elif case == "not json":
            body = b"{"
        limit = len(body) - 1 if case == "too large" else 10_000
        app = _app(max_body_bytes=limit, body_timeout_ms=20)
        reply = await call(app, path, body, token=token, stall=case == "too slow")
        assert reply.status == status, path
        error = json.loads(reply.body)["error"]
        if path == "/api/stream":
            assert isinstance(error, str) and error  # the proxy's {"error": "<text>"}
        else:
            assert error["code"] == code and error["message"]
        # Only a body too slow to arrive has its connection closed.
        assert (reply.headers.get("connection") == "close") is (status == 408)
        assert (reply.headers.get("www-authenticate") == "Bearer") is (status == 401)
        said = caplog.records[-1]
        assert said.levelname == "WARNING"
        assert said.getMessage().startswith(f"127.0.0.1:5 {status} refused: ")


@pytest.mark.parametrize(
    ("raised", "shown"),
    [
        (RuntimeError("no route to the vendor"), "no route to the vendor"),
        (RuntimeError(), "RuntimeError"),  # no text: the exception's name
        (ValueError(f"bad token {TOKEN} here"), "bad token [REDACTED] here"),
    ],
)
async def test_a_stream_function_that_raised_ends_in_one_error_event(raised: Exception, shown: str):
    reply = await call(_app(_ending(None, raise_=raised)), "/api/stream", BODY)
    assert reply.status == 200
    assert reply.headers["content-type"] == "text/event-stream; charset=utf-8"
    events = reply.events()
    assert [e["type"] for e in events] == ["start", "error"]
    assert events[-1]["reason"] == "error" and events[-1]["errorMessage"] == shown
    assert events[-1]["usage"]["totalTokens"] == 0
    assert TOKEN not in reply.body.decode()


async def test_an_error_event_s_text_is_redacted_and_frames_are_raw_utf8():
    final = _final("error", f"vendor said café and {TOKEN}")
    reply = await call(_app(_ending(final)), "/api/stream", BODY)
    assert reply.events()[-1]["errorMessage"] == "vendor said café and [REDACTED]"
    assert "café".encode() in reply.body  # not \\u00e9: frames are UTF-8 as they are
    named = _final().model_copy(update={"response_model": "modèle-1"})
    done = await call(_app(_ending(named)), "/messages", MESSAGES_BODY)
    assert done.events()[-1]["responseModel"] == "modèle-1"
    assert "modèle".encode() in done.body


@pytest.mark.parametrize(
    ("final", "raised", "errors"),
    [
        (_final("stop"), None, 0),
        (_final("length"), None, 0),
        (_final("error", "429 busy"), None, 1),
        (None, RuntimeError("boom"), 1),
    ],
)
async def test_each_call_is_counted_with_its_usage_and_failure(
    tmp_path: Path, final: Any, raised: Exception | None, errors: int
):
    store = UsageStore(tmp_path / "u.sqlite")
    reply = await call(_app(_ending(final, raise_=raised), usage=store), "/api/stream", BODY)
    assert reply.status == 200
    counted = store.usage_now("default")
    assert (counted.requests, counted.errors) == (1, errors)
    assert (counted.input, counted.output) == ((7, 2) if final is not None else (0, 0))


async def test_the_usage_route_answers_a_key_its_counters_and_refuses_without_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    store = UsageStore(tmp_path / "u.sqlite")
    await store.record("default", pi_sdk.Usage(input=3, output=4), error=False)
    app = _app(usage=store)
    caplog.set_level("INFO", logger="pi_sdk.serve")
    mine = await call(app, "/api/usage", b"", method="GET")
    assert mine.status == 200
    assert json.loads(mine.body) == {
        "key": "default", "requests": 1, "refused": 0, "errors": 0, "input": 3, "output": 4,
        "cacheRead": 0, "cacheWrite": 0, "totalTokens": 7, "cost": 0.0,
    }  # fmt: skip
    assert caplog.records == []
    nobody = await call(app, "/api/usage", b"", method="GET", token="wrong")
    assert nobody.status == 401 and nobody.headers["www-authenticate"] == "Bearer"
    assert json.loads(nobody.body) == {"error": "unauthorized: a valid bearer token is required"}
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("WARNING", "127.0.0.1:5 401 refused: unauthorized: a valid bearer token is required")
    ]
    without = await call(_app(), "/api/usage", b"", method="GET")
    assert without.status == 404  # no store: no usage route
