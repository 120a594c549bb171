"""Every provider imports its vendor SDK off the event loop on its first call.

Importing a vendor SDK takes 0.4-1.5 s; done on the event loop, the first call of a provider
would freeze every other task for that long (QA trial t07: 1.5 s on Anthropic). Each check runs
in a fresh interpreter: an import finder records the thread in which the SDK module is first
loaded, and the call goes to a closed local port (it fails fast, after the import).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap

import pytest

CASES = [
    ("anthropic-messages", "anthropic", "claude-sonnet-4-5", "", "anthropic"),
    ("openai-completions", "openai", "gpt-4o-mini", "/v1", "openai"),
    ("openai-responses", "openai", "gpt-5", "/v1", "openai"),
    ("google-generative-ai", "google", "gemini-2.5-flash", "/v1beta", "google.genai"),
    # Bedrock with an API key sends through httpx2 and never imports botocore.
    ("bedrock-converse-stream", "amazon-bedrock", "amazon.nova-micro-v1:0", "", "httpx2"),
    ("mistral-conversations", "mistral", "mistral-small-latest", "", "mistralai.client"),
    ("azure-openai-responses", "azure-openai-responses", "gpt-5.4", "/openai/v1", "openai"),
]
MAIN_RUN_API = "openai-completions"
"""The one API checked in the main run; the others (a fresh interpreter each, 2-9 s under
load) run with the slow tests (``pytest -m slow``)."""
PARAMS = [pytest.param(*c, marks=() if c[0] == MAIN_RUN_API else pytest.mark.slow) for c in CASES]

_SCRIPT = """
import asyncio, sys, threading

loaded_in = {{}}

class Recorder:
    def find_spec(self, name, path=None, target=None):
        if name == {vendor!r} and name not in loaded_in:
            loaded_in[name] = threading.current_thread() is threading.main_thread()
        return None

sys.meta_path.insert(0, Recorder())
import pi_sdk

async def main():
    model = pi_sdk.get_model({provider!r}, {model_id!r}).model_copy(
        update={{"api": {api!r}, "base_url": "http://127.0.0.1:{port}{suffix}"}}
    )
    context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
    options = pi_sdk.StreamOptions(api_key="test-key", max_retries=0)
    message = await pi_sdk.complete(model, context, options)
    assert message.stop_reason == "error", message

asyncio.run(main())
print("main-thread" if loaded_in.get({vendor!r}) else "worker-thread")
"""


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(("api", "provider", "model_id", "suffix", "vendor"), PARAMS)
def test_first_call_imports_the_sdk_in_a_worker_thread(
    api: str, provider: str, model_id: str, suffix: str, vendor: str
) -> None:
    script = _SCRIPT.format(
        api=api,
        provider=provider,
        model_id=model_id,
        suffix=suffix,
        vendor=vendor,
        port=_closed_port(),
    )
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "worker-thread"
