"""Secrets by the caller's own names, in every output (issue 34: the class, not the mutants).

The earlier redaction tests used names the default rules catch anyway (``api_key``,
``Authorization``), so a redactor that forgot the caller's names passed them. Here every secret
is named so that only the configured rule can catch it, and every output is read: the
:class:`Redactor`'s result (keys, patterns, values, each rule on and off), a call's error, its
retry notices and terminal event, ``repr()`` of the options and the model, and the vendor-SDK
log records of a running call.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest
from _support.loopback import LoopbackServer, json_step, model_at
from _support.wire import wire_for

import pi_sdk
from pi_sdk import Context, StreamOptions, UserMessage
from pi_sdk._stream.log_redaction import watch_call
from pi_sdk._wire.redact import (
    REDACTED,
    Redactor,
    is_credential_name,
    redact_text,
    secret_header_values,
)
from pi_sdk.events import event_to_dict
from pi_sdk.options import RetryNotice

# Values in no credential format: only a rule that knows them (by name or value) hides them.
TICKET = "tkt-5f4e3d2c1b0a9988"


def test_caller_key_names_are_redacted_in_any_case_and_spelling() -> None:
    value = {
        "X-Gateway-Ticket": TICKET,
        "nested": [{"x_gateway_ticket": TICKET}, ("x-GATEWAY-ticket", TICKET)],
        "gateway": {"x-gateway-ticket ": TICKET, "route": "eu"},
        "empty": {"x-gateway-ticket": ""},
        "none": {"x-gateway-ticket": None},
    }
    before = json.dumps(value)
    redactor = Redactor(keys={"X-Gateway-Ticket"}, environment_values=False)
    assert redactor.is_secret_key("x_gateway_ticket")
    assert redactor.redact(value) == {
        "X-Gateway-Ticket": REDACTED,
        "nested": [{"x_gateway_ticket": REDACTED}, ["x-GATEWAY-ticket", TICKET]],
        "gateway": {"x-gateway-ticket ": REDACTED, "route": "eu"},
        "empty": {"x-gateway-ticket": ""},  # nothing to hide: left as it was
        "none": {"x-gateway-ticket": None},
    }
    assert json.dumps(value) == before  # the input is never changed
    # Without the caller's name, no default rule knows the key.
    assert Redactor(environment_values=False).redact({"x-gateway-ticket": TICKET}) == {
        "x-gateway-ticket": TICKET
    }


def test_caller_keys_stay_when_the_default_keys_are_turned_off() -> None:
    redactor = Redactor(keys={"ticket"}, default_keys=False, environment_values=False)
    assert redactor.redact({"ticket": TICKET, "api_key": "plain", "my_token": "plain"}) == {
        "ticket": REDACTED,
        "api_key": "plain",
        "my_token": "plain",
    }
    defaults = Redactor(environment_values=False)
    assert defaults.redact({"api_key": "plain", "my_token": "plain", "tokenizer": "bpe"}) == {
        "api_key": REDACTED,
        "my_token": REDACTED,  # the suffix rule
        "tokenizer": "bpe",  # a suffix, not a substring
    }


def test_caller_patterns_and_values_with_and_without_the_defaults() -> None:
    text = f"acct-123456 sk-ant-{'a' * 24} {TICKET}"
    own = Redactor(
        patterns=[r"\bacct-\d{6}\b"],
        values=[TICKET, "short"],
        default_patterns=False,
        environment_values=False,
    )
    assert own.redact_text(text) == f"{REDACTED} sk-ant-{'a' * 24} {REDACTED}"
    both = Redactor(patterns=[r"\bacct-\d{6}\b"], values=[TICKET], environment_values=False)
    assert both.redact_text(text) == f"{REDACTED} {REDACTED} {REDACTED}"
    grouped = Redactor(patterns=[r"ticket=(?P<s>\w+)"], environment_values=False)
    assert grouped.redact_text("ticket=abc&x=1") == f"ticket={REDACTED}&x=1"


def test_longer_values_are_replaced_first_and_environment_values_on_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    outer, inner = "outer-secret-" + TICKET, TICKET
    assert Redactor(values=[inner, outer], environment_values=False).redact_text(outer) == REDACTED
    monkeypatch.setenv("GATEWAY_TICKET_TOKEN", "env-ticket-0123456789")
    assert Redactor().redact_text("env-ticket-0123456789") == REDACTED
    plain = Redactor(environment_values=False).redact_text("env-ticket-0123456789")
    assert plain == "env-ticket-0123456789"


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("x-tenant-credential", True),
        ("X-Session-Id", True),
        ("x-amz-signature", True),
        ("Passwd", True),
        ("set-cookie", True),
        ("x-request-id", False),
        ("content-type", False),
    ],
)
def test_credential_header_names(name: str, secret: bool) -> None:
    assert is_credential_name(name) is secret
    headers = {name: TICKET, "accept": "text/plain-long-enough"}
    assert secret_header_values(headers) == ([TICKET] if secret else [])


# --- a call's outputs ---------------------------------------------------------------------------

API = "anthropic-messages"
KEY = "kq7-option-key-0a1b2c3d4e"
OPTION_HEADER = "oh7-option-header-9f8e7d6c"
MODEL_HEADER = "mh7-model-header-5a4b3c2d"
SECRETS = (KEY, OPTION_HEADER, MODEL_HEADER)


@pytest.fixture
def records() -> Iterator[list[logging.LogRecord]]:
    """Every record of the ``pi_sdk`` and ``httpx`` loggers at DEBUG."""
    seen: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    handler = Keep(logging.DEBUG)
    loggers = [logging.getLogger(name) for name in ("pi_sdk", "httpx")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    yield seen
    for logger, level in zip(loggers, levels, strict=True):
        logger.removeHandler(handler)
        logger.setLevel(level)


async def test_a_failing_call_shows_no_secret_of_its_own_anywhere(
    records: list[logging.LogRecord],
) -> None:
    echo = f"denied: key {KEY}, header {OPTION_HEADER}, model header {MODEL_HEADER}"
    body, _ = wire_for(API).http_error(503, echo)
    notices: list[RetryNotice] = []
    async with LoopbackServer([json_step(503, body)]) as server:
        model = model_at(API, server.url).model_copy(
            update={"headers": {"x-tenant-credential": MODEL_HEADER}}
        )
        options = StreamOptions(
            api_key=KEY,
            headers={"x-extra-auth": OPTION_HEADER},
            max_retries=1,
            max_retry_delay_ms=1,
            on_retry=notices.append,
        )
        stream = pi_sdk.stream(model, Context(messages=[UserMessage(content="hi")]), options)
        events = [event async for event in stream]
        message = await stream.result()
    assert message.stop_reason == "error"
    assert message.error_message is not None and "denied" in message.error_message
    assert notices and "denied" in notices[0].error_message
    outputs = {
        "error": message.error_message,
        "notices": " ".join(n.error_message for n in notices),
        "events": json.dumps([event_to_dict(e) for e in events]),
        "message repr": repr(message),
        "options repr": repr(options),
        "model repr": repr(model) + str(model),
        "logs": " ".join(r.getMessage() for r in records),
    }
    leaks = {where: s for where, text in outputs.items() for s in SECRETS if s in text}
    assert leaks == {}
    assert records, "nothing was logged: the log check would show nothing"
    assert "x-tenant-credential" in repr(model)  # the name is shown, the value is not


def test_vendor_log_records_are_redacted_while_the_call_runs() -> None:
    logger = logging.getLogger("httpx.unit")
    other = logging.getLogger("someone_else")
    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage() + (record.exc_text or ""))

    handler = Keep(logging.DEBUG)
    for each in (logger, other):
        each.addHandler(handler)
        each.setLevel(logging.DEBUG)
    try:
        stop = watch_call(lambda: [TICKET, None])
        logger.debug("sent %s", TICKET)
        try:
            raise ValueError(f"refused {TICKET}")
        except ValueError:
            logger.exception("failed")
        other.debug("not ours %s", TICKET)
        stop()
        logger.debug("after %s", TICKET)
    finally:
        for each in (logger, other):
            each.removeHandler(handler)
            each.setLevel(logging.NOTSET)
    assert seen[0] == f"sent {REDACTED}"
    assert TICKET not in seen[1] and "refused" in seen[1]
    assert seen[2] == f"not ours {TICKET}"  # not a vendor logger: left alone
    assert seen[3] == f"after {TICKET}"  # the call ended: its secrets are no longer known


def test_redact_text_takes_the_call_secrets_and_ignores_empty_ones() -> None:
    assert redact_text(f"key {TICKET}", [None, "", TICKET]) == f"key {REDACTED}"
