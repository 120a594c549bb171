"""OpenAI-compatible servers as providers: their models listed from the server at run time.

:func:`openai_compatible_provider` makes a :class:`pi_sdk.Provider` for any server that speaks
Chat Completions (a gateway, vLLM, llama.cpp's ``llama-server``, SGLang, Ollama, LM Studio):
its models are called through ``openai-completions`` at the given base URL, and its
``fetch_models`` (a :class:`ModelLister`) lists them for :meth:`pi_sdk.Models.refresh`. Which
endpoint lists them (:data:`ModelsApi`):

* ``"openai"``: ``GET <base>/models``, the OpenAI shape, with vLLM's, llama.cpp's and the
  gateways' extra fields (:mod:`pi_sdk_openai._listing_shapes`).
* ``"ollama"``: ``GET <server>/api/tags``, then ``POST <server>/api/show`` per model (four at a
  time) for its capabilities and context length; ``<server>`` is the base URL without its
  ``/v1``.
* ``"lm-studio"``: ``GET <server>/api/v0/models`` (model type and context length), else (a
  404: an LM Studio without that API) ``GET <base>/models``.

The list request is conditional: the stored ``ETag`` / ``Last-Modified`` go out as
``If-None-Match`` / ``If-Modified-Since``, and a 304 keeps the stored list. :func:`local_providers`
are the two local servers pi-sdk-openai publishes ready to refresh: ``ollama`` at
``http://127.0.0.1:11434/v1`` and ``lm-studio`` at ``http://127.0.0.1:1234/v1``, with no static
models. Only :meth:`~pi_sdk.Models.refresh` asks them; a server that is not running refuses the
connection at once and is reported as such.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

from pi_sdk import AbortSignal, Model
from pi_sdk.provider import FetchContext, FetchedModels, Provider, ProviderAuth

if TYPE_CHECKING:  # the listing code is imported by a refresh, not when the provider is found
    from ._listing_http import Answer, Lister

__all__ = ["ModelLister", "ModelsApi", "local_providers", "openai_compatible_provider"]

ModelsApi: TypeAlias = Literal["openai", "ollama", "lm-studio"]
"""Which API lists a server's models (module doc)."""

_SHOWN_AT_ONCE = 4
"""Ollama ``/api/show`` requests in flight at once."""

_T = TypeVar("_T")


@dataclass(frozen=True)
class ModelLister:
    """A provider's ``fetch_models`` for an OpenAI-compatible server (module doc).

    Lists the models of the server at the context's provider's base URL, sending the context's
    key as ``Authorization: Bearer`` and the provider's headers. Each request gets
    ``context.timeout_s`` (seconds) per phase; aborting ``context.signal`` ends the fetch.

    Raises:
        ListingError: the server could not be reached, did not answer in time, answered an
            HTTP error, or answered something that is not a model list (the text names the
            request's method and URL and what was wrong), or the fetch was aborted.
    """

    models_api: ModelsApi = "openai"
    compat: Mapping[str, Any] | None = None
    """Compat flags given to every listed model (``model.compat``)."""

    async def __call__(self, context: FetchContext) -> FetchedModels:
        """List the models (class doc)."""
        from ._listing_http import ListingError

        base = (context.provider.base_url or "").rstrip("/")
        if not base:
            raise ListingError(f"provider {context.provider.id!r} has no base URL to list from")
        return await _abortable(self._fetch(context, base), context.signal)

    async def _fetch(self, context: FetchContext, base: str) -> FetchedModels:
        from ._listing_http import listing_client

        server = base.removesuffix("/v1")
        async with listing_client(context) as lister:
            if self.models_api == "ollama":
                return await self._ollama(lister, context, server, base)
            if self.models_api == "lm-studio":
                native = f"{server}/api/v0/models"
                answer = await lister.json(native, conditional=True, missing_ok=True)
                if answer is not None:
                    return self._listed(answer, context, base, f"GET {native}")
            url = f"{base}/models"
            answer = await lister.json(url, conditional=True)
            assert answer is not None
            return self._listed(answer, context, base, f"GET {url}")

    def _listed(
        self, answer: Answer, context: FetchContext, base: str, where: str
    ) -> FetchedModels:
        from ._listing_shapes import models_from_list

        if answer.not_modified:
            return FetchedModels(models=None, etag=answer.etag, last_modified=answer.last_modified)
        models = models_from_list(
            answer.payload, provider=context.provider.id, base_url=base, where=where,
            compat=self.compat,
        )  # fmt: skip
        return FetchedModels(models=models, etag=answer.etag, last_modified=answer.last_modified)

    async def _ollama(
        self, lister: Lister, context: FetchContext, server: str, base: str
    ) -> FetchedModels:
        from ._listing_shapes import model_from_show, ollama_names

        tags = f"{server}/api/tags"
        answer = await lister.json(tags, conditional=True)
        assert answer is not None
        if answer.not_modified:
            return FetchedModels(models=None, etag=answer.etag, last_modified=answer.last_modified)
        names = ollama_names(answer.payload, where=f"GET {tags}")
        import asyncio  # at a refresh, not when the provider is discovered

        gate = asyncio.Semaphore(_SHOWN_AT_ONCE)

        async def show(name: str) -> Model | None:
            async with gate:
                shown = await lister.json(
                    f"{server}/api/show", body={"model": name}, missing_ok=True
                )
            if shown is None:  # removed since /api/tags answered
                return None
            return model_from_show(
                name, shown.payload, provider=context.provider.id, base_url=base,
                compat=self.compat,
            )  # fmt: skip

        shown = await asyncio.gather(*(show(name) for name in names))
        return FetchedModels(
            models=[model for model in shown if model is not None],
            etag=answer.etag,
            last_modified=answer.last_modified,
        )


async def _abortable(work: Coroutine[Any, Any, _T], signal: AbortSignal | None) -> _T:
    """Await ``work``, ended with a :class:`ListingError` when ``signal`` aborts."""
    from ._listing_http import ListingError

    if signal is None:
        return await work
    if signal.aborted:
        work.close()
        raise ListingError("aborted")
    import asyncio

    task = asyncio.ensure_future(work)

    def cancel() -> None:
        task.cancel()

    remove = signal.add_callback(cancel)
    try:
        return await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if signal.aborted and (current is None or not current.cancelling()):
            raise ListingError("aborted") from None
        raise
    finally:
        remove()


def openai_compatible_provider(
    id: str,
    base_url: str,
    *,
    name: str = "",
    api_key: str | None = None,
    env: Sequence[str] = (),
    headers: Mapping[str, str] | None = None,
    models_api: ModelsApi = "openai",
    compat: Mapping[str, Any] | None = None,
    models: Sequence[Model] | Callable[[], Iterable[Model]] = (),
) -> Provider:
    """A provider for an OpenAI-compatible server whose models are listed at run time.

    Example:
        ```python
        import pi_sdk
        from pi_sdk_openai import openai_compatible_provider

        gpu = openai_compatible_provider("vllm", "http://gpu-box:8000/v1")
        models = pi_sdk.Models([gpu])
        result = await models.refresh()  # GET http://gpu-box:8000/v1/models
        model = models.get_model("vllm", "Qwen/Qwen3-8B")
        ```

    Args:
        id: The provider id its models carry (``"vllm"``).
        base_url: The Chat Completions base URL, usually ending in ``/v1``.
        name: Display name.
        api_key: The key, sent as ``Authorization: Bearer`` (listing and calls); else the first
            of ``env`` that is set; a server on this machine needs none.
        env: Environment variables holding the key, tried in order.
        headers: Headers for every request (listing and calls).
        models_api: Which API lists the models (:data:`ModelsApi`).
        compat: ``openai-completions`` compat flags given to every listed model.
        models: Static models of this provider, beside the listed ones.

    Returns:
        A :class:`pi_sdk.Provider` with the ``openai-completions`` implementation and a
        :class:`ModelLister` as its ``fetch_models``.

    Raises:
        ValueError: ``id`` is empty.
    """
    from . import OPENAI_COMPLETIONS  # defined before the package builds its providers

    return Provider(
        id=id,
        name=name,
        base_url=base_url.rstrip("/"),
        headers=dict(headers) if headers else None,
        auth=ProviderAuth(api_key=api_key, env=tuple(env)),
        models=models,
        fetch_models=ModelLister(models_api, dict(compat) if compat else None),
        apis=(OPENAI_COMPLETIONS,),
    )


def local_providers() -> tuple[Provider, ...]:
    """The local servers published ready to refresh: Ollama and LM Studio (module doc)."""
    return (
        openai_compatible_provider(
            "ollama", "http://127.0.0.1:11434/v1", name="Ollama", env=("OLLAMA_API_KEY",),
            models_api="ollama",
        ),
        openai_compatible_provider(
            "lm-studio", "http://127.0.0.1:1234/v1", name="LM Studio",
            env=("LM_STUDIO_API_KEY",), models_api="lm-studio",
        ),
    )  # fmt: skip
