"""Cached Azure clients are per credential: another key or token provider, another client.

``lease_client`` caches one ``AsyncOpenAI`` per endpoint and credential (the key, else the
token provider): a second key on the same endpoint must never get the client built with the
first, and the same key gets the same client again.
"""

from __future__ import annotations

from typing import Any

from pi_sdk_azure._client import lease_client
from pi_sdk_azure._endpoint import AzureEndpoint

from pi_sdk import Model, StreamOptions

MODEL = Model(id="gpt-x", api="azure-openai-responses", provider="azure")
ENDPOINT = AzureEndpoint(base_url="https://r.openai.azure.com/openai/v1", deployment="d",
                         api_version=None)  # fmt: skip


async def _client(options: StreamOptions) -> Any:
    async with await lease_client(MODEL, options, ENDPOINT) as client:
        return client


async def test_each_key_has_its_own_client_and_a_key_its_same_one() -> None:
    first = await _client(StreamOptions(api_key="key-one"))
    second = await _client(StreamOptions(api_key="key-two"))
    assert (first.api_key, second.api_key) == ("key-one", "key-two")
    assert await _client(StreamOptions(api_key="key-one")) is first


async def test_each_token_provider_has_its_own_client() -> None:
    def one() -> str:
        return "t1"

    def two() -> str:
        return "t2"

    clients = [
        await _client(StreamOptions(provider_options={"azure_ad_token_provider": p}))
        for p in (one, two, one)
    ]
    assert clients[0] is not clients[1] and clients[2] is clients[0]
    keyed = await _client(StreamOptions(api_key="key-one"))
    assert keyed is not clients[0]
