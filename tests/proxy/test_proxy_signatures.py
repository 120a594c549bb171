"""Calling conventions of the marked signatures in the proxy server, ``pi_sdk._serve``.

Each row is a callable whose ``def`` has a bare ``*`` (keyword-only options after it) or ``/``
(positional-only parameters before it), and its parameters as the ``def`` lists them
(``_support.signatures.convention``). Callers rely on both sides of the marker: an option after
``*`` is refused by position (so a later parameter can be added before it), a parameter before
it is accepted by name (``Tracing(tracer_provider=...)``).
"""

from __future__ import annotations

import pytest
from _support.signatures import convention, resolve

CONVENTIONS = [
    (
        "pi_sdk._serve.client:stream_proxy",
        "model, context, options, *, proxy_url, auth_token, client",
    ),
    ("pi_sdk._serve.decoder:EventDecoder.__init__", "self, builder, *, source"),
    ("pi_sdk._serve.decoder:EventDecoder.finish", "self, *, saw_done"),
    (
        "pi_sdk._serve.event_post:event_post_call",
        "url, build_payload, *, headers, refusal, source, client, base_url",
    ),
    (
        "pi_sdk._serve.pi_messages_client:pi_messages_provider",
        "id, *, base_url, auth, models, name",
    ),
    ("pi_sdk._serve.server:proxy_app", "policy, *, stream_fn, usage"),
    ("pi_sdk._serve.usage_store:UsageStore.__init__", "self, path, *, rate_limit, busy_timeout_s"),
    ("pi_sdk._serve.usage_store:UsageStore.record", "self, key, usage, *, error"),
    ("pi_sdk._serve.wire:_encode", "event, *, full"),
]


@pytest.mark.parametrize(("target", "expected"), CONVENTIONS, ids=[t for t, _ in CONVENTIONS])
def test_each_marked_signature_keeps_its_calling_convention(target: str, expected: str) -> None:
    assert convention(resolve(target)) == expected
