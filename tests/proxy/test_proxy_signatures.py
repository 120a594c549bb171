"""Calling conventions of the marked signatures in the proxy server, ``pi_sdk._serve``.

The rows and what callers rely on: ``_support.signatures``.
"""

from __future__ import annotations

from _support.signatures import convention_test

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


test_each_marked_signature_keeps_its_calling_convention = convention_test(CONVENTIONS)
