"""The ``openai`` SDK client for an Azure endpoint: which class, which credential.

Auth (Microsoft Learn, "Azure OpenAI API version lifecycle" and "Authentication"):

* the **v1 endpoint** takes a plain ``openai.AsyncOpenAI`` (``base_url`` = the endpoint): the
  API key, or a Microsoft Entra ID token refreshed per request, goes in
  ``Authorization: Bearer ...``;
* a **deployment endpoint** takes ``openai.AsyncAzureOpenAI`` (``base_url`` = the deployment
  URL, ``api_version``): the key goes in the ``api-key`` header, a token in
  ``Authorization: Bearer ...``.

The credential is ``provider_options["azure_ad_token_provider"]`` (a callable returning a
token, or an awaitable of one) when given; else the API key (``options.api_key``, then the
``get_api_key`` hook: ``AZURE_OPENAI_API_KEY``); else Entra ID through ``azure-identity``'s
``DefaultAzureCredential`` (scope ``https://cognitiveservices.azure.com/.default``), imported
on first use and only then (the ``entra`` extra). Clients are cached like pi-sdk-openai's
(per event loop, endpoint and credential digest) with the SDK's retries off.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Literal, cast

from pi_sdk_openai._client import caller_client, plan_request, shared_ssl_context

import pi_sdk
from pi_sdk import provider as kit

from ._endpoint import AzureEndpoint, resolve_endpoint, without_azure_options
from ._filters import with_filter_detail

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["ENTRA_SCOPE", "ENV_API_KEY", "lease_client", "plan_on"]

ENV_API_KEY = "AZURE_OPENAI_API_KEY"
ENTRA_SCOPE = "https://cognitiveservices.azure.com/.default"
"""The token scope of Azure OpenAI (Cognitive Services)."""

TokenProvider = Callable[[], "str | Awaitable[str]"]


async def _close(client: AsyncOpenAI) -> None:
    await client.close()


_CLIENTS: kit.ClientCache[AsyncOpenAI] = kit.ClientCache(_close)


def _token_option(options: pi_sdk.StreamOptions) -> TokenProvider | None:
    provider: Any = options.provider_options.get("azure_ad_token_provider")
    if provider is not None and not callable(provider):
        raise pi_sdk.ConfigurationError(
            "provider_options['azure_ad_token_provider'] must be a callable returning a token,"
            f" got {type(provider).__name__}"
        )
    return cast(TokenProvider, provider)


def _default_credential() -> TokenProvider:
    import importlib

    identity: Any = importlib.import_module("azure.identity.aio")
    credential = identity.DefaultAzureCredential()
    return identity.get_bearer_token_provider(credential, ENTRA_SCOPE)


async def _entra_token_provider(model: pi_sdk.Model) -> TokenProvider:
    """The process-wide Entra ID token provider (``DefaultAzureCredential``).

    Raises:
        ConfigurationError: ``azure-identity`` is not installed (no key either).
    """
    try:
        await kit.import_vendor("azure.identity.aio")
    except ImportError:
        raise pi_sdk.ConfigurationError(
            f"No API key for provider {model.provider!r}: set {ENV_API_KEY}, pass"
            " StreamOptions(api_key=...) or provider_options['azure_ad_token_provider'], or"
            " install pi-sdk-azure[entra] to sign in with Microsoft Entra ID"
        ) from None
    return await kit.shared_in_thread("azure.identity.token_provider", _default_credential)


def _async_token(provider: TokenProvider) -> Callable[[], Awaitable[str]]:
    """``provider`` as the async callable the SDK calls before each request."""

    async def token() -> str:
        value: Any = provider()
        if inspect.isawaitable(value):
            value = await value
        if not isinstance(value, str) or not value:
            raise pi_sdk.ConfigurationError("the Azure token provider returned no token")
        return value

    return token


async def lease_client(
    model: pi_sdk.Model, options: pi_sdk.StreamOptions, endpoint: AzureEndpoint
) -> AbstractAsyncContextManager[AsyncOpenAI]:
    """Return a lease on ``options.client``, or on the cached client for ``endpoint``.

    Raises:
        ConfigurationError: ``options.client`` is not an ``openai.AsyncOpenAI``; no credential
            could be found (see the module docstring).
    """
    import openai

    given = caller_client(options)
    if given is not None:
        return given
    provider = _token_option(options)
    key = None if provider is not None else kit.resolve_api_key(model, options)
    if not key and provider is None:
        provider = await _entra_token_provider(model)
    verify = await shared_ssl_context()
    token = _async_token(provider) if provider is not None else None

    def build() -> AsyncOpenAI:
        from pi_sdk.provider import PooledTransport  # imports httpx2: only once a client is built

        http_client = openai.DefaultAsyncHttpxClient(transport=PooledTransport(verify=verify))
        if endpoint.is_deployment:
            return openai.AsyncAzureOpenAI(
                base_url=endpoint.base_url,
                api_version=endpoint.api_version,
                api_key=key or None,
                azure_ad_token_provider=token,
                max_retries=0,
                http_client=http_client,
            )
        query = {"api-version": endpoint.api_version} if endpoint.api_version else None
        return openai.AsyncOpenAI(
            api_key=key or token,
            base_url=endpoint.base_url,
            default_query=query,
            max_retries=0,
            http_client=http_client,
        )

    secret = key or f"entra:{id(provider)}"
    return _CLIENTS.lease((endpoint.base_url, endpoint.api_version), build, secret=secret)


async def plan_on(
    model: pi_sdk.Model,
    context: pi_sdk.Context,
    options: pi_sdk.StreamOptions,
    *,
    api: Literal["responses", "chat"],
    path: str,
    build_payload: Callable[..., dict[str, Any]],
    decoder: Callable[[kit.MessageBuilder], kit.WireDecoder],
) -> kit.HttpCall[AsyncOpenAI]:
    """The plan of one call to Azure: pi-sdk-openai's, with Azure's endpoint, client and errors.

    The endpoint is resolved (:func:`pi_sdk_azure._endpoint.resolve_endpoint` for ``api``).
    ``build_payload`` is pi-sdk-openai's body builder (``build_payload(model, context, options,
    origin=origin)``), given ``options`` without Azure's ``provider_options`` keys; the body's
    ``model`` becomes the deployment name (the v1 endpoint routes on it, a deployment endpoint
    ignores it). ``decoder(builder)`` reads the reply. Every error of the call goes through
    :func:`pi_sdk_azure._filters.with_filter_detail` (Azure's content-filter categories). Both
    Azure call functions return this plan.

    Raises:
        ConfigurationError: bad options, no credential (:func:`lease_client`).
    """
    endpoint = resolve_endpoint(model, options, api=api)
    openai_options = without_azure_options(options)

    def body(origin: str) -> dict[str, Any]:
        built = build_payload(model, context, openai_options, origin=origin)
        built["model"] = endpoint.deployment
        return built

    plan = await plan_request(
        model,
        options,
        path=path,
        build_payload=body,
        decoder=decoder,
        client=lambda m, o: lease_client(m, o, endpoint),
    )
    return dataclasses.replace(plan, map_error=with_filter_detail)
