"""Hook implementations every provider package writes the same way, built from data.

A provider package's ``__init__`` registers its wire APIs, its ``models.json`` catalog and its
environment-variable API keys, and must import neither the vendor SDK nor its wire code until the
first call. These factories return plain ``def`` functions marked with
:data:`hookimpl`, so a package binds them to the hook names at module level::

    from pi_sdk import provider as kit

    register_api_providers = kit.api_providers_hook(
        kit.lazy_api(
            "anthropic-messages", "pi_sdk_anthropic.messages", call="call_anthropic_messages"
        )
    )
    register_models = kit.models_hook("pi_sdk_anthropic")
    get_api_key = kit.env_api_key_hook(
        {"anthropic": ("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY")}
    )
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any

from pi_sdk._stream.contract import ApiProvider
from pi_sdk._wire.cost import load_models_json
from pi_sdk.plugins.hookspecs import RegisterApiProvider, RegisterModel, hookimpl

if TYPE_CHECKING:  # annotations only: a provider package's import needs none of the read path
    from pi_sdk._stream.contract import (
        CallFunction,
        CountTokensFunction,
        HttpCall,
        RequestRecognizer,
        StreamFunction,
    )
    from pi_sdk.events import AssistantMessageEvent
    from pi_sdk.options import StreamOptions
    from pi_sdk.types import Context, Model

__all__ = [
    "api_providers_hook",
    "env_api_key_hook",
    "lazy_api",
    "lazy_call",
    "lazy_recognizer",
    "lazy_stream",
    "models_hook",
]


def _attribute(module: str, name: str) -> Any:
    """``module.name``, importing ``module`` (an absolute module path) if it is not yet."""
    return getattr(import_module(module), name)


def _stand_in(proxy: Callable[..., Any], module: str, function: str, role: str) -> None:
    """Name ``proxy`` after ``module.function`` (``__module__``, ``__name__``, docstring).

    Introspection (which plugin provides an API) then sees the function it stands for.
    """
    proxy.__module__ = module
    proxy.__name__ = proxy.__qualname__ = function
    proxy.__doc__ = f"The {role}: :func:`{module}.{function}` (imported on first call)."


def lazy_stream(module: str, function: str) -> StreamFunction:
    """A :data:`StreamFunction` that imports ``module`` on its first call and calls ``function``.

    ``module`` is absolute (``"pi_sdk_anthropic.messages"``); an unknown module or name raises
    :class:`ImportError` / :class:`AttributeError` at the call, not at registration.
    """

    def stream(
        model: Model, context: Context, options: StreamOptions
    ) -> AsyncIterator[AssistantMessageEvent]:
        wire: StreamFunction = _attribute(module, function)
        return wire(model, context, options)

    _stand_in(stream, module, function, "stream function")
    return stream


def lazy_call(module: str, function: str) -> CallFunction:
    """A :data:`CallFunction` that imports ``module`` on its first call and calls ``function``.

    ``module`` is absolute (``"pi_sdk_anthropic.messages"``); an unknown module or name raises
    :class:`ImportError` / :class:`AttributeError` at the call (the call's ``error`` event), not
    at registration.
    """

    async def call(model: Model, context: Context, options: StreamOptions) -> HttpCall[Any]:
        wire: CallFunction = _attribute(module, function)
        return await wire(model, context, options)

    _stand_in(call, module, function, "call function")
    return call


def lazy_count(module: str, function: str) -> CountTokensFunction:
    """A :data:`CountTokensFunction` that imports ``module`` on its first call (as lazy_call)."""

    async def count_tokens(model: Model, context: Context, options: StreamOptions) -> int:
        wire: CountTokensFunction = _attribute(module, function)
        return await wire(model, context, options)

    _stand_in(count_tokens, module, function, "token counter")
    return count_tokens


def lazy_recognizer(module: str, function: str) -> RequestRecognizer:
    """A :data:`RequestRecognizer` that imports ``module`` on first call (like lazy_stream)."""

    def recognize(method: str, uri: str, body: Any) -> Model | None:
        wire: RequestRecognizer = _attribute(module, function)
        return wire(method, uri, body)

    _stand_in(recognize, module, function, "recognizer")
    return recognize


def lazy_api(
    api: str,
    module: str,
    stream: str | None = None,
    recognize: str | None = "recognize_request",
    *,
    call: str | None = None,
    count_tokens: str | None = None,
) -> ApiProvider:
    """The :class:`ApiProvider` for ``api`` whose functions live in ``module`` (absolute path).

    ``call`` (a :data:`CallFunction`) or ``stream`` (a :data:`StreamFunction`), one of them, and
    ``recognize`` name the functions there (``recognize=None``: no replay recognizer);
    ``module`` is imported on the first call of any (:func:`lazy_call`, :func:`lazy_stream`).
    ``stream`` and ``recognize`` may be given by position, as before ``call`` existed;
    ``count_tokens`` names the API's token counter, if it has one (``ApiProvider.count_tokens``).

    Raises:
        TypeError: both or neither of ``call`` and ``stream``.
    """
    return ApiProvider(
        api=api,
        call=lazy_call(module, call) if call is not None else None,
        stream=lazy_stream(module, stream) if stream is not None else None,
        recognize=lazy_recognizer(module, recognize) if recognize is not None else None,
        count_tokens=lazy_count(module, count_tokens) if count_tokens is not None else None,
    )


def api_providers_hook(*providers: ApiProvider) -> Callable[[RegisterApiProvider], None]:
    """A ``register_api_providers`` hook implementation registering ``providers`` in order."""

    @hookimpl
    def register_api_providers(register: RegisterApiProvider) -> None:
        for provider in providers:
            register(provider)

    apis = ", ".join(f"``{provider.api}``" for provider in providers)
    register_api_providers.__doc__ = f"Register {apis}."
    return register_api_providers


def models_hook(package: str) -> Callable[[RegisterModel], None]:
    """A ``register_models`` hook implementation: every model of ``package``'s ``models.json``.

    The file is read at the hook call (:func:`pi_sdk.provider.load_models_json`).
    """

    @hookimpl
    def register_models(register: RegisterModel) -> None:
        """Register every model of ``models.json``."""
        for model in load_models_json(package):
            register(model)

    return register_models


def env_api_key_hook(env: Mapping[str, Sequence[str]]) -> Callable[[str], str | None]:
    """A ``get_api_key`` hook implementation reading environment variables (``getEnvApiKey``).

    ``env`` maps a provider id to its variables, tried in order; the first set, non-empty one is
    the key. A provider not in ``env``, or none of its variables set, gives ``None`` (the next
    plugin is asked). The environment is read at each call.
    """

    @hookimpl
    def get_api_key(provider: str) -> str | None:
        for name in env.get(provider, ()):
            value = os.environ.get(name)
            if value:
                return value
        return None

    listed = "; ".join(f"``{p}``: " + ", ".join(f"``{n}``" for n in ns) for p, ns in env.items())
    get_api_key.__doc__ = f"Return the key from the environment ({listed})."
    return get_api_key
