"""Google transport, plugin hooks, replay recognizers and Vertex AI URL rules."""

from __future__ import annotations

import asyncio
import inspect
import subprocess
import sys
from typing import Any

import pi_sdk_google
import pytest
from pi_sdk_google import _client, recognize_generative_ai, recognize_vertex
from pi_sdk_google.vertex import _request as vertex_request

import pi_sdk
from pi_sdk import ConfigurationError, Model, StreamOptions
from pi_sdk.provider import load_models_json

# --- transport ----------------------------------------------------------------------------------


def test_importing_the_plugin_imports_no_vendor_sdk() -> None:
    # Nor its own wire code: the hook module imports it on the first call.
    code = (
        "import sys, pi_sdk, pi_sdk_google; "
        "bad = [m for m in sys.modules if m.startswith(('google.genai', 'httpx2', 'aiohttp',"
        " 'pi_sdk_google.'))]; "
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_private_sdk_names_the_transport_relies_on_exist() -> None:
    # _transport.py sends through these; a google-genai release that drops them must fail here.
    from google.genai import _api_client  # pyright: ignore[reportPrivateUsage]

    assert {"headers", "url", "method", "data", "timeout"} <= set(
        _api_client.HttpRequest.__dataclass_fields__
    )
    assert asyncio.iscoroutinefunction(_api_client.BaseApiClient._async_request)  # pyright: ignore[reportPrivateUsage]
    once = _api_client.BaseApiClient._async_request_once  # pyright: ignore[reportPrivateUsage]
    assert asyncio.iscoroutinefunction(once)
    assert {"http_request", "stream", "implicit_retry"} <= set(inspect.signature(once).parameters)
    assert callable(_api_client.BaseApiClient._use_aiohttp)  # pyright: ignore[reportPrivateUsage]


async def test_clients_are_pinned_to_httpx2_without_sdk_retries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import httpx2
    from google.genai import _api_client  # pyright: ignore[reportPrivateUsage]

    # As if aiohttp were installed: the SDK would otherwise switch to it.
    monkeypatch.setattr(_api_client, "has_aiohttp", True)
    for kwargs in (
        {"vertex": False, "api_key": "pin-1"},
        {"vertex": True, "api_key": "pin-2"},
        {"vertex": True, "api_key": None, "project": "p", "location": "us-central1"},
    ):
        async with _client.get_client(**kwargs) as client:  # type: ignore[arg-type]
            api = client._api_client  # pyright: ignore[reportPrivateUsage]
            assert api._use_aiohttp() is False  # pyright: ignore[reportPrivateUsage]
            assert isinstance(api._async_httpx_client, httpx2.AsyncClient)  # pyright: ignore[reportPrivateUsage]
            assert api._http_options.retry_options.attempts == 1  # pyright: ignore[reportPrivateUsage]
            assert api._async_retry.stop.max_attempt_number == 1  # pyright: ignore[reportPrivateUsage]


class _Sent(Exception):
    pass


async def test_send_skips_the_sdk_retrier_only_when_it_allows_one_attempt() -> None:
    # pi-sdk's clients allow one attempt: the request goes out once, without tenacity; a
    # caller's client with its own retry options keeps the SDK's retrier.
    from google import genai
    from google.genai import types
    from pi_sdk_google import _transport

    async def send(client: Any) -> list[str]:
        used: list[str] = []
        api = client._api_client  # pyright: ignore[reportPrivateUsage]

        async def once(request: Any, stream: bool = False, **kwargs: Any) -> Any:
            used.append(f"once {request.method} {request.url} stream={stream} {kwargs}")
            raise _Sent

        async def retried(http_request: Any, stream: bool = False, **kwargs: Any) -> Any:
            used.append(f"retried stream={stream}")
            raise _Sent

        api._async_request_once = once  # pyright: ignore[reportPrivateUsage]
        api._async_request = retried  # pyright: ignore[reportPrivateUsage]
        with pytest.raises(_Sent):
            await _transport.send(client, "https://g.test/x", {"a": 1}, {"h": "v"})
        return used

    async with _client.get_client(vertex=False, api_key="once-key") as ours:
        assert await send(ours) == [
            "once post https://g.test/x stream=True {'implicit_retry': False}"
        ]
    retrying = types.HttpOptions(retry_options=types.HttpRetryOptions(attempts=3))
    theirs = genai.Client(api_key="theirs", http_options=retrying)
    assert await send(theirs) == ["retried stream=True"]
    assert await send(genai.Client(api_key="no-options")) == ["retried stream=True"]


async def _lease(**kwargs: Any) -> Any:
    async with _client.get_client(**kwargs) as client:
        return client


async def test_clients_are_cached_per_configuration() -> None:
    first = await _lease(vertex=False, api_key="cache-a")
    assert await _lease(vertex=False, api_key="cache-a") is first
    assert await _lease(vertex=False, api_key="cache-b") is not first
    vertex_client = await _lease(vertex=True, api_key=None, project="p", location="l")
    assert vertex_client is not first
    assert "cache-a" not in repr(_client._CLIENTS)  # pyright: ignore[reportPrivateUsage]


def test_clients_are_not_shared_across_event_loops() -> None:
    async def build() -> Any:
        return await _lease(vertex=False, api_key="loop-key")

    assert asyncio.run(build()) is not asyncio.run(build())


def test_cache_is_bounded() -> None:
    async def fill() -> int:
        for i in range(40):
            await _lease(vertex=False, api_key=f"bounded-{i}")
        return len(_client._CLIENTS)  # pyright: ignore[reportPrivateUsage]

    assert asyncio.run(fill()) == 16


# --- plugin hooks -------------------------------------------------------------------------------


def test_api_keys_come_from_the_documented_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    models = pi_sdk.Models(pi_sdk_google.PROVIDERS)
    monkeypatch.setenv("GEMINI_API_KEY", "gem")
    monkeypatch.setenv("GOOGLE_CLOUD_API_KEY", "vert")
    assert models.get_api_key("google") == "gem"
    assert models.get_api_key("google-vertex") == "vert"
    assert models.get_api_key("anthropic") is None
    monkeypatch.delenv("GOOGLE_CLOUD_API_KEY")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", "/tmp/adc.json")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p")
    assert models.get_api_key("google-vertex") is None, "never '<authenticated>'"


def test_plugin_registers_both_apis_and_the_catalog(plugin_manager: Any) -> None:
    plugin_manager.register(pi_sdk_google.PROVIDERS, name="google")
    assert pi_sdk.get_api_provider("google-generative-ai").recognize is recognize_generative_ai
    assert pi_sdk.get_api_provider("google-vertex").recognize is recognize_vertex
    catalog = load_models_json("pi_sdk_google")
    for provider in ("google", "google-vertex", "opencode"):
        ids = sorted(m.id for m in catalog if m.provider == provider)
        assert ids and sorted(m.id for m in pi_sdk.get_models(provider)) == ids
    flash = pi_sdk.get_model("google", "gemini-2.5-flash")
    assert flash.api == "google-generative-ai" and flash.reasoning


# --- replay recognizers -------------------------------------------------------------------------


GEMINI_REQUESTS = [
    (
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse",
        "gemini-2.0-flash",
        "https://generativelanguage.googleapis.com/v1beta",
    ),
    (
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-3.6-flahs:generateContent",
        "gemini-3.6-flahs",
        "https://generativelanguage.googleapis.com/v1beta",
    ),
    (
        "http://localhost:8080/proxy/v1/tunedModels/my-tune:streamGenerateContent",
        "tunedModels/my-tune",
        "http://localhost:8080/proxy/v1",
    ),
]
VERTEX_REQUESTS = [
    (
        "https://europe-west4-aiplatform.googleapis.com/v1beta1/projects/scrubbed-project/"
        "locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent",
        "gemini-2.5-flash",
        "https://europe-west4-aiplatform.googleapis.com/v1beta1/projects/scrubbed-project/"
        "locations/europe-west4",
    ),
    (
        "https://us-central1-aiplatform.googleapis.com/v1/projects/scrubbed-project/locations/"
        "us-central1/publishers/google/models/gemini-2.5-pro:generateContent?%24alt=json",
        "gemini-2.5-pro",
        "https://us-central1-aiplatform.googleapis.com/v1/projects/scrubbed-project/"
        "locations/us-central1",
    ),
    (
        "https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-3-pro-preview:"
        "streamGenerateContent?alt=sse",
        "gemini-3-pro-preview",
        "https://aiplatform.googleapis.com/v1",
    ),
]


@pytest.mark.parametrize(
    ("recognize", "uri", "model_id", "base_url"),
    [
        *[(recognize_generative_ai, *case) for case in GEMINI_REQUESTS],
        *[(recognize_vertex, *case) for case in VERTEX_REQUESTS],
    ],
)
def test_recognize_requests(
    plugin_manager: Any, recognize: Any, uri: str, model_id: str, base_url: str
) -> None:
    plugin_manager.register(pi_sdk_google.PROVIDERS, name="google")
    model = recognize("POST", uri, None)
    assert model is not None
    vertex = recognize is recognize_vertex
    api, provider = ("google-vertex",) * 2 if vertex else ("google-generative-ai", "google")
    assert (model.id, model.base_url, model.api, model.provider) == (
        model_id,
        base_url,
        api,
        provider,
    )
    if vertex:  # the recognized base URL is used verbatim: replay calls the recorded path
        prefix = vertex_request.base_url(
            model, api_key=None, project=None, location="x", api_version=None
        )
        assert prefix == base_url


def test_recognized_catalog_model_keeps_its_prices(plugin_manager: Any) -> None:
    plugin_manager.register(pi_sdk_google.PROVIDERS, name="google")
    uri = "https://x.test/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    model = recognize_generative_ai("POST", uri, None)
    assert model is not None and model.cost == pi_sdk.get_model("google", "gemini-2.5-flash").cost


@pytest.mark.parametrize(
    ("model_id", "reasoning"),
    [
        ("gemini-3-zeta", True),  # Gemini 3 and later think
        ("gemini-12-zeta", True),
        ("gemini-2.5-zeta", True),  # so does every 2.5 model
        ("gemini-2.0-zeta", False),
        ("gemma-zeta", False),
    ],
)
@pytest.mark.parametrize("vertex", [False, True])
def test_a_recorded_request_for_a_model_the_catalog_lacks_gets_a_stand_in(
    model_id: str, reasoning: bool, vertex: bool
) -> None:
    # pi-sdk replay calls the recorded server with this model: thinking must be on exactly for
    # the families that think, or the replayed request differs from the recording.
    if vertex:
        base = "https://aiplatform.googleapis.com/v1/publishers/google"
        model = recognize_vertex("POST", f"{base}/models/{model_id}:streamGenerateContent", None)
        api, provider, base_url = (
            "google-vertex",
            "google-vertex",
            "https://aiplatform.googleapis.com/v1",
        )
    else:
        uri = f"https://x.test/v1beta/models/{model_id}:generateContent"
        model = recognize_generative_ai("POST", uri, None)
        api, provider, base_url = "google-generative-ai", "google", "https://x.test/v1beta"
    assert model == Model(
        id=model_id,
        name=model_id,
        api=api,
        provider=provider,
        base_url=base_url,
        reasoning=reasoning,
        input=["text", "image"],
    )


@pytest.mark.parametrize(
    ("method", "uri"),
    [
        (
            "GET",
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent",
        ),
        (
            "POST",
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:countTokens",
        ),
        ("POST", "https://api.anthropic.com/v1/messages"),
        ("POST", "https://api.openai.com/v1/chat/completions"),
    ],
)
def test_recognizers_decline_other_requests(method: str, uri: str) -> None:
    assert recognize_generative_ai(method, uri, None) is None
    assert recognize_vertex(method, uri, None) is None


def test_gemini_recognizer_does_not_take_vertex_paths() -> None:
    uri = (
        "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/l/publishers/"
        "google/models/gemini-2.5-pro:streamGenerateContent"
    )
    assert recognize_generative_ai("POST", uri, None) is None


# --- Vertex AI URLs and authentication ----------------------------------------------------------


def vertex_model(base_url: str = "https://{location}-aiplatform.googleapis.com") -> Model:
    return Model(
        id="gemini-2.5-pro", api="google-vertex", provider="google-vertex", base_url=base_url
    )


def test_vertex_express_mode_url() -> None:
    base = vertex_request.base_url(
        vertex_model(), api_key="k", project=None, location="us-central1", api_version=None
    )
    assert base == "https://aiplatform.googleapis.com/v1"


def test_vertex_credentials_mode_url() -> None:
    regional = vertex_request.base_url(
        vertex_model(), api_key=None, project="p1", location="us-east5", api_version=None
    )
    assert (
        regional
        == "https://us-east5-aiplatform.googleapis.com/v1beta1/projects/p1/locations/us-east5"
    )
    global_ = vertex_request.base_url(
        vertex_model(), api_key=None, project="p1", location="global", api_version="v1"
    )
    assert global_ == "https://aiplatform.googleapis.com/v1/projects/p1/locations/global"


def test_vertex_without_project_or_key_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="project"):
        vertex_request.base_url(
            vertex_model(), api_key=None, project=None, location="global", api_version=None
        )


async def test_vertex_ignores_the_authenticated_marker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_CLOUD_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    monkeypatch.delenv("GCLOUD_PROJECT", raising=False)
    target = vertex_model()
    options = StreamOptions(api_key="<authenticated>", max_retries=0)
    message = await pi_sdk.complete(target, pi_sdk.Context(), options)
    # Treated as "no key": credentials mode, which needs a project.
    assert message.stop_reason == "error"
    assert "requires a project" in (message.error_message or "")


async def test_a_configuration_google_genai_rejects_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch,
):
    for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY"):  # google-genai reads these itself
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigurationError) as refused:
        async with _client.get_client(vertex=False, api_key=None):
            pass
    assert str(refused.value).startswith("google-genai could not build a client: ")
    assert "API key" in str(refused.value)  # the SDK's own reason, kept
    assert refused.value.__cause__ is None and refused.value.__suppress_context__


@pytest.mark.parametrize("status", [307, 308])
async def test_a_redirect_is_followed_as_google_genai_follows_it(status: int):
    # google-genai's own clients follow redirects (its _api_client sets follow_redirects);
    # the client pi-sdk gives it keeps that (a gateway that moved answers once more there).
    from _support.loopback import LoopbackServer, Step, model_at, text_reply

    api = "google-generative-ai"
    reply = text_reply(api, "moved fine")

    def route(method: str, target: str, headers: dict[str, str], body: bytes) -> Step:
        if target.startswith("/moved"):
            return reply
        return Step(status, {"location": "/moved" + target, "content-length": "0"}, ())

    async with LoopbackServer([], route=route) as server:
        model = model_at(api, server.url)
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])
        message = await pi_sdk.complete(model, context, StreamOptions(api_key="redirect-key"))
        targets = [target for _, target, _ in server.requests]
    assert message.stop_reason == "stop", message.error_message
    assert message.text == "moved fine"
    assert len(targets) == 2 and targets[1] == "/moved" + targets[0]


@pytest.mark.parametrize(
    ("failure", "said", "retryable"),
    [
        ("transport", "Google credentials refresh failed: token endpoint unreachable", True),
        ("refresh", "Google Cloud credentials error: invalid_grant: account disabled", False),
    ],
)
async def test_credentials_that_cannot_refresh_are_a_provider_error_that_says_why(
    failure: str, said: str, retryable: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A token endpoint out of reach is worth one more attempt; refused credentials are not.
    from google.auth import credentials as google_credentials
    from google.auth import exceptions as auth_exceptions

    monkeypatch.delenv("GOOGLE_CLOUD_API_KEY", raising=False)
    refreshes: list[int] = []

    class Broken(google_credentials.Credentials):
        def refresh(self, request: Any) -> None:
            refreshes.append(1)
            if failure == "transport":
                raise auth_exceptions.TransportError("token endpoint unreachable")
            raise auth_exceptions.RefreshError("invalid_grant: account disabled")

    options = StreamOptions(
        max_retries=1,
        max_retry_delay_ms=1,
        provider_options={"credentials": Broken(), "project": "p1", "location": "us-central1"},
    )
    message = await pi_sdk.complete(vertex_model(), pi_sdk.Context(), options)
    assert message.stop_reason == "error"
    assert message.error_message == (f"{said} (after 2 attempts)" if retryable else said)
    assert len(refreshes) == (2 if retryable else 1)
