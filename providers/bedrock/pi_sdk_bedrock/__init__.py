"""pi-sdk provider plugin for Amazon Bedrock: the ``bedrock-converse-stream`` API and its catalog.

Loaded through the ``pi_sdk`` entry-point group. Importing this package imports neither
botocore nor httpx2 nor the wire code: :mod:`pi_sdk_bedrock.converse` is imported on the first
call (or replayed request), and botocore only when a request is signed with SigV4.

Hooks:

* ``register_api_providers``: ``ApiProvider(api="bedrock-converse-stream", ...)`` with a
  request recognizer for ``pi-sdk replay``;
* ``register_models``: the catalog in ``models.json`` (provider ``amazon-bedrock``, see
  ``docs/models.md``);
* ``get_api_key``: for provider ``amazon-bedrock``, ``AWS_BEARER_TOKEN_BEDROCK`` (a Bedrock
  API key, sent as a bearer token); without one, calls use the AWS credential chain.
"""

from __future__ import annotations

from pi_sdk import provider as kit

__all__ = ["get_api_key", "register_api_providers", "register_models"]

register_api_providers = kit.api_providers_hook(
    kit.lazy_api("bedrock-converse-stream", "pi_sdk_bedrock.converse", call="call_bedrock_converse")
)
register_models = kit.models_hook(__name__)
get_api_key = kit.env_api_key_hook({"amazon-bedrock": ("AWS_BEARER_TOKEN_BEDROCK",)})
