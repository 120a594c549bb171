"""No secret of a call in what the vendor SDKs and the HTTP library log, on every API (15.3).

Every logger at DEBUG, records captured at the root; calls pass their key in the options, in the
environment (the provider's own variable) and in a custom credential header, through a success,
an HTTP error whose body echoes the key, a connection reset and an in-stream error that echoes
it. The keys look like no known credential format, so only pi-sdk's knowledge of the call's
secrets can redact them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _support.loopback import APIS, LoopbackServer, Step, json_step, model_at, sse_step, text_reply
from _support.wire import wire_for
from pi_sdk_pytest.conformance.log_capture import LogCapture, every_log_record

import pi_sdk

OPTION_KEY = "zq9opt4f1e2d3c4b5a69788"
ENV_KEY = "zq9env7a6b5c4d3e2f10293"
HEADER_VALUE = "zq9hdr0c1d2e3f4a5b6c7d8"
SECRETS = (OPTION_KEY, ENV_KEY, HEADER_VALUE)

ENV_NAMES = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "azure-openai-responses": "AZURE_OPENAI_API_KEY",
    "google": "GEMINI_API_KEY",
    "google-vertex": "GOOGLE_CLOUD_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "amazon-bedrock": "AWS_BEARER_TOKEN_BEDROCK",
}


@pytest.fixture
def captured() -> Iterator[LogCapture]:
    """Every logger at DEBUG (those that exist now and those created later), captured."""
    with every_log_record() as handler:
        yield handler


def _scenarios(api: str) -> dict[str, Step]:
    wire = wire_for(api)
    body, _code = wire.http_error(400, f"invalid key {OPTION_KEY} / {ENV_KEY} / {HEADER_VALUE}")
    event, _text = wire.stream_error(f"leaked {OPTION_KEY} {ENV_KEY} {HEADER_VALUE}")
    return {
        "success": text_reply(api, "Hello"),
        "http-error": json_step(400, body),
        "reset": Step(rst_before_headers=True),
        "in-stream-error": sse_step([*wire.opening("Hel"), event]),
    }


@pytest.mark.parametrize("api", APIS)
async def test_no_secret_in_debug_logs(
    api: str, captured: LogCapture, monkeypatch: pytest.MonkeyPatch
) -> None:
    for scenario, step in _scenarios(api).items():
        for key_from in ("options", "environment"):
            async with LoopbackServer([step]) as server:
                model = model_at(api, server.url)
                if key_from == "environment":
                    monkeypatch.setenv(ENV_NAMES[model.provider], ENV_KEY)
                options = pi_sdk.StreamOptions(
                    api_key=OPTION_KEY if key_from == "options" else None,
                    headers={"x-extra-auth": HEADER_VALUE},
                    max_retries=0,
                )
                context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
                message = await pi_sdk.complete(model, context, options)
                monkeypatch.delenv(ENV_NAMES[model.provider], raising=False)
            expected = "stop" if scenario == "success" else "error"
            assert message.stop_reason == expected, (scenario, message.error_message)
            assert server.requests or scenario == "reset"
    assert captured.lines, "nothing was logged: the test would show nothing"
    leaks = [line for line in captured.lines if any(secret in line for secret in SECRETS)]
    assert leaks == []


async def test_the_vendor_sdk_logs_the_header_it_was_given(captured: LogCapture) -> None:
    """The scenario is real: the anthropic SDK logs its request options (headers included),
    and they reach the log redacted."""
    api = "anthropic-messages"
    async with LoopbackServer([text_reply(api)]) as server:
        options = pi_sdk.StreamOptions(
            api_key=OPTION_KEY, headers={"x-extra-auth": HEADER_VALUE}, max_retries=0
        )
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
        await pi_sdk.complete(model_at(api, server.url), context, options)
    logged = [line for line in captured.lines if "x-extra-auth" in line]
    assert logged, "the anthropic SDK did not log its request options"
    assert all("[REDACTED]" in line and HEADER_VALUE not in line for line in logged)
