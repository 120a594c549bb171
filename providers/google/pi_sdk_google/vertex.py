"""Vertex AI (api ``google-vertex``, ``*aiplatform.googleapis.com``).

pi-mono ``google-vertex.ts``; pi-spec §4.8. Same wire body and stream as the Gemini API; only
authentication and the URL differ. Importing this module does not import ``google.genai``.

Authentication, first match wins:

1. ``StreamOptions.client``: a ``google.genai.Client(vertexai=True, ...)`` you built;
2. an API key (Vertex AI express mode): ``StreamOptions.api_key``, else ``GOOGLE_CLOUD_API_KEY``
   (the ``get_api_key`` hook). pi-mono's ``"<authenticated>"`` marker is never taken for a key
   (pi-spec §10.1 #15);
3. Google Cloud credentials: ``provider_options["credentials"]`` (a
   ``google.auth.credentials.Credentials``), else Application Default Credentials, with the
   project from ``provider_options["project"]``, ``GOOGLE_CLOUD_PROJECT`` or ``GCLOUD_PROJECT``
   and the location from ``provider_options["location"]`` or ``GOOGLE_CLOUD_LOCATION`` (default
   ``global``, as ``google-genai`` defaults).

URL: when ``model.base_url`` already names a resource prefix (its path ends in an API version,
or contains ``/projects/``), it is used as is and ``publishers/google/models/<id>`` follows. This
is what :func:`recognize_vertex` produces for replay. Otherwise ``model.base_url`` is a host
(the catalog's ``https://{location}-aiplatform.googleapis.com``, ``{location}`` filled in;
``global`` uses ``https://aiplatform.googleapis.com``) followed by the version
(``provider_options["api_version"]``, default ``v1`` with an API key and ``v1beta1`` with
credentials, as pi-mono) and, with credentials, ``projects/<p>/locations/<l>``.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any
from urllib.parse import urlsplit

from pi_sdk.provider import (
    AssistantMessageEvent,
    ConfigurationError,
    Context,
    Model,
    StreamOptions,
    resolve_api_key,
)

from ._call import COMMON_OPTIONS, STREAM_METHOD, check_provider_options, run_stream
from ._shared import recorded_model

__all__ = ["API", "AUTHENTICATED_MARKER", "base_url", "recognize_vertex", "stream_google_vertex"]

API = "google-vertex"
AUTHENTICATED_MARKER = "<authenticated>"
"""pi-mono's ``getEnvApiKey("google-vertex")`` answer meaning "credentials exist"; not a key."""

_OPTIONS = COMMON_OPTIONS | {"project", "location", "credentials", "api_version"}
_GLOBAL_HOST = "https://aiplatform.googleapis.com"
_REGIONAL_HOST = "https://{location}-aiplatform.googleapis.com"
_VERSION_SUFFIX = re.compile(r"/v\d+(?:alpha|beta)?\d*$")
_RESOURCE = re.compile(r"/projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)")
_PATH = re.compile(
    r"^(?P<prefix>/.*?)?/(?P<version>v\d+(?:alpha|beta)?\d*)"
    r"(?P<resource>/projects/[^/]+/locations/[^/]+)?"
    r"/publishers/(?P<publisher>[^/]+)/models/(?P<model>[^/:]+)"
    r":(?:streamGenerateContent|generateContent)$"
)


def _model_resource(model_id: str) -> str:
    return model_id if "/" in model_id else f"publishers/google/models/{model_id}"


def _is_resource_prefix(base_url: str) -> bool:
    path = urlsplit(base_url).path.rstrip("/")
    return bool(_VERSION_SUFFIX.search(path)) or "/projects/" in path


def _host(base_url: str, location: str) -> str:
    if base_url and "{location}" not in base_url:
        return base_url
    if location == "global":
        return _GLOBAL_HOST
    return (base_url or _REGIONAL_HOST).replace("{location}", location)


def _api_key(model: Model, options: StreamOptions) -> str | None:
    key = resolve_api_key(model, options)
    return None if not key or key == AUTHENTICATED_MARKER else key


def _project(options: StreamOptions) -> str | None:
    return (
        options.provider_options.get("project")
        or os.environ.get("GOOGLE_CLOUD_PROJECT")
        or os.environ.get("GCLOUD_PROJECT")
    )


def _location(options: StreamOptions) -> str:
    return (
        options.provider_options.get("location")
        or os.environ.get("GOOGLE_CLOUD_LOCATION")
        or "global"
    )


def base_url(
    model: Model,
    *,
    api_key: str | None,
    project: str | None,
    location: str,
    api_version: str | None,
) -> str:
    """Return the URL prefix before ``/publishers/...`` (rules in the module docstring).

    Raises:
        ConfigurationError: Credentials mode without a project.
    """
    base = model.base_url.rstrip("/")
    if base and _is_resource_prefix(base):
        prefix = base
    elif api_key:
        prefix = f"{_host(base, 'global')}/{api_version or 'v1'}"
    else:
        if not project:
            raise ConfigurationError(
                "Vertex AI requires a project ID: pass provider_options={'project': ...}, set "
                "GOOGLE_CLOUD_PROJECT (or GCLOUD_PROJECT), or use an API key (GOOGLE_CLOUD_API_KEY)"
            )
        prefix = (
            f"{_host(base, location)}/{api_version or 'v1beta1'}"
            f"/projects/{project}/locations/{location}"
        )
    return prefix


def stream_google_vertex(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream a Vertex AI call (the ``google-vertex`` :class:`pi_sdk.StreamFunction`).

    Args:
        model: A ``google-vertex`` model (``pi_sdk.get_model("google-vertex", ...)``).
        context: System prompt, messages and tools.
        options: Authentication as in the module docstring; ``provider_options`` also takes
            ``tool_choice``, ``thinking``, ``timeout_ms`` (as the Gemini API) and
            ``api_version``.

    Returns:
        An async generator of events; failures end it with the terminal ``error`` event.
    """

    def connect() -> tuple[AbstractAsyncContextManager[Any], str, str]:
        check_provider_options(options, _OPTIONS, API)
        provider = options.provider_options
        client = options.client
        if client is not None:  # the caller's client decides the auth mode
            api = getattr(client, "_api_client", None)
            api_key = getattr(api, "api_key", None)
            project = getattr(api, "project", None) or _project(options)
            location = getattr(api, "location", None) or _location(options)
        else:
            api_key, project, location = (
                _api_key(model, options),
                _project(options),
                _location(options),
            )
        base = model.base_url.rstrip("/")
        resource = _RESOURCE.search(urlsplit(base).path) if base else None
        if resource is not None:  # the URL names them: it decides
            project, location = resource["project"], resource["location"]
        base = base_url(
            model,
            api_key=api_key,
            project=project,
            location=location,
            api_version=provider.get("api_version"),
        )
        lease: AbstractAsyncContextManager[Any] = nullcontext(client)
        if client is None:
            from ._transport import get_client

            lease = get_client(
                vertex=True,
                api_key=api_key,
                project=project,
                location=location,
                credentials=provider.get("credentials"),
                timeout_ms=provider.get("timeout_ms"),
            )
        return lease, base, f"{base}/{_model_resource(model.id)}:{STREAM_METHOD}"

    return run_stream(model, context, options, connect)


def recognize_vertex(method: str, uri: str, body: Any) -> Model | None:
    """Return the model that sends a recorded Vertex AI request, or ``None`` (for replay).

    Recognizes ``POST <prefix>/<version>[/projects/<p>/locations/<l>]/publishers/<pub>/models/
    <id>:streamGenerateContent`` (and ``:generateContent``) on any host; ``base_url`` keeps
    everything before ``/publishers`` (version, project and location included), so a replayed
    call hits the recorded path.
    """
    if method.upper() != "POST":
        return None
    parts = urlsplit(uri)
    match = _PATH.match(parts.path)
    if match is None:
        return None
    recorded_base = (
        f"{parts.scheme}://{parts.netloc}{match['prefix'] or ''}/{match['version']}"
        f"{match['resource'] or ''}"
    )
    model_id = match["model"]
    if match["publisher"] != "google":
        model_id = f"publishers/{match['publisher']}/models/{model_id}"
    return recorded_model("google-vertex", API, model_id, recorded_base)
