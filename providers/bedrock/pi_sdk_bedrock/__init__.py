"""pi-sdk provider plugin for Amazon Bedrock: the ``bedrock-converse-stream`` API and its catalog.

Published through the ``pi_sdk`` entry-point group as :data:`PROVIDERS`: the provider
``amazon-bedrock``, with the catalog in ``models.json`` (see ``docs/models.md``),
:data:`BEDROCK_CONVERSE_STREAM` (with a request recognizer for ``pi-sdk replay``) and its key
``AWS_BEARER_TOKEN_BEDROCK`` (a Bedrock API key, sent as a bearer token); without one, calls
use the AWS credential chain. :func:`provider` configures it for a :class:`pi_sdk.Models`
collection.

Importing this package imports neither botocore nor httpx2 nor the wire code:
:mod:`pi_sdk_bedrock.converse` is imported on the first call (or replayed request), and botocore
only when a request is signed with SigV4.
"""

from __future__ import annotations

from pi_sdk import provider as kit

__all__ = ["BEDROCK_CONVERSE_STREAM", "PROVIDERS", "provider"]

BEDROCK_CONVERSE_STREAM = kit.lazy_api(
    "bedrock-converse-stream", "pi_sdk_bedrock.converse", call="call_bedrock_converse"
)
"""The ``bedrock-converse-stream`` implementation (its module imported on the first call)."""

PROVIDERS = kit.package_providers(
    __name__,
    apis=[BEDROCK_CONVERSE_STREAM],
    env={"amazon-bedrock": ("AWS_BEARER_TOKEN_BEDROCK",)},
    names={"amazon-bedrock": "Amazon Bedrock"},
)
"""The ``amazon-bedrock`` provider; the entry point names this tuple."""


provider = kit.provider_factory(PROVIDERS, "amazon-bedrock")
"""``provider(provider_id, *, api_key, base_url, headers)``: one of :data:`PROVIDERS`, configured
for a :class:`pi_sdk.Models` collection of your own."""
