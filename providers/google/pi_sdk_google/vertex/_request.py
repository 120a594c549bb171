"""Vertex AI's own request rules: authentication, the URL, and recognizing a recorded request.

pi-mono ``google-vertex.ts``; pi-spec §4.8. Same wire body and stream as the Gemini API; only
authentication and the URL differ.

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
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from pi_sdk import ConfigurationError, Model, StreamOptions
from pi_sdk.provider import resolve_api_key

from .._shared_call import COMMON_OPTIONS, STREAM_METHOD
from .._shared_request import match_recorded, recorded_model

__all__ = [
    "API",
    "AUTHENTICATED_MARKER",
    "OPTIONS",
    "Target",
    "base_url",
    "recognize_vertex",
    "resolve_target",
]

API = "google-vertex"
AUTHENTICATED_MARKER = "<authenticated>"
"""pi-mono's ``getEnvApiKey("google-vertex")`` answer meaning "credentials exist"; not a key."""

OPTIONS = COMMON_OPTIONS | {"project", "location", "credentials", "api_version"}
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


class Target(NamedTuple):
    """Where a call goes and how it authenticates (rules in the module docstring)."""

    api_key: str | None
    """Express-mode key; ``None`` means Google Cloud credentials."""
    project: str | None
    location: str
    base_url: str
    """The URL prefix before ``/publishers/...``; binds the reply's signatures."""
    url: str
    """The full ``streamGenerateContent`` URL."""


def resolve_target(model: Model, options: StreamOptions) -> Target:
    """Resolve the key or project and location, and the URL, of one call.

    A caller's ``options.client`` decides the auth mode (its key, project and location); a
    ``model.base_url`` naming ``/projects/<p>/locations/<l>`` decides project and location.

    Raises:
        ConfigurationError: Credentials mode without a project.
    """
    client = options.client
    if client is not None:  # the caller's client decides the auth mode
        api = getattr(client, "_api_client", None)
        api_key = getattr(api, "api_key", None)
        project = getattr(api, "project", None) or _project(options)
        location = getattr(api, "location", None) or _location(options)
    else:
        api_key, project, location = _api_key(model, options), _project(options), _location(options)
    base = model.base_url.rstrip("/")
    resource = _RESOURCE.search(urlsplit(base).path) if base else None
    if resource is not None:  # the URL names them: it decides
        project, location = resource["project"], resource["location"]
    base = base_url(
        model,
        api_key=api_key,
        project=project,
        location=location,
        api_version=options.provider_options.get("api_version"),
    )
    url = f"{base}/{_model_resource(model.id)}:{STREAM_METHOD}"
    return Target(api_key, project, location, base, url)


def recognize_vertex(method: str, uri: str, body: Any) -> Model | None:
    """Return the model that sends a recorded Vertex AI request, or ``None`` (for replay).

    Recognizes ``POST <prefix>/<version>[/projects/<p>/locations/<l>]/publishers/<pub>/models/
    <id>:streamGenerateContent`` (and ``:generateContent``) on any host; ``base_url`` keeps
    everything before ``/publishers`` (version, project and location included), so a replayed
    call hits the recorded path.
    """
    recorded = match_recorded(method, uri, _PATH)
    if recorded is None:
        return None
    match, version_url = recorded
    recorded_base = f"{version_url}{match['resource'] or ''}"
    model_id = match["model"]
    if match["publisher"] != "google":
        model_id = f"publishers/{match['publisher']}/models/{model_id}"
    return recorded_model("google-vertex", API, model_id, recorded_base)
